package dev.larder.cluster.internal.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.cluster.ClusterDegradedException;
import dev.larder.tx.Isolation;
import dev.larder.tx.Transaction;
import dev.larder.tx.TransactionConflictException;
import dev.larder.tx.TxStore;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jgroups.Address;
import org.jgroups.protocols.DISCARD;
import org.jgroups.protocols.TP;
import org.jgroups.stack.ProtocolStack;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each row of the failure table of docs/design/cluster-transactions.md, on in-process members:
 * frames are dropped at the named step ({@link FrameFilter}), members crash (they drop every
 * message, then close), partitions are made with JGroups' DISCARD. Where the member that dies
 * matters as the key's primary (the member that validated and locked it), the key is chosen by its
 * primary; every case ends with a new commit of the key, so none leaves it locked.
 */
@Timeout(180)
class ClusteredTxFailureTest {

  @TempDir Path dir;

  private static void assertEverywhere(TxTestCluster c, String k, Long v, int... members) {
    for (int m : members) {
      TxTestCluster.await(
          () -> v.equals(c.kv(m).get(k)), "m" + m + " reads " + k + " = " + v + c.describe());
      assertEquals(
          0,
          c.store(m).stats().historyCommits(),
          "m" + m + " holds a pending" + " transaction" + c.describe());
    }
  }

  private static TxTestCluster seeded(int size, Path logs) throws Exception {
    TxTestCluster c = new TxTestCluster(size, Isolation.SERIALIZABLE, logs);
    c.awaitEpoch(size);
    c.commit(0, "k", 1L);
    for (int i = 0; i < size; i++) {
      int m = i;
      TxTestCluster.await(() -> Long.valueOf(1).equals(c.kv(m).get("k")), "m" + m + " seeded");
    }
    return c;
  }

  /**
   * Returns a key whose primary is member {@code primary}, committed as 1 and seen so on every
   * member.
   */
  private static String seededKey(TxTestCluster c, int primary) {
    String key = c.keyWithPrimary(primary);
    c.commit(0, key, 1L);
    for (int i = 0; i < c.size; i++) {
      int m = i;
      TxTestCluster.await(() -> Long.valueOf(1).equals(c.kv(m).get(key)), "m" + m + " seeded");
    }
    return key;
  }

  @ParameterizedTest(name = "the originator is the key's primary: {0}")
  @ValueSource(booleans = {true, false})
  // The commit is left running: its originator is crashed below, and the test reads the
  // outcome from the survivors.
  @SuppressWarnings("FutureReturnValueIgnored")
  void originatorThatDiesBeforeDecideLeavesItAbortedAndUnlocked(boolean originatorIsPrimary)
      throws Exception {
    try (TxTestCluster c = seeded(3, null)) {
      String k = seededKey(c, originatorIsPrimary ? 0 : 1);
      FrameFilter f = FrameFilter.install(c.engine(0));
      f.drop((to, frame) -> frame instanceof TxFrame.Decide);
      c.commitAsync(0, k, 2L);
      TxTestCluster.await(() -> f.dropped() == 2, "the DECIDEs were dropped");
      c.crash(0);
      c.awaitEpoch(2);
      assertEverywhere(c, k, 1L, 1, 2);
      c.commit(1, k, 3L);
      assertEverywhere(c, k, 3L, 1, 2);
    }
  }

  @ParameterizedTest(name = "the originator is the key's primary: {0}")
  @ValueSource(booleans = {true, false})
  void originatorThatDiesAfterAMajorityDecidedIsCommittedByTheSurvivors(boolean originatorIsPrimary)
      throws Exception {
    try (TxTestCluster c = seeded(3, null)) {
      String k = seededKey(c, originatorIsPrimary ? 0 : 1);
      FrameFilter f = FrameFilter.install(c.engine(0));
      f.drop((to, frame) -> frame instanceof TxFrame.Apply);
      c.commit(0, k, 2L); // acknowledged: a majority logged the decision
      TxTestCluster.await(() -> f.dropped() == 2, "the APPLYs were dropped");
      c.crash(0);
      c.awaitEpoch(2);
      assertEverywhere(c, k, 2L, 1, 2);
      c.commit(2, k, 3L);
      assertEverywhere(c, k, 3L, 1, 2);
    }
  }

