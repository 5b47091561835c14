package dev.larder.cluster.internal.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.larder.cluster.ClusterTimeoutException;
import dev.larder.tx.Isolation;
import org.jgroups.Address;
import org.jgroups.protocols.DISCARD;
import org.jgroups.protocols.TP;
import org.jgroups.stack.ProtocolStack;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A member cut off from the others while its own view still holds them stays READY in the epoch
 * they left: here m1 and m2 stop hearing m0 (their view drops it) and every TX frame they send it
 * is dropped (so the new epoch's installer's QUERY never arrives, as over a real cut), while m0
 * still hears their JGroups traffic (its view does not change). They install an epoch without it
 * and commit a new value. A read through m0 must then be refused, not answered with the old value:
 * m0 has not heard from a majority of its epoch within its read lease, and the others' epoch was
 * installed only once every lease of the epoch they left had run out
 * (docs/design/cluster-transactions.md, "The read lease").
 *
 * <p>Nothing assumes that anything happens within a short time: the harness waits up to 30 s per
 * condition, and m0's read is refused after the cluster timeout (5 s) of waiting for a renewal.
 */
@Timeout(180)
class CutOffReaderTest {

  @Test
  void aReadyMemberCutOffFromTheOthersServesNoReadOnceTheyCommittedWithoutIt() throws Exception {
    try (TxTestCluster c = new TxTestCluster(3, Isolation.SERIALIZABLE, null)) {
      c.awaitEpoch(3);
      c.commit(0, "k", 1L);
      TxTestCluster.await(
          () -> Long.valueOf(1L).equals(c.kv(0).get("k")), () -> "m0 reads k = 1" + c.describe());
      long before = c.engine(0).epochNumber();

      Address m0 = c.address(0);
      DISCARD[] deaf = new DISCARD[c.size];
      FrameFilter[] mute = new FrameFilter[c.size];
      for (int i = 1; i < c.size; i++) {
        mute[i] = FrameFilter.install(c.engine(i));
        mute[i].drop((to, frame) -> m0.equals(to));
        deaf[i] = new DISCARD();
        c.engine(i)
            .channel()
            .getProtocolStack()
            .insertProtocol(deaf[i], ProtocolStack.Position.ABOVE, TP.class);
        deaf[i].addIgnoreMember(m0);
      }
      TxTestCluster.await(
          () ->
              c.engine(1).isReady()
                  && c.engine(2).isReady()
                  && c.engine(1).epochSize() == 2
                  && c.engine(1).epochNumber() == c.engine(2).epochNumber(),
          () -> "m1 and m2 READY in one epoch without m0" + c.describe());
      c.commit(1, "k", 2L);

      // the case the lease is for: m0 was told nothing and still believes itself READY
      assertTrue(
          c.engine(0).isReady() && c.engine(0).epochNumber() == before,
          "m0 left its epoch: the cut let something through, and the lease is not what is tested"
              + c.describe());
      try {
        Long read = c.kv(0).get("k");
        fail(
            "m0, cut off, served a read of k ("
                + read
                + ") after the others committed k = 2 in an epoch without it"
                + c.describe());
      } catch (ClusterTimeoutException refused) {
        assertTrue(
            refused.getMessage().contains("read lease"),
            "refused for its lease: " + refused.getMessage());
      }

      for (int i = 1; i < c.size; i++) {
        mute[i].drop((to, frame) -> false);
        deaf[i].resetIgnoredMembers();
      }
      c.awaitEpoch(3);
      for (int i = 0; i < c.size; i++) {
        int m = i;
        TxTestCluster.await(
            () -> Long.valueOf(2L).equals(c.kv(m).get("k")),
            () -> "m" + m + " reads k = 2 after the heal" + c.describe());
        assertEquals(Long.valueOf(2L), c.kv(m).get("k"));
      }
    }
  }
}
