package dev.larder.cluster.internal.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.larder.cluster.ClusterDegradedException;
import dev.larder.tx.Isolation;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jgroups.Address;
import org.jgroups.protocols.DISCARD;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A member cut off on a minority side holds a transaction pending (it prepared it, the DECIDE and
 * APPLY to it were lost), which no epoch can decide before the cut heals. A read of that key there
 * must be refused as the minority side's commits are ({@link ClusterDegradedException}, a server's
 * CLUSTERDOWN), not wait out the cluster timeout as a conflict that every attempt of {@code
 * inTransaction} meets again (32 attempts of 5 s here; a server's EXEC through such a member stayed
 * unanswered until its client gave up). A key with nothing pending is still served from the state
 * the member holds.
 *
 * <p>Waits are the harness' 30 s per condition and 60 s for the read; nothing assumes a shorter
 * time.
 */
@Timeout(180)
class MinorityPendingReadTest {

  @Test
  void aReadOfAKeyPendingOnAMinorityMemberIsRefusedNotWaitedFor() throws Exception {
    try (TxTestCluster c = new TxTestCluster(3, Isolation.SERIALIZABLE, null)) {
      c.awaitEpoch(3);
      c.commit(1, "k", 1L);
      c.commit(1, "other", 1L);
      for (int i = 0; i < c.size; i++) {
        int m = i;
        TxTestCluster.await(
            () -> Long.valueOf(1L).equals(c.kv(m).get("k")),
            () -> "m" + m + " reads k = 1" + c.describe());
      }
      Address m0 = c.address(0);
      FrameFilter f1 = FrameFilter.install(c.engine(1));
      f1.drop(
          (to, frame) ->
              m0.equals(to) && (frame instanceof TxFrame.Decide || frame instanceof TxFrame.Apply));
      CompletableFuture<Long> outcome = c.commitAsync(1, "k", 2L);
      TxTestCluster.await(
          () -> c.engine(0).member().pendingCount() == 1 && f1.dropped() >= 1,
          () -> "m0 prepared k = 2 and its DECIDE was dropped" + c.describe());

      DISCARD[] cut = c.cutOff(0);
      TxTestCluster.await(
          () -> !c.engine(0).isReady() && c.engine(0).members().size() == 1,
          () -> "m0 alone in its view, not READY" + c.describe());
      CompletableFuture<Object> read =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return c.kv(0).get("k");
                } catch (RuntimeException e) {
                  return e;
                }
              });
      Object got = read.get(60, TimeUnit.SECONDS);
      assertInstanceOf(
          ClusterDegradedException.class,
          got,
          "a read of a key pending on a minority member: " + got + c.describe());
      assertEquals(Long.valueOf(1L), c.kv(0).get("other"), "the minority side's state");

      f1.drop((to, frame) -> false);
      for (DISCARD d : cut) {
        d.resetIgnoredMembers();
      }
      c.awaitEpoch(3);
      Object result = TxTestCluster.outcomeOf(outcome, Duration.ofSeconds(60));
      long expected = result instanceof Long ? 2L : 1L;
      for (int i = 0; i < c.size; i++) {
        int m = i;
        TxTestCluster.await(
            () -> Long.valueOf(expected).equals(c.kv(m).get("k")),
            () -> "m" + m + " reads k = " + expected + " after the heal" + c.describe());
      }
    }
  }
}
