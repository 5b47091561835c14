package dev.larder.cluster.internal.tx;

import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.larder.cluster.ClusterTimeoutException;
import dev.larder.tx.Isolation;
import dev.larder.tx.TransactionConflictException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.jgroups.Address;
import org.jgroups.protocols.DISCARD;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An originator that logged its own DECIDE is cut off before the decision reaches a majority; the
 * others install an epoch without it, then the cut heals and a second reconfiguration takes it back
 * in. Whatever the first reconfiguration chose for the transaction must hold in the second: the
 * client is acknowledged only a commit that every member then reads, and is never told "aborted" of
 * a commit that the members apply (docs/design/cluster-transactions.md, "Failures").
 *
 * <p>Waits are bounded by the cluster timeout of these members (60 s, so that the originator's
 * commit is still waiting for its outcome when the cut heals, however slow the machine) and by the
 * harness' 30 s per condition; nothing assumes that anything happens within a shorter time.
 */
@Timeout(300)
class CutOffOriginatorTest {

  /** Long enough for a cut, an epoch without the originator, a heal and a merge's epoch. */
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  /**
   * The originator's DECIDEs to both others are dropped: only it logged the decision, so the
   * majority's epoch aborts the transaction. At the merge the originator still reports its DECIDE
   * (under the old epoch's ballot), the others nothing: the commit must not be acknowledged (it was
   * acknowledged, and no member held its write).
   */
  @Test
  void aCommitTheMajorityAbortedWithoutTheOriginatorIsNotAcknowledgedAfterTheMerge()
      throws Exception {
    try (TxTestCluster c = seeded(3)) {
      FrameFilter f = FrameFilter.install(c.engine(0));
      f.drop((to, frame) -> frame instanceof TxFrame.Decide);
      CompletableFuture<Long> outcome = c.commitAsync(0, "k", 2L);
      MemberState m0 = c.engine(0).member();
      TxTestCluster.await(
          () -> f.dropped() == 2 && m0.decidedCount() == 1,
          () -> "m0 logged its DECIDE and both others were dropped" + c.describe());
      Object result = cutOffHealAndAwaitOutcome(c, f, outcome);
      // the majority aborted it: acknowledged, every member would have to read it (none can)
      assertEverywhere(c, "k", result instanceof Long ? 2L : 1L);
      c.commit(1, "k", 3L);
      assertEverywhere(c, "k", 3L);
    }
  }

  /**
   * The DECIDE reaches m1, which logs it, but its answer is dropped, and the DECIDE to m2 too: the
   * decision is chosen (m0 and m1 logged it), yet m0 does not know. The majority's epoch commits it
   * (m1 reports it). At the merge m0 must not be told that its transaction aborted: an error then
   * makes a client (inTransaction, an EXEC's retry) run it a second time.
   */
  @Test
  void aCommitTheMajorityCommittedWithoutTheOriginatorIsNotReportedAbortedAfterTheMerge()
      throws Exception {
    try (TxTestCluster c = seeded(3)) {
      Address m0 = c.address(0);
      Address m2 = c.address(2);
      FrameFilter f0 = FrameFilter.install(c.engine(0));
      f0.drop((to, frame) -> frame instanceof TxFrame.Decide && to.equals(m2));
      FrameFilter f1 = FrameFilter.install(c.engine(1));
      f1.drop((to, frame) -> frame instanceof TxFrame.Ack && to.equals(m0));
      CompletableFuture<Long> outcome = c.commitAsync(0, "k", 2L);
      MemberState m1 = c.engine(1).member();
      TxTestCluster.await(
          () -> f0.dropped() == 1 && f1.dropped() == 1 && m1.decidedCount() == 1,
          () -> "m1 logged the DECIDE and its answer was dropped" + c.describe());
      f1.drop((to, frame) -> false);
      Object result = cutOffHealAndAwaitOutcome(c, f0, outcome);
      assertFalse(
          result instanceof TransactionConflictException,
          "the client was told that a transaction every member applies aborted: " + result);
      assertEverywhere(c, "k", 2L);
    }
  }

