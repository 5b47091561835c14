package dev.larder.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;
import dev.larder.codec.ValueDictionary;
import dev.larder.codec.ValueDictionary.Mode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jgroups.Address;
import org.jgroups.MergeView;
import org.jgroups.View;
import org.jgroups.protocols.DISCARD;
import org.jgroups.protocols.TP;
import org.jgroups.stack.ProtocolStack;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A partition of four members with a replicated dictionary, in distributed mode (owners 2): each
 * side's coordinator gives the next ids to different values. At the merge, the members whose
 * dictionaries conflict with the winning side's refuse every operation, and no member ever returns
 * a value other than the one written.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class DictionaryPartitionTest {

  private static final AtomicInteger CLUSTERS = new AtomicInteger();

  @ParameterizedTest
  @ValueSource(ints = {2, 1})
  void membersWhoseDictionaryConflictsWithTheWinnersRefuseAndNoneDecodesWrongly(int leftSize)
      throws Exception {
    String name = "dictpart-" + ProcessHandle.current().pid() + "-" + CLUSTERS.incrementAndGet();
    List<ClusteredCache<String, String>> nodes = new ArrayList<>();
    List<ValueDictionary> dictionaries = new ArrayList<>();
    try {
      for (int i = 0; i < 4; i++) {
        ValueDictionary d = ValueDictionary.builder().build();
        dictionaries.add(d);
        Codec<String> values = d.substitute("v", Codecs.strings(), Mode.ALWAYS);
        nodes.add(
            ClusteredCache.builder(Codecs.strings(), values)
                .dictionary(d)
                .cluster(
                    ClusterConfig.builder()
                        .stack(Stacks.IN_PROCESS)
                        .clusterName(name)
                        .nodeName("n" + i)
                        .mode(ClusterMode.DISTRIBUTED)
                        .owners(2)
                        .timeout(Duration.ofSeconds(5))
                        .segments(64)
                        // both sides write during the partition: the rule under test is allow-all's
                        .partitionHandling(PartitionHandling.ALLOW_ALL)
                        .build())
                .build());
      }
      InProcessCluster.await(
          () -> nodes.stream().allMatch(n -> n.members().size() == 4), "4 members");
      for (int i = 0; i < 10; i++) {
        nodes.get(i % 4).put("pre" + i, "shared-" + i);
      }
      // Every member hears of the ten values before the split, so that each side starts from
      // the same dictionary and this test checks what it is about: the sides' conflicting
      // additions. (A split while an addition is on its way is the case of cluster.md's "A
      // write's dictionary ids", tested in DictionaryReplicationTest.)
      InProcessCluster.await(
          () -> dictionaries.stream().allMatch(d -> d.size("v") == 10),
          "every dictionary holds the ten values");
      List<ClusteredCache<String, String>> left = nodes.subList(0, leftSize);
      List<ClusteredCache<String, String>> right = nodes.subList(leftSize, 4);
      DISCARD[] discards = new DISCARD[4];
      for (int i = 0; i < 4; i++) {
        discards[i] = new DISCARD();
        InProcessCluster.channel(nodes.get(i))
            .getProtocolStack()
            .insertProtocol(discards[i], ProtocolStack.Position.ABOVE, TP.class);
        for (ClusteredCache<String, String> other : i < leftSize ? right : left) {
          discards[i].addIgnoreMember(InProcessCluster.channel(other).getAddress());
        }
      }
      InProcessCluster.await(
          () ->
              left.stream().allMatch(n -> n.members().size() == leftSize)
                  && right.stream().allMatch(n -> n.members().size() == 4 - leftSize),
          "the split");
      for (ClusteredCache<String, String> n : nodes) {
        assertTrue(n.awaitRebalanced(Duration.ofSeconds(20)));
      }
      // each side interns different values under the same next ids
      for (int i = 0; i < 5; i++) {
        left.getFirst().put("left" + i, "left-value-" + i);
        right.getFirst().put("right" + i, "right-value-" + i);
      }
      for (DISCARD d : discards) {
        d.resetIgnoredMembers();
      }
      InProcessCluster.await(
          () -> nodes.stream().allMatch(n -> n.members().size() == 4), "the merge");
      View merged = InProcessCluster.channel(nodes.get(0)).getView();
      assertTrue(
          merged instanceof MergeView || nodes.stream().anyMatch(n -> n.mergesLost() > 0),
          "a merge happened");
      InProcessCluster.await(
          () -> nodes.stream().mapToLong(ClusteredCache::mergesLost).sum() > 0,
          "one side lost the merge");
      List<ClusteredCache<String, String>> losers =
          nodes.stream().filter(n -> n.mergesLost() > 0).toList();
      List<ClusteredCache<String, String>> winners =
          nodes.stream().filter(n -> n.mergesLost() == 0).toList();
      boolean leftWon = winners.contains(left.getFirst());
      String side = leftWon ? "left" : "right";
      for (ClusteredCache<String, String> w : winners) {
        assertTrue(w.awaitRebalanced(Duration.ofSeconds(20)));
      }
      for (ClusteredCache<String, String> n : losers) {
        ClusterException e =
            assertThrows(
                ClusterException.class,
                () -> n.get("pre0"),
                n.nodeName() + " lost the merge with a conflicting dictionary");
        assertTrue(e.getMessage().contains("dictionary"), e.getMessage());
      }
      // every member either refuses or returns exactly what was written
      for (ClusteredCache<String, String> n : nodes) {
        for (int i = 0; i < 5; i++) {
          String key = side + i;
          String expected = side + "-value-" + i;
          try {
            assertEquals(expected, n.get(key), n.nodeName() + " " + key);
          } catch (ClusterException refused) {
            assertTrue(losers.contains(n), n.nodeName() + " refused: " + refused.getMessage());
          }
        }
      }
      for (ClusteredCache<String, String> w : winners) {
        for (int i = 0; i < 5; i++) {
          assertEquals(side + "-value-" + i, w.get(side + i), w.nodeName());
        }
        for (int i = 0; i < 10; i++) {
          String v = w.get("pre" + i);
          assertTrue(v == null || v.equals("shared-" + i), w.nodeName() + " pre" + i + "=" + v);
        }
      }
      Address coordinator = merged.getCoord();
      assertTrue(coordinator != null);
    } finally {
      nodes.forEach(ClusteredCache::close);
    }
  }
}
