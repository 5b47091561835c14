package dev.larder.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jgroups.Address;
import org.jgroups.protocols.DISCARD;
import org.jgroups.protocols.TP;
import org.jgroups.stack.ProtocolStack;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Partition handling ALLOW_ALL. A partition of four members into two sides (2+2, or 1+3 with the
 * old coordinator alone), made with JGroups' DISCARD, then healed (MERGE3 merges the views). What
 * docs/design/cluster.md claims, exactly: during the partition each side forms its own view and
 * keeps accepting reads and writes; at the merge, the larger side (on a tie, the side holding the
 * merged view's coordinator) keeps its entries, the other drops its own and receives the winner's,
 * so writes made only on the losing side are gone and a key written on both sides has the winner's
 * value everywhere.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class PartitionTest {

  private static DISCARD discard(ClusteredCache<String, String> c) throws Exception {
    DISCARD d = new DISCARD();
    InProcessCluster.channel(c)
        .getProtocolStack()
        .insertProtocol(d, ProtocolStack.Position.ABOVE, TP.class);
    return d;
  }

  @ParameterizedTest
  @EnumSource(
      value = ClusterMode.class,
      names = {"REPLICATED", "DISTRIBUTED"})
  void bothHalvesServeAndTheCoordinatorsHalfWinsATie(ClusterMode mode) throws Exception {
    partitionAndMerge(mode, 2);
  }

  @ParameterizedTest
  @EnumSource(
      value = ClusterMode.class,
      names = {"REPLICATED", "DISTRIBUTED"})
  void theLargerSideWinsEvenWithoutTheOldCoordinator(ClusterMode mode) throws Exception {
    partitionAndMerge(mode, 1);
  }

  /** Splits members [0, leftSize) from the rest, writes on both sides, heals, checks. */
  private static void partitionAndMerge(ClusterMode mode, int leftSize) throws Exception {
    try (InProcessCluster c =
        new InProcessCluster(
            mode,
            Replication.SYNC,
            4,
            -1,
            2,
            b -> {},
            b -> b.partitionHandling(PartitionHandling.ALLOW_ALL))) {
      c.node(0).put("pre", "0");
      List<ClusteredCache<String, String>> left = c.nodes.subList(0, leftSize);
      List<ClusteredCache<String, String>> right = c.nodes.subList(leftSize, 4);
      DISCARD[] discards = new DISCARD[4];
      for (int i = 0; i < 4; i++) {
        discards[i] = discard(c.node(i));
      }
      for (int i = 0; i < 4; i++) {
        for (ClusteredCache<String, String> other : i < leftSize ? right : left) {
          discards[i].addIgnoreMember(InProcessCluster.channel(other).getAddress());
        }
      }
      InProcessCluster.await(
          () ->
              left.stream().allMatch(n -> n.members().size() == leftSize)
                  && right.stream().allMatch(n -> n.members().size() == 4 - leftSize),
          "the split");
      c.awaitRebalanced();

      c.node(0).put("both", "L");
      c.node(0).put("left-only", "L");
      c.node(3).put("both", "R");
      c.node(3).put("right-only", "R");
      assertEquals("L", left.getLast().getIfPresent("both"), "the left side serves");
      assertEquals("R", c.node(2).getIfPresent("both"), "the right side serves");
      assertNull(left.getLast().getIfPresent("right-only"));

      for (DISCARD d : discards) {
        d.resetIgnoredMembers();
      }
      c.awaitMembers(4);
      boolean tie = leftSize == 2;
      InProcessCluster.await(
          () ->
              c.nodes.stream().mapToLong(ClusteredCache::mergesLost).sum() == (tie ? 2 : leftSize),
          "one side reports it lost the merge");
      c.awaitRebalanced();

      Address coordinator = InProcessCluster.channel(c.node(0)).getView().getCoord();
      boolean leftWon =
          tie
              && left.stream()
                  .anyMatch(n -> InProcessCluster.channel(n).getAddress().equals(coordinator));
      List<ClusteredCache<String, String>> losers = leftWon ? right : left;
      for (ClusteredCache<String, String> n : losers) {
        assertEquals(1, n.mergesLost(), n.nodeName());
      }
      String winner = leftWon ? "L" : "R";
      for (ClusteredCache<String, String> n : c.nodes) {
        assertEquals(winner, n.getIfPresent("both"), n.nodeName());
        assertEquals(leftWon ? "L" : null, n.getIfPresent("left-only"), n.nodeName());
        assertEquals(leftWon ? null : "R", n.getIfPresent("right-only"), n.nodeName());
        if (mode == ClusterMode.REPLICATED) {
          assertEquals("0", n.getIfPresent("pre"), "written before the partition");
        }
      }
    }
  }
}