  /**
   * As the first case, but the others install a second epoch without m0 before the cut heals (m4
   * crashes): the first epoch's proposal, which aborted the transaction, is no longer remembered by
   * anyone. The commit must still not be acknowledged (it now ends in doubt).
   */
  @Test
  void aCommitCutOffAcrossTwoEpochsOfTheOthersIsNotAcknowledgedAfterTheMerge() throws Exception {
    try (TxTestCluster c = seeded(5)) {
      FrameFilter f = FrameFilter.install(c.engine(0));
      f.drop((to, frame) -> frame instanceof TxFrame.Decide);
      CompletableFuture<Long> outcome = c.commitAsync(0, "k", 2L);
      MemberState m0 = c.engine(0).member();
      TxTestCluster.await(
          () -> f.dropped() == 4 && m0.decidedCount() == 1,
          () -> "m0 logged its DECIDE and every other was dropped" + c.describe());
      Object result =
          cutOffHealAndAwaitOutcome(
              c,
              f,
              outcome,
              () -> {
                c.crash(4);
                awaitOthersWithout0(c, 3);
              });
      assertEverywhere(c, "k", result instanceof Long ? 2L : 1L);
      c.commit(1, "k", 3L);
      assertEverywhere(c, "k", 3L);
    }
  }

  /**
   * Cuts m0 off, waits until the others are READY in an epoch without it (m0's commit still waiting
   * for its outcome), stops dropping frames, heals, waits for an epoch of every running member and
   * returns the commit's outcome: its timestamp, or the {@link TransactionConflictException} (it
   * aborted) or {@link ClusterTimeoutException} (in doubt) it failed with.
   */
  private static Object cutOffHealAndAwaitOutcome(
      TxTestCluster c, FrameFilter f, CompletableFuture<Long> outcome) throws Exception {
    return cutOffHealAndAwaitOutcome(c, f, outcome, () -> {});
  }

  /** As above, running {@code meanwhile} once the others are READY without m0. */
  private static Object cutOffHealAndAwaitOutcome(
      TxTestCluster c, FrameFilter f, CompletableFuture<Long> outcome, Step meanwhile)
      throws Exception {
    DISCARD[] discards = c.cutOff(0);
    awaitOthersWithout0(c, c.size - 1);
    meanwhile.run();
    assertFalse(
        outcome.isDone(),
        "m0's commit ended before the heal: the test did not reach the merge (" + outcome + ")");
    f.drop((to, frame) -> false);
    for (DISCARD d : discards) {
      d.resetIgnoredMembers();
    }
    c.awaitEpoch(running(c));
    return TxTestCluster.outcomeOf(outcome, TIMEOUT.plusSeconds(30));
  }

  /** A step of a scenario that may throw. */
  private interface Step {
    void run() throws Exception;
  }

  private static int running(TxTestCluster c) {
    int n = 0;
    for (int i = 0; i < c.size; i++) {
      n += c.store(i) == null ? 0 : 1;
    }
    return n;
  }

  /** Waits until the running members but m0 are READY in one epoch of {@code members}. */
  private static void awaitOthersWithout0(TxTestCluster c, int members) {
    TxTestCluster.await(
        () -> {
          long epoch = -1;
          for (int i = 1; i < c.size; i++) {
            ClusterTxEngine e = c.engine(i);
            if (e == null) {
              continue;
            }
            if (!e.isReady()
                || e.members().size() != members
                || (epoch >= 0 && e.epochNumber() != epoch)) {
              return false;
            }
            epoch = e.epochNumber();
          }
          return true;
        },
        () -> "the others READY in one epoch of " + members + " without m0" + c.describe());
  }

  private static TxTestCluster seeded(int size) throws Exception {
    TxTestCluster c = new TxTestCluster(size, Isolation.SERIALIZABLE, null, Epoch.ALL, TIMEOUT);
    try {
      c.awaitEpoch(size);
      c.commit(0, "k", 1L);
      assertEverywhere(c, "k", 1L);
      return c;
    } catch (Throwable t) {
      c.close();
      throw t;
    }
  }

  /** Every running member reads {@code k = v} and holds no pending transaction. */
  private static void assertEverywhere(TxTestCluster c, String k, long v) {
    for (int i = 0; i < c.size; i++) {
      int m = i;
      if (c.store(m) == null) {
        continue;
      }
      TxTestCluster.await(
          () -> Long.valueOf(v).equals(c.kv(m).get(k)),
          () ->
              "m"
                  + m
                  + " reads "
                  + k
                  + " = "
                  + v
                  + " (reads "
                  + c.kv(m).get(k)
                  + ")"
                  + c.describe());
      TxTestCluster.await(
          () -> c.store(m).stats().historyCommits() == 0,
          () -> "m" + m + " holds no pending transaction" + c.describe());
    }
  }
}
