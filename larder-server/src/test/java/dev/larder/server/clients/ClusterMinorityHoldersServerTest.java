package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.LarderServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Five members, distributed with two owners, under quorum, split 3|2 so that some slots have every
 * owner on the minority side. The majority, which holds no copy of those slots, does not serve them
 * empty: their reads and writes answer TRYAGAIN until the merge; at the merge the minority keeps
 * its copies and every member then serves every write acknowledged before the split.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ClusterMinorityHoldersServerTest {

  /** Up to {@code n} keys whose every copy is on the members with these RESP ports. */
  @SuppressWarnings("deprecation") // Jedis 7 deprecates clusterSlots() with CLUSTER SLOTS itself
  private static List<String> keysHeldOnlyBy(Jedis j, Set<Integer> ports, int n) {
    List<Object> slots = j.clusterSlots();
    List<String> out = new ArrayList<>();
    for (int i = 0; out.size() < n && i < 100_000; i++) {
      String key = "k:" + i;
      long slot = j.clusterKeySlot(key);
      for (Object range : slots) {
        List<?> r = (List<?>) range;
        if ((Long) r.get(0) <= slot && slot <= (Long) r.get(1)) {
          Set<Integer> holders = new HashSet<>();
          for (Object node : r.subList(2, r.size())) {
            holders.add(((Long) ((List<?>) node).get(1)).intValue());
          }
          if (ports.containsAll(holders)) {
            out.add(key);
          }
        }
      }
    }
    return out;
  }

  private static void assertTryAgain(JedisDataException e) {
    assertTrue(e.getMessage().startsWith("TRYAGAIN"), e.getMessage());
  }

  @Test
  void theMajorityDoesNotServeEmptyWhatOnlyTheMinorityHoldsAndTheMergeKeepsIt() throws Exception {
    try (LoopbackCluster cluster =
        new LoopbackCluster(
            5, "cluster-mode", "distributed", "cluster-owners", "2", "cluster-timeout", "3000")) {
      check(cluster);
    }
  }

  /**
   * The same with durable members ({@code dir}): the majority refuses those slots during the split
   * (a durable member waits for a holder's record), but the merge ends that wait, the minority
   * drops its copies and the majority starts the segments empty: every one of the keys is lost (20
   * of 20 in the one run made).
   */
  @Test
  void durableMembersKeepWhatOnlyTheMinorityHeld(@TempDir Path dir) throws Exception {
    try (LoopbackCluster cluster =
        new LoopbackCluster(
            5,
            i -> Map.of("dir", dir.resolve("m" + i).toString()),
            "cluster-mode",
            "distributed",
            "cluster-owners",
            "2",
            "cluster-timeout",
            "3000",
            "appendfsync",
            "always")) {
      check(cluster);
    }
  }

  private static void check(LoopbackCluster cluster) throws Exception {
    LarderServer d = cluster.member(3);
    LarderServer e = cluster.member(4);
    try (Jedis a = ClusteredServerTest.jedis(cluster.member(0))) {
      List<String> keys = keysHeldOnlyBy(a, Set.of(d.respPort(), e.respPort()), 20);
      assertTrue(keys.size() >= 5, "keys held on members 3 and 4 alone: " + keys);
      Set<Integer> majority = new HashSet<>();
      for (int i = 0; i < 3; i++) {
        majority.add(cluster.member(i).respPort());
      }
      List<String> majorityKeys = keysHeldOnlyBy(a, majority, 5);
      assertEquals(5, majorityKeys.size(), "keys held on members 0 to 2 alone");
      for (String k : keys) {
        assertEquals("OK", a.set(k, "before"));
      }
      cluster.cutOff(Set.of(3, 4));

      String k = keys.getFirst();
      assertTryAgain(
          assertThrows(JedisDataException.class, () -> a.get(k), "not answered as absent"));
      assertTryAgain(assertThrows(JedisDataException.class, () -> a.set(k, "majority")));
      assertTrue(a.clusterInfo().contains("cluster_state:ok"), "the majority goes on");
      for (String other : majorityKeys) {
        assertEquals("OK", a.set(other, "during"), "a key whose holders it has");
        assertEquals("during", a.get(other));
      }

      cluster.heal();
      Set<String> lost = new TreeSet<>();
      for (LarderServer m : cluster.members) {
        try (Jedis j = ClusteredServerTest.jedis(m)) {
          for (String key : keys) {
            if (!"before".equals(j.get(key))) {
              lost.add(key);
            }
          }
          for (String other : majorityKeys) {
            assertEquals("during", j.get(other), other + " through " + m.clusterNodeName());
          }
        }
      }
      assertEquals(
          Set.of(),
          lost,
          "acknowledged keys held only by the minority, not read back through every member after"
              + " the merge ("
              + lost.size()
              + " of "
              + keys.size()
              + ")");
      assertEquals("OK", a.set(k, "after"));
      try (Jedis j = ClusteredServerTest.jedis(d)) {
        assertEquals("after", j.get(k));
      }
    }
  }
}