  /**
   * The survivor that logged the DECIDE has applied the transaction (it holds it pending no
   * longer); the other survivor never heard of the decision. The reconfiguration must learn of the
   * commit from the first and apply it on the second.
   */
  @Test
  void aCommitAppliedByOneSurvivorIsCommittedOnTheOther() throws Exception {
    try (TxTestCluster c = seeded(3, null)) {
      Address m2 = c.address(2);
      FrameFilter f = FrameFilter.install(c.engine(0));
      f.drop(
          (to, frame) ->
              (frame instanceof TxFrame.Decide || frame instanceof TxFrame.Apply) && to.equals(m2));
      c.commit(0, "k", 2L);
      TxTestCluster.await(() -> Long.valueOf(2).equals(c.kv(1).get("k")), "m1 applied it");
      c.crash(0);
      c.awaitEpoch(2);
      assertEverywhere(c, "k", 2L, 1, 2);
    }
  }

  @Test
  void decideLoggedByOneSurvivorOnlyIsCommittedByTheReconfiguration() throws Exception {
    try (TxTestCluster c = seeded(5, null)) {
      Set<Address> cut = Set.of(c.address(2), c.address(3), c.address(4));
      FrameFilter f = FrameFilter.install(c.engine(0));
      f.drop((to, frame) -> frame instanceof TxFrame.Decide && cut.contains(to));
      CompletableFuture<Long> pending = c.commitAsync(0, "k", 2L);
      MemberState m1 = c.engine(1).member();
      TxTestCluster.await(() -> m1.decidedCount() == 1, "m1 logged the decision");
      c.crash(0);
      c.awaitEpoch(4);
      assertEverywhere(c, "k", 2L, 1, 2, 3, 4);
      assertThrows(ExecutionException.class, () -> pending.get(30, TimeUnit.SECONDS));
    }
  }

  @Test
  // The commit is left running: its originator is crashed below, and the test reads the
  // outcome from the survivors.
  @SuppressWarnings("FutureReturnValueIgnored")
  void decideLoggedByNoSurvivorIsAborted() throws Exception {
    try (TxTestCluster c = seeded(5, null)) {
      FrameFilter f = FrameFilter.install(c.engine(0));
      f.drop((to, frame) -> frame instanceof TxFrame.Decide);
      c.commitAsync(0, "k", 2L);
      TxTestCluster.await(() -> f.dropped() == 4, "every DECIDE was dropped");
      c.crash(0);
      c.awaitEpoch(4);
      assertEverywhere(c, "k", 1L, 1, 2, 3, 4);
    }
  }

  @Test
  void aMemberThatDiesDuringPrepareMakesTheOriginatorAbort() throws Exception {
    try (TxTestCluster c = seeded(3, null)) {
      Address m2 = c.address(2);
      FrameFilter f = FrameFilter.install(c.engine(0));
      f.drop((to, frame) -> frame instanceof TxFrame.Prepare && to.equals(m2));
      CompletableFuture<Long> pending = c.commitAsync(0, "k", 2L);
      TxTestCluster.await(() -> c.store(1).stats().historyCommits() == 1, "m1 prepared");
      c.crash(2);
      ExecutionException e =
          assertThrows(ExecutionException.class, () -> pending.get(30, TimeUnit.SECONDS));
      assertInstanceOf(TransactionConflictException.class, e.getCause());
      c.awaitEpoch(2);
      assertEverywhere(c, "k", 1L, 0, 1);
    }
  }

  /**
   * The key's primary locks it, logs the PREPARED record and votes YES, but its vote is lost and it
   * dies: the originator aborts (no DECIDE was sent). The primary restarts from its log, which
   * holds the transaction prepared (its writes pending: reads of the key there would wait); it must
   * not keep them: it adopts the state of the epoch that aborted the transaction, and takes a new
   * commit of the key.
   */
  @Test
  void aPrimaryThatDiesHoldingItsLockBeforeTheDecisionLeavesTheKeyUnlockedAfterItsRestart()
      throws Exception {
    try (TxTestCluster c = seeded(3, dir)) {
      String k = seededKey(c, 2);
      FrameFilter f = FrameFilter.install(c.engine(2));
      f.drop((to, frame) -> frame instanceof TxFrame.Vote);
      CompletableFuture<Long> pending = c.commitAsync(0, k, 2L);
      TxTestCluster.await(() -> f.dropped() == 1, "the primary locked the key and voted");
      c.crash(2);
      ExecutionException e =
          assertThrows(ExecutionException.class, () -> pending.get(30, TimeUnit.SECONDS));
      assertInstanceOf(TransactionConflictException.class, e.getCause());
      c.awaitEpoch(2);
      assertEverywhere(c, k, 1L, 0, 1);
      c.startAll(2);
      c.awaitEpoch(3);
      assertEverywhere(c, k, 1L, 0, 1, 2);
      c.commit(2, k, 3L);
      assertEverywhere(c, k, 3L, 0, 1, 2);
    }
  }

