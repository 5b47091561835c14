package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.cluster.ClusteredCache;
import dev.larder.server.LarderServer;
import dev.larder.server.internal.cluster.SlotPartitioner;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
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
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Five durable members (each with its own {@code dir}), distributed with two owners. The two
 * members that together own some segments crash at once (cut off for good: the other three, a
 * majority, see them gone without a leave) and never return, as when both their disks are lost. The
 * segments only they held wait on the members that own them now: CLUSTER WAITING counts them on
 * each, a write to one of their keys is answered TRYAGAIN, and every other key is served. CLUSTER
 * ABANDON-WAITING starts them empty on every member (each is counted in {@code segmentsLost} by an
 * owner that started it empty; the other owner may receive that empty copy), their keys are absent
 * (lost with the two disks), writes to them are accepted again, and no other key is lost.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusterWaitingSegmentsServerTest {

  private static final int MEMBERS = 5;
  private static final int SEGMENTS = 32;
  private static final int KEYS = 200;

  @Test
  void segmentsWhoseHoldersNeverReturnWaitUntilTheOperatorStartsThemEmpty(@TempDir Path dir)
      throws Exception {
    try (LoopbackCluster cluster =
        new LoopbackCluster(
            MEMBERS,
            i -> Map.of("dir", dir.resolve("m" + i).toString()),
            "cluster-mode",
            "distributed",
            "cluster-segments",
            Integer.toString(SEGMENTS),
            // how long a refused write takes to be answered TRYAGAIN
            "cluster-timeout",
            "3000",
            "appendfsync",
            "always",
            "maxmemory",
            "16mb")) {
      ClusteredCache<byte[], byte[]> first = LoopbackCluster.store(cluster.member(0));
      Set<Integer> victims = pairOwningMostSegmentsAlone(first);
      Set<Integer> theirs = segmentsOwnedBy(first, victims);
      assertFalse(theirs.isEmpty(), "some segments are owned by " + victims + " alone");
      List<String> lostKeys = new ArrayList<>();
      try (Jedis a = ClusteredServerTest.jedis(cluster.member(0))) {
        for (int i = 0; i < KEYS; i++) {
          assertEquals("OK", a.set("k" + i, "v" + i));
          if (theirs.contains(segmentOf(a, "k" + i))) {
            lostKeys.add("k" + i);
          }
        }
      }
      assertFalse(lostKeys.isEmpty(), "keys of " + theirs);

      cluster.cutOff(victims);
      for (int v : victims) {
        cluster.member(v).close();
      }
      List<LarderServer> survivors = new ArrayList<>();
      for (int i = 0; i < MEMBERS; i++) {
        if (!victims.contains(i)) {
          survivors.add(cluster.member(i));
        }
      }
      // each survivor waits for the segments it owns now of those only the victims held
      Map<LarderServer, Set<Integer>> waiting = new HashMap<>();
      for (LarderServer m : survivors) {
        waiting.put(m, ownedNow(LoopbackCluster.store(m), theirs));
      }
      LoopbackCluster.await(
          () ->
              survivors.stream()
                  .allMatch(
                      m ->
                          new TreeSet<>(LoopbackCluster.store(m).waitingSegments())
                              .equals(waiting.get(m))),
          "each survivor waits for its share of " + theirs);
      for (LarderServer m : survivors) {
        try (Jedis j = ClusteredServerTest.jedis(m)) {
          assertEquals((long) waiting.get(m).size(), clusterWaiting(j), m.clusterNodeName());
        }
      }
      try (Jedis a = ClusteredServerTest.jedis(survivors.getFirst())) {
        JedisDataException refused =
            assertThrows(JedisDataException.class, () -> a.set(lostKeys.getFirst(), "refused"));
        assertTrue(refused.getMessage().startsWith("TRYAGAIN"), refused.getMessage());
        assertEveryOtherKey(survivors, lostKeys);

        Object given = a.sendCommand(Protocol.Command.CLUSTER, "ABANDON-WAITING");
        assertEquals((long) theirs.size(), given, "segments given up");
      }
      LoopbackCluster.await(
          () -> survivors.stream().allMatch(m -> clusterWaiting(m) == 0),
          "every given-up segment started empty");
      // each given-up segment is started empty by one of its owners at least (the other may
      // receive that empty copy from it before it gives the segment up itself)
      long startedEmpty = 0;
      long waited = 0;
      for (LarderServer m : survivors) {
        startedEmpty += LoopbackCluster.store(m).rebalanceStats().segmentsLost();
        waited += waiting.get(m).size();
      }
      assertTrue(
          startedEmpty >= theirs.size() && startedEmpty <= waited,
          startedEmpty + " segments started empty, " + theirs.size() + " given up, " + waited);
      try (Jedis a = ClusteredServerTest.jedis(survivors.getFirst())) {
        assertEquals("OK", a.set(lostKeys.getFirst(), "after"));
      }
      for (LarderServer m : survivors) {
        try (Jedis j = ClusteredServerTest.jedis(m)) {
          assertEquals("after", j.get(lostKeys.getFirst()), m.clusterNodeName());
          for (String k : lostKeys.subList(1, lostKeys.size())) {
            assertNull(j.get(k), k + " through " + m.clusterNodeName());
          }
        }
      }
      assertEveryOtherKey(survivors, lostKeys);
    }
  }

  /** The pair of members other than m0 that owns the most segments alone (both owners). */
  private static Set<Integer> pairOwningMostSegmentsAlone(ClusteredCache<byte[], byte[]> view) {
    Set<Integer> best = null;
    int most = -1;
    for (int i = 1; i < MEMBERS; i++) {
      for (int j = i + 1; j < MEMBERS; j++) {
        Set<Integer> pair = Set.of(i, j);
        int n = segmentsOwnedBy(view, pair).size();
        if (n > most) {
          most = n;
          best = pair;
        }
      }
    }
    return best;
  }

  /** The segments whose owners, in {@code view}'s member's view, are exactly {@code pair}. */
  private static Set<Integer> segmentsOwnedBy(
      ClusteredCache<byte[], byte[]> view, Set<Integer> pair) {
    Set<String> names = new HashSet<>();
    for (int i : pair) {
      names.add("m" + i);
    }
    Set<Integer> out = new TreeSet<>();
    for (int s = 0; s < SEGMENTS; s++) {
      if (new HashSet<>(view.segmentOwners(s)).equals(names)) {
        out.add(s);
      }
    }
    return out;
  }

  /** Those of {@code segments} that {@code member} owns in its view now. */
  private static Set<Integer> ownedNow(
      ClusteredCache<byte[], byte[]> member, Set<Integer> segments) {
    Set<Integer> out = new TreeSet<>();
    for (int s : segments) {
      if (member.segmentOwners(s).contains(member.nodeName())) {
        out.add(s);
      }
    }
    return out;
  }

  private static int segmentOf(Jedis j, String key) {
    return SlotPartitioner.segmentOfSlot((int) j.clusterKeySlot(key), SEGMENTS);
  }

  private static long clusterWaiting(Jedis j) {
    return (Long) j.sendCommand(Protocol.Command.CLUSTER, "WAITING");
  }

  private static long clusterWaiting(LarderServer m) {
    try (Jedis j = ClusteredServerTest.jedis(m)) {
      return clusterWaiting(j);
    }
  }

  /** Every key but {@code lost} reads its first value through every member given. */
  private static void assertEveryOtherKey(List<LarderServer> through, List<String> lost) {
    for (LarderServer m : through) {
      try (Jedis j = ClusteredServerTest.jedis(m)) {
        for (int i = 0; i < KEYS; i++) {
          if (!lost.contains("k" + i)) {
            assertEquals("v" + i, j.get("k" + i), "k" + i + " through " + m.clusterNodeName());
          }
        }
      }
    }
  }
}
