package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.LarderServer;
import dev.larder.testing.Await;
import dev.larder.testing.Workers;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A member cut off from the other two (JGroups' DISCARD). Under quorum partition handling its Redis
 * clients get CLUSTERDOWN and its memcached clients SERVER_ERROR for writes, reads are served or
 * refused as {@code cluster-minority-reads} says, CLUSTER INFO says fail; the majority goes on;
 * after the merge the cut-off member serves the majority's writes and takes writes again. Writers
 * through every member across a cut and its merge: under quorum every acknowledged write survives;
 * under {@code allow-all} the cut-off member's acknowledged writes are lost at the merge (what that
 * setting costs, and the check that the count can fail).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ClusterQuorumServerTest {

  @ParameterizedTest(name = "{0}, minority reads {1}")
  @CsvSource({"replicated, on", "distributed, off"})
  void aCutOffMemberRefusesWritesWithClearErrors(String mode, String minorityReads)
      throws Exception {
    try (LoopbackCluster cluster =
        new LoopbackCluster(3, "cluster-mode", mode, "cluster-minority-reads", minorityReads)) {
      try (Jedis a = ClusteredServerTest.jedis(cluster.member(0));
          Jedis b = ClusteredServerTest.jedis(cluster.member(1));
          ClusteredServerTest.Memcached ma = new ClusteredServerTest.Memcached(cluster.member(0))) {
        String k = keyWithCopyOn(a, cluster.member(0));
        b.set(k, "before");
        cluster.cutOff(0);
        JedisDataException refused =
            assertThrows(JedisDataException.class, () -> a.set(k, "minority"));
        assertTrue(refused.getMessage().startsWith("CLUSTERDOWN "), refused.getMessage());
        assertTrue(refused.getMessage().contains("not a majority"), refused.getMessage());
        assertClusterDown(assertThrows(JedisDataException.class, () -> a.del(k)));
        String memcached = ma.command("set " + k + " 0 0 1\r\nx");
        assertTrue(
            memcached.startsWith("SERVER_ERROR ") && memcached.contains("majority"), memcached);
        if (minorityReads.equals("on")) {
          assertEquals("before", a.get(k), "minority reads from the member's own copy");
        } else {
          assertClusterDown(assertThrows(JedisDataException.class, () -> a.get(k)));
          String get = ma.command("get " + k);
          assertTrue(get.startsWith("SERVER_ERROR ") && get.contains("majority"), get);
        }
        assertTrue(a.clusterInfo().contains("cluster_state:fail"));
        assertTrue(b.clusterInfo().contains("cluster_state:ok"));
        assertEquals("OK", b.set(k, "majority"));
        assertEquals("OK", b.set(k + ":new", "majority"));

        cluster.heal();
        assertEquals("majority", a.get(k));
        assertEquals("majority", a.get(k + ":new"));
        assertEquals("OK", a.set(k, "after"));
        assertEquals("after", b.get(k));
        assertTrue(a.clusterInfo().contains("cluster_state:ok"));
        assertEquals("STORED", ma.command("set " + k + " 0 0 1\r\ny"));
      }
    }
  }

  private static void assertClusterDown(JedisDataException e) {
    assertTrue(e.getMessage().startsWith("CLUSTERDOWN "), e.getMessage());
  }

  /** Returns a key of which {@code m} holds a copy (any key in replicated mode). */
  @SuppressWarnings("deprecation") // Jedis 7 deprecates clusterSlots() with CLUSTER SLOTS itself
  private static String keyWithCopyOn(Jedis j, LarderServer m) {
    List<Object> slots = j.clusterSlots();
    for (int i = 0; ; i++) {
      String key = "quorum:" + i;
      long slot = j.clusterKeySlot(key);
      for (Object range : slots) {
        List<?> r = (List<?>) range;
        if ((Long) r.get(0) <= slot && slot <= (Long) r.get(1)) {
          for (Object node : r.subList(2, r.size())) {
            if (((Long) ((List<?>) node).get(1)).intValue() == m.respPort()) {
              return key;
            }
          }
        }
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"quorum", "allow-all"})
  void acknowledgedWritesThroughACutAndItsMerge(String handling) throws Exception {
    try (LoopbackCluster cluster =
            new LoopbackCluster(
                3, "cluster-partition-handling", handling, "cluster-timeout", "5000");
        Workers writers = Workers.named("writer")) {
      Writes writes = new Writes(3);
      writers.start(3, i -> writes.run(i, cluster.member(i)));
      try {
        writes.awaitAcknowledged("before the cut", 0, 1, 2);
        cluster.cutOff(0);
        writes.mark();
        writes.awaitOutcomes("on the cut-off member", 0);
        writes.awaitAcknowledged("on the majority", 1, 2);
        cluster.heal();
        writes.awaitAcknowledged("after the merge", 0, 1, 2);
      } finally {
        writes.stop.set(true);
      }
      writers.join(Duration.ofSeconds(60));

      long lost = writes.lost(cluster);
      if (handling.equals("quorum")) {
        assertEquals(0, lost, "acknowledged writes lost");
        assertTrue(writes.refused.get(0) > 0, "the cut-off member refused writes");
        assertEquals(0, writes.refused.get(1) + writes.refused.get(2), "the majority refused");
      } else {
        assertTrue(lost > 0, "allow-all loses the cut-off member's writes at the merge");
        assertEquals(0, writes.refused.get(0) + writes.refused.get(1) + writes.refused.get(2));
      }
    }
  }

  /**
   * A partition made one link at a time, as real networks often fail: m0-m1 first, then m0-m2 while
   * the writers go on, so the cluster passes through views that a cut of every link at once never
   * shows (a majority side that later splits again, sides merging without the member cut off last).
   * Every acknowledged write must still be read back through every member after the heal.
   */
  @ParameterizedTest(name = "{0}, both ends suspect at once {1}")
  @CsvSource({"replicated, true", "distributed, true", "replicated, false", "distributed, false"})
  void acknowledgedWritesThroughACutMadeOneLinkAtATime(String mode, boolean bothSuspect)
      throws Exception {
    try (LoopbackCluster cluster =
            new LoopbackCluster(3, "cluster-mode", mode, "cluster-timeout", "5000");
        Workers writers = Workers.named("writer")) {
      Writes writes = new Writes(3);
      writers.start(3, i -> writes.run(i, cluster.member(i)));
      try {
        writes.awaitAcknowledged("before the cut", 0, 1, 2);
        cluster.cutLink(0, 1, bothSuspect);
        if (!bothSuspect) {
          // the case that lost most: m2 went with m0, and m1 made a view of its own holding m2
          assertTrue(
              LoopbackCluster.channel(cluster.member(2))
                  .getView()
                  .containsMember(LoopbackCluster.channel(cluster.member(0)).getAddress()),
              "m2 kept m0's view");
        }
        // m2 still hears both, so it is on the side with a majority whichever of m0, m1 it keeps
        writes.awaitAcknowledged("with the m0-m1 link cut", 2);
        cluster.cutLink(0, 2);
        cluster.awaitTogether(1, 2);
        writes.awaitAcknowledged("with m0 cut off", 1, 2);
        cluster.heal();
        writes.awaitAcknowledged("after the merge", 0, 1, 2);
      } finally {
        writes.stop.set(true);
      }
      writers.join(Duration.ofSeconds(60));
      long lost = writes.lost(cluster);
      System.out.println(
          mode
              + ", both ends suspect at once "
              + bothSuspect
              + ": acknowledged "
              + writes.total(writes.acknowledged)
              + ", lost "
              + lost
              + ", refused "
              + writes.total(writes.refused)
              + ", unknown "
              + writes.total(writes.unknown));
      assertEquals(
          0,
          lost,
          "acknowledged writes lost, of "
              + (writes.acknowledged.get(0)
                  + writes.acknowledged.get(1)
                  + writes.acknowledged.get(2)));
    }
  }

  /**
   * Writers, one per member, each writing new keys of its own and recording those acknowledged.
   * Replies that neither acknowledge nor refuse (TRYAGAIN, a lost connection) leave the write's
   * outcome unknown: the key may be there or not. A refused writer backs off a millisecond, as a
   * client would, rather than spin on the cores the members need.
   */
  private static final class Writes {
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLongArray acknowledged;
    final AtomicLongArray refused;
    final AtomicLongArray unknown;
    private final long[] marks;
    private final Set<String> acknowledgedKeys = ConcurrentHashMap.newKeySet();

    Writes(int writers) {
      acknowledged = new AtomicLongArray(writers);
      refused = new AtomicLongArray(writers);
      unknown = new AtomicLongArray(writers);
      marks = new long[writers];
    }

    void run(int writer, LarderServer member) throws InterruptedException {
      Jedis jedis = ClusteredServerTest.jedis(member);
      try {
        for (long n = 0; !stop.get(); n++) {
          String key = "w" + writer + ":" + n;
          try {
            assertEquals("OK", jedis.set(key, key));
            acknowledgedKeys.add(key);
            acknowledged.incrementAndGet(writer);
          } catch (JedisDataException e) {
            if (e.getMessage().startsWith("CLUSTERDOWN ")) {
              refused.incrementAndGet(writer);
              Thread.sleep(1);
            } else if (e.getMessage().startsWith("TRYAGAIN ")) {
              unknown.incrementAndGet(writer);
            } else {
              throw e;
            }
          } catch (JedisConnectionException e) {
            unknown.incrementAndGet(writer);
            jedis.close();
            jedis = ClusteredServerTest.jedis(member);
          }
        }
      } finally {
        jedis.close();
      }
    }

    long total(AtomicLongArray counts) {
      long sum = 0;
      for (int i = 0; i < counts.length(); i++) {
        sum += counts.get(i);
      }
      return sum;
    }

    /** Starts counting outcomes again from here. */
    void mark() {
      for (int i = 0; i < marks.length; i++) {
        marks[i] = outcomes(i);
      }
    }

    private long outcomes(int i) {
      return acknowledged.get(i) + refused.get(i) + unknown.get(i);
    }

    void awaitAcknowledged(String when, int... writers) throws InterruptedException {
      long[] from = new long[writers.length];
      for (int w = 0; w < writers.length; w++) {
        from[w] = acknowledged.get(writers[w]);
      }
      Await.until(
          "50 writes acknowledged " + when,
          Duration.ofSeconds(90),
          () -> {
            for (int w = 0; w < writers.length; w++) {
              if (acknowledged.get(writers[w]) < from[w] + 50) {
                return false;
              }
            }
            return true;
          });
    }

    void awaitOutcomes(String where, int writer) throws InterruptedException {
      Await.until(
          "50 writes answered " + where,
          Duration.ofSeconds(90),
          () -> outcomes(writer) >= marks[writer] + 50);
    }

    /** Returns acknowledged keys that some member does not serve. */
    long lost(LoopbackCluster cluster) {
      Set<String> lost = new HashSet<>();
      for (LarderServer m : cluster.members) {
        try (Jedis j = ClusteredServerTest.jedis(m)) {
          for (String key : acknowledgedKeys) {
            if (!key.equals(j.get(key))) {
              lost.add(key);
            }
          }
        }
      }
      return lost.size();
    }
  }
}