  /**
   * The key's primary votes YES and dies before the decision reaches it (DECIDE and APPLY to it are
   * dropped): the originator and the third member are a majority, so the commit is chosen and
   * acknowledged without it. The primary restarts from its log holding the transaction prepared
   * (its writes pending); it adopts the commit and takes a new commit of the key.
   */
  @Test
  void aPrimaryThatDiesAfterVotingIsCommittedWithoutItAndAdoptsTheCommitWhenItRestarts()
      throws Exception {
    try (TxTestCluster c = seeded(3, dir)) {
      String k = seededKey(c, 2);
      Address m2 = c.address(2);
      FrameFilter f = FrameFilter.install(c.engine(0));
      f.drop(
          (to, frame) ->
              (frame instanceof TxFrame.Decide || frame instanceof TxFrame.Apply) && to.equals(m2));
      c.commit(0, k, 2L);
      c.crash(2);
      c.awaitEpoch(2);
      assertEverywhere(c, k, 2L, 0, 1);
      c.startAll(2);
      c.awaitEpoch(3);
      assertEverywhere(c, k, 2L, 0, 1, 2);
      c.commit(2, k, 3L);
      assertEverywhere(c, k, 3L, 0, 1, 2);
    }
  }

  /**
   * The key's primary has the decision (it logged DECIDE and applied: the commit is acknowledged)
   * and dies before the third member heard of the decision: the survivors' reconfiguration commits
   * it there, learning it from the originator, and the key takes new commits.
   */
  @Test
  void aPrimaryThatDiesAfterTheDecisionLeavesItCommittedOnTheSurvivors() throws Exception {
    try (TxTestCluster c = seeded(3, null)) {
      String k = seededKey(c, 2);
      Address m1 = c.address(1);
      FrameFilter f = FrameFilter.install(c.engine(0));
      f.drop(
          (to, frame) ->
              (frame instanceof TxFrame.Decide || frame instanceof TxFrame.Apply) && to.equals(m1));
      c.commit(0, k, 2L);
      TxTestCluster.await(() -> Long.valueOf(2).equals(c.kv(2).get(k)), "the primary applied");
      c.crash(2);
      c.awaitEpoch(2);
      assertEverywhere(c, k, 2L, 0, 1);
      c.commit(1, k, 3L);
      assertEverywhere(c, k, 3L, 0, 1);
    }
  }

  @Test
  void aReconfigurationWhoseCoordinatorDiesBeforeInstallingIsFinishedByTheNext() throws Exception {
    try (TxTestCluster c = seeded(5, null)) {
      c.commit(1, "k", 2L);
      int coordinator = c.coordinator();
      FrameFilter f = FrameFilter.install(c.engine(coordinator));
      f.drop((to, frame) -> frame instanceof TxFrame.Install);
      int victim = coordinator == 4 ? 3 : 4;
      c.crash(victim);
      TxTestCluster.await(() -> f.dropped() == 3, "the coordinator's INSTALLs were dropped");
      c.crash(coordinator);
      c.awaitEpoch(3);
      int survivor =
          java.util.stream.IntStream.range(0, 5)
              .filter(i -> i != coordinator && i != victim)
              .findFirst()
              .orElseThrow();
      assertEverywhere(c, "k", 2L, survivor);
      c.commit(survivor, "k", 3L);
      assertEverywhere(c, "k", 3L, survivor);
    }
  }

  @Test
  void aMinoritySideCannotCommitAndAdoptsTheMajoritysStateAtTheMerge() throws Exception {
    try (TxTestCluster c = seeded(3, null)) {
      DISCARD[] discards = new DISCARD[3];
      for (int i = 0; i < 3; i++) {
        discards[i] = new DISCARD();
        c.engine(i)
            .channel()
            .getProtocolStack()
            .insertProtocol(discards[i], ProtocolStack.Position.ABOVE, TP.class);
      }
      for (int i = 1; i < 3; i++) {
        discards[0].addIgnoreMember(c.address(i));
        discards[i].addIgnoreMember(c.address(0));
      }
      TxTestCluster.await(
          () ->
              c.engine(1).isReady()
                  && c.engine(1).members().size() == 2
                  && c.engine(0).members().size() == 1,
          "the majority side reconfigured");
      // refused at once, as a quorum cache's minority refuses a write, not after the timeout
      long start = System.nanoTime();
      ExecutionException refused =
          assertThrows(
              ExecutionException.class, () -> c.commitAsync(0, "k", 9L).get(60, TimeUnit.SECONDS));
      long waited = System.nanoTime() - start;
      assertInstanceOf(ClusterDegradedException.class, refused.getCause());
      assertTrue(
          waited < c.timeout.toNanos() / 2,
          "refused after " + TimeUnit.NANOSECONDS.toMillis(waited) + " ms");
      c.commit(1, "k", 5L);
      for (DISCARD d : discards) {
        d.resetIgnoredMembers();
      }
      c.awaitEpoch(3);
      assertEverywhere(c, "k", 5L, 0, 1, 2);
    }
  }

