package dev.larder.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jgroups.BytesMessage;
import org.jgroups.Message;
import org.jgroups.View;
import org.jgroups.protocols.DISCARD;
import org.jgroups.protocols.TP;
import org.jgroups.stack.Protocol;
import org.jgroups.stack.ProtocolStack;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A merge whose decision misses one member's report: under quorum every member waits, before it
 * installs a merge view, for each other member's INSTALLED (which carries its last available view),
 * up to the cluster timeout, and decides without the reports that did not come. Here one member's
 * INSTALLED frames are dropped from the heal until the merge view is installed everywhere: the
 * others decide without it. No write acknowledged during the split is lost, every member reads
 * every one after the merge, and the member whose report was lost serves writes again, which every
 * member reads.
 */
@org.junit.jupiter.api.Timeout(value = 120, unit = TimeUnit.SECONDS)
class QuorumMergeReportLostTest {

  /** The frame type of INSTALLED, second byte of every frame (docs/spec/cluster-wire.md). */
  private static final int T_INSTALLED = 17;

  private static final int WRITES = 30;

  /**
   * Drops the INSTALLED frames this member sends while armed, and counts them; passes everything
   * else. Sits above the transport.
   */
  static final class DropInstalled extends Protocol {
    volatile boolean armed;
    final AtomicInteger dropped = new AtomicInteger();

    @Override
    public Object down(Message msg) {
      if (armed
          && msg instanceof BytesMessage b
          && b.getLength() > 1
          && (b.getArray()[b.getOffset() + 1] & 0xFF) == T_INSTALLED) {
        dropped.incrementAndGet();
        return null;
      }
      return down_prot.down(msg);
    }
  }

  /**
   * @param mode the cache mode
   * @param lostReport whose INSTALLED is dropped: 0 the cut-off member (the merge's loser), 1 a
   *     member of the majority (a winner, which the others then do not name among the winners)
   */
  @ParameterizedTest
  @CsvSource({"REPLICATED, 0", "DISTRIBUTED, 1"})
  void aMergeMissingOneMembersReportLosesNoAcknowledgedWrite(ClusterMode mode, int lostReport)
      throws Exception {
    try (InProcessCluster c =
        new InProcessCluster(
            mode, Replication.SYNC, 3, -1, 2, b -> {}, b -> b.timeout(Duration.ofSeconds(3)))) {
      c.node(1).put("before", "v");
      List<DISCARD> discards = new ArrayList<>();
      List<DropInstalled> drops = new ArrayList<>();
      for (ClusteredCache<String, String> n : c.nodes) {
        ProtocolStack stack = InProcessCluster.channel(n).getProtocolStack();
        DISCARD d = new DISCARD();
        stack.insertProtocol(d, ProtocolStack.Position.ABOVE, TP.class);
        discards.add(d);
        DropInstalled di = new DropInstalled();
        stack.insertProtocol(di, ProtocolStack.Position.ABOVE, DISCARD.class);
        drops.add(di);
      }
      for (int j = 1; j < 3; j++) {
        discards.get(0).addIgnoreMember(InProcessCluster.channel(c.node(j)).getAddress());
        discards.get(j).addIgnoreMember(InProcessCluster.channel(c.node(0)).getAddress());
      }
      InProcessCluster.await(
          () ->
              c.node(0).members().size() == 1
                  && c.node(1).members().size() == 2
                  && c.node(2).members().size() == 2
                  && c.node(1).available(),
          "the split, the majority available");
      assertFalse(c.node(0).available());
      assertThrows(ClusterDegradedException.class, () -> c.node(0).put("minority", "x"));
      for (int i = 0; i < WRITES; i++) {
        c.node(1 + i % 2).put("during-" + i, "v" + i); // acknowledged: put returned
      }

      DropInstalled lost = drops.get(lostReport);
      lost.armed = true;
      discards.forEach(DISCARD::resetIgnoredMembers);
      // every member installs the merge view (the others after waiting for the lost report, the
      // cluster timeout): a longer bound than InProcessCluster's for a slow machine
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!c.nodes.stream().allMatch(n -> n.members().size() == 3)) {
        assertTrue(System.nanoTime() < deadline, "timed out waiting for the merge");
        Thread.sleep(20);
      }
      lost.armed = false;
      assertTrue(lost.dropped.get() > 0, "the member's INSTALLED was dropped");
      View merged = InProcessCluster.channel(c.node(0)).getView();
      for (ClusteredCache<String, String> n : c.nodes) {
        assertEquals(merged, InProcessCluster.channel(n).getView(), n.nodeName());
      }
      c.awaitRebalanced();
      InProcessCluster.await(
          () -> c.nodes.stream().allMatch(ClusteredCache::available), "every member available");

      List<String> missed = new ArrayList<>();
      for (ClusteredCache<String, String> n : c.nodes) {
        assertEquals("v", n.getIfPresent("before"), n.nodeName());
        assertEquals(null, n.getIfPresent("minority"), n.nodeName());
        for (int i = 0; i < WRITES; i++) {
          if (!("v" + i).equals(n.getIfPresent("during-" + i))) {
            missed.add(n.nodeName() + ":during-" + i);
          }
        }
      }
      assertEquals(List.of(), missed, "acknowledged writes not read back after the merge");

      // the member whose report was lost serves writes again, and every member reads them
      c.node(lostReport).put("after", "a");
      c.node(0).put("after-0", "b");
      for (ClusteredCache<String, String> n : c.nodes) {
        assertEquals("a", n.getIfPresent("after"), n.nodeName());
        assertEquals("b", n.getIfPresent("after-0"), n.nodeName());
      }
    }
  }
}
