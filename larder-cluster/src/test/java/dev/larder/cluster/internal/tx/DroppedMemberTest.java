package dev.larder.cluster.internal.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.tx.Isolation;
import org.jgroups.protocols.DISCARD;
import org.jgroups.protocols.TP;
import org.jgroups.stack.ProtocolStack;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The others' view drops a member whose own view still holds them (here: they stop hearing it,
 * while it still hears them, as after a false suspicion on a loaded host). They install an epoch
 * without it and commit; it must then stop being READY in the epoch they left (it was told by the
 * new epoch's installer), rather than stay READY and serve reads without their commits until its
 * own view changes (docs/design/cluster-transactions.md, "Reading one's own writes").
 *
 * <p>Waits are the harness' 30 s per condition; nothing assumes that anything happens sooner.
 */
@Timeout(180)
class DroppedMemberTest {

  @Test
  void aMemberTheOthersDroppedStopsBeingReadyInTheEpochTheyLeft() throws Exception {
    try (TxTestCluster c = new TxTestCluster(3, Isolation.SERIALIZABLE, null)) {
      c.awaitEpoch(3);
      put(c, 0, 1L);
      DISCARD[] deaf = new DISCARD[c.size];
      for (int i = 1; i < c.size; i++) {
        deaf[i] = new DISCARD();
        c.engine(i)
            .channel()
            .getProtocolStack()
            .insertProtocol(deaf[i], ProtocolStack.Position.ABOVE, TP.class);
        deaf[i].addIgnoreMember(c.address(0)); // m1 and m2 stop hearing m0; m0 still hears them
      }
      long before = c.engine(0).epochNumber();
      TxTestCluster.await(
          () ->
              c.engine(1).isReady()
                  && c.engine(2).isReady()
                  && c.engine(1).members().size() == 2
                  && c.engine(1).epochNumber() == c.engine(2).epochNumber(),
          () -> "m1 and m2 READY in one epoch without m0" + c.describe());
      put(c, 1, 2L);
      TxTestCluster.await(
          () -> !c.engine(0).isReady() || c.engine(0).epochNumber() != before,
          () ->
              "m0 is no longer READY in the epoch m1 and m2 left (its view: "
                  + c.engine(0).channel().getView()
                  + ")"
                  + c.describe());
      for (int i = 1; i < c.size; i++) {
        deaf[i].resetIgnoredMembers();
      }
      c.awaitEpoch(3);
      for (int i = 0; i < c.size; i++) {
        int m = i;
        TxTestCluster.await(
            () -> Long.valueOf(2L).equals(c.kv(m).get("k")),
            () -> "m" + m + " reads k = 2 (reads " + c.kv(m).get("k") + ")" + c.describe());
        assertEquals(Long.valueOf(2L), c.kv(m).get("k"));
      }
    }
  }

  private static void put(TxTestCluster c, int m, long v) {
    c.store(m)
        .inTransaction(
            tx -> {
              tx.put(c.kv(m), "k", v);
              return null;
            });
  }
}