  /**
   * A transaction open on the minority side reads one account; the majority then moves money
   * between both accounts; at the merge the minority member adopts the majority's state, which
   * holds only each key's newest version. The open transaction's next read has no version at or
   * below its snapshot any more: it must fail, not answer "absent" (an audit of the sum then
   * counted the account as 0).
   */
  @Test
  void aTransactionOpenAcrossItsMembersAdoptionCannotReadPastIt() throws Exception {
    try (TxTestCluster c = seeded(3, null)) {
      c.commit(0, "a", 10L);
      c.commit(0, "b", 10L);
      assertEverywhere(c, "b", 10L, 0, 1, 2);
      DISCARD[] discards = c.cutOff(0);
      TxTestCluster.await(
          () ->
              c.engine(1).isReady()
                  && c.engine(1).members().size() == 2
                  && c.engine(0).members().size() == 1,
          "the majority side reconfigured");
      TxStore minority = c.store(0);
      try (Transaction open = minority.begin()) {
        assertEquals(10L, open.get(c.kv(0), "a"));
        c.store(1)
            .inTransaction(
                tx -> {
                  tx.put(c.kv(1), "a", tx.get(c.kv(1), "a") - 3);
                  tx.put(c.kv(1), "b", tx.get(c.kv(1), "b") + 3);
                  return null;
                });
        for (DISCARD d : discards) {
          d.resetIgnoredMembers();
        }
        c.awaitEpoch(3);
        assertEverywhere(c, "b", 13L, 0);
        Long b;
        try {
          b = open.get(c.kv(0), "b");
        } catch (TransactionConflictException refused) {
          b = 10L; // refused: what a snapshot that can no longer be served must do
        }
        assertEquals(10L, b, "the open transaction's read of b at its snapshot");
      }
    }
  }

  /**
   * The majority commits a new value of a key; then a transaction begun on the minority side reads
   * the key (the older state held there) and writes it; after the merge it commits. Its snapshot,
   * from the minority member's clock, is above the majority's commit, so PREPARE's check ("no
   * committed version above the snapshot") passed and the majority's update was lost (a lost update
   * that ./larder bench cluster-tx found). The commit must be refused.
   */
  @Test
  void aTransactionBegunOnTheMinoritySideCannotCommitAfterTheMerge() throws Exception {
    try (TxTestCluster c = seeded(3, null)) {
      DISCARD[] discards = c.cutOff(0);
      TxTestCluster.await(
          () ->
              c.engine(1).isReady()
                  && c.engine(1).members().size() == 2
                  && c.engine(0).members().size() == 1,
          "the majority side reconfigured");
      c.store(1)
          .inTransaction(
              tx -> {
                tx.put(c.kv(1), "k", tx.get(c.kv(1), "k") + 1);
                return null;
              });
      Thread.sleep(5); // the minority's clock: a later millisecond than the majority's commit
      try (Transaction stale = c.store(0).begin()) {
        assertEquals(1L, stale.get(c.kv(0), "k"), "the minority side's state");
        stale.put(c.kv(0), "k", 100L);
        for (DISCARD d : discards) {
          d.resetIgnoredMembers();
        }
        c.awaitEpoch(3);
        assertThrows(TransactionConflictException.class, stale::commit);
      }
      assertEverywhere(c, "k", 2L, 0, 1, 2);
      c.commit(0, "k", 3L);
      assertEverywhere(c, "k", 3L, 0, 1, 2);
    }
  }

  @Test
  void everyMemberCrashingAtOnceLosesNoAcknowledgedCommit() throws Exception {
    try (TxTestCluster c = seeded(3, dir)) {
      c.commit(1, "before", 7L);
      FrameFilter f = FrameFilter.install(c.engine(0));
      f.drop((to, frame) -> frame instanceof TxFrame.Apply);
      c.commit(0, "k", 2L); // acknowledged, applied on m0 only
      c.crash(0);
      c.crash(1);
      c.crash(2);
      c.startAll(0, 1, 2);
      c.awaitEpoch(3);
      assertEverywhere(c, "k", 2L, 0, 1, 2);
      assertEverywhere(c, "before", 7L, 0, 1, 2);
    }
  }
}
