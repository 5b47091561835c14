package dev.larder.cluster.internal.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.cluster.ClusterTimeoutException;
import dev.larder.tx.Isolation;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jgroups.Address;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A reconfiguration installs a new epoch while a commit waits for a participant's vote: the install
 * decides the pending transaction (nobody logged a DECIDE of it, so ABORT), and the originator,
 * whose DECIDE then goes out under the old epoch's ballot and is refused everywhere, must learn
 * that outcome from the install rather than wait out its timeout in doubt
 * (docs/design/cluster-transactions.md, "Commit", step 5).
 *
 * <p>DISTRIBUTED, two owners of three: the written key's owners are m0 (the originator) and m1, so
 * m2 takes no part in the transaction and its crash changes the epoch without making a participant
 * leave. m1's VOTE to m0 is held until the others are READY in the new epoch, so the order does not
 * depend on timing. Waits are bounded by the cluster timeout (60 s, far above what the steps take
 * on a slow machine) and by the harness' 30 s per condition.
 */
@Timeout(300)
class EpochBetweenVotesTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @Test
  void aCommitWhoseVotesOutliveTheirEpochEndsWithTheInstalledOutcome() throws Exception {
    try (TxTestCluster c = new TxTestCluster(3, Isolation.SERIALIZABLE, null, 2, TIMEOUT)) {
      c.awaitEpoch(3);
      String k = keyOwnedBy(c, List.of(0, 1));
      c.commit(0, k, 1L);
      assertReads(c, 0, k, 1L);
      assertReads(c, 1, k, 1L);

      Address m0 = c.address(0);
      FrameFilter f1 = FrameFilter.install(c.engine(1));
      f1.hold((to, frame) -> frame instanceof TxFrame.Vote && to.equals(m0));
      CompletableFuture<Long> outcome = c.commitAsync(0, k, 2L);
      TxTestCluster.await(() -> f1.held() == 1, () -> "m1's VOTE to m0 is held" + c.describe());
      long epochOfVotes = c.engine(0).epochNumber();

      c.crash(2);
      c.awaitEpoch(2);
      assertTrue(
          c.engine(0).epochNumber() > epochOfVotes,
          "m0 installed no epoch after the votes" + c.describe());
      assertFalse(
          outcome.isDone(),
          "m0's commit ended before its vote arrived: the test did not reach DECIDE ("
              + outcome
              + ")");

      long released = System.nanoTime();
      f1.release();
      Object result = TxTestCluster.outcomeOf(outcome, TIMEOUT.plusSeconds(30));
      long waitedSeconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - released);
      assertFalse(
          result instanceof ClusterTimeoutException,
          "the commit waited out its timeout in doubt although the epoch installed after its votes"
              + " had decided it: "
              + result);
      // the outcome was known before the vote was released: nothing is left to wait for but a
      // refused DECIDE; half the timeout is a bound no machine should reach
      assertTrue(
          waitedSeconds < TIMEOUT.toSeconds() / 2,
          "the commit took " + waitedSeconds + " s after its vote arrived");
      long expected = result instanceof Long ? 2L : 1L;
      assertReads(c, 0, k, expected);
      assertReads(c, 1, k, expected);
      c.commit(1, k, 3L); // no lock outlived the epoch
      assertReads(c, 0, k, 3L);
      assertReads(c, 1, k, 3L);
    }
  }

  private static String keyOwnedBy(TxTestCluster c, List<Integer> owners) {
    for (int n = 0; n < 10_000; n++) {
      String key = "key-" + n;
      if (c.ownersOf(key).equals(owners)) {
        return key;
      }
    }
    throw new AssertionError("no key of 10,000 is owned by exactly " + owners + c.describe());
  }

  private static void assertReads(TxTestCluster c, int m, String k, long v) {
    TxTestCluster.await(
        () -> Long.valueOf(v).equals(c.kv(m).get(k)),
        () ->
            "m" + m + " reads " + k + " = " + v + " (reads " + c.kv(m).get(k) + ")" + c.describe());
    assertEquals(Long.valueOf(v), c.kv(m).get(k));
  }
}
