package dev.larder.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.CacheLoadingException;
import dev.larder.RemovalCause;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Loaders, expire-after-write and removal listeners on clustered caches, 3 members in one JVM. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LoaderExpiryListenerTest {

  private static final Duration TTL = Duration.ofSeconds(60);

  /** A key that the given member does not own (distributed mode). */
  private static String keyNotOwnedBy(ClusteredCache<String, String> node, String prefix) {
    for (int i = 0; ; i++) {
      String k = prefix + i;
      if (!node.isLocalOwner(k)) {
        return k;
      }
    }
  }

  @Test
  void loaderRunsOnTheCallingMemberAndTheValueIsOwnedLikeAPut() {
    Map<String, AtomicInteger> loadsByNode = new ConcurrentHashMap<>();
    AtomicInteger index = new AtomicInteger();
    AtomicReference<InProcessCluster> ref = new AtomicReference<>();
    try (InProcessCluster c =
        new InProcessCluster(
            ClusterMode.DISTRIBUTED,
            Replication.SYNC,
            3,
            -1,
            2,
            b -> {
              String name = "n" + index.getAndIncrement();
              b.loader(
                  key -> {
                    loadsByNode.computeIfAbsent(name, n -> new AtomicInteger()).incrementAndGet();
                    if (key.startsWith("null")) {
                      return null;
                    }
                    if (key.startsWith("fail")) {
                      throw new IOException("no such row");
                    }
                    if (key.startsWith("race")) {
                      // another member writes the key while this load runs: the write wins
                      ref.get().node(2).put(key, "written");
                    }
                    return "loaded-" + key + "-" + name;
                  });
            })) {
      ref.set(c);
      ClusteredCache<String, String> n0 = c.node(0);
      List<String> keys = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        keys.add("k" + i);
      }
      for (String k : keys) {
        assertEquals("loaded-" + k + "-n0", n0.get(k));
      }
      assertEquals(20, loadsByNode.get("n0").get());
      assertNull(loadsByNode.get("n1"));
      assertNull(loadsByNode.get("n2"));
      for (ClusteredCache<String, String> node : c.nodes) {
        for (String k : keys) {
          assertEquals("loaded-" + k + "-n0", node.getIfPresent(k), node.nodeName());
          assertEquals("loaded-" + k + "-n0", node.get(k));
        }
      }
      assertEquals(20, loadsByNode.get("n0").get(), "hits do not load");
      assertNull(loadsByNode.get("n1"), "hits on other members do not load");
      long copies = c.nodes.stream().mapToLong(ClusteredCache::localEntryCount).sum();
      assertEquals(40, copies, "each loaded value is held by its 2 owners, like a put");

      Map<String, String> all = c.node(1).getAll(List.of("k0", "m0", "null0"));
      assertEquals(Map.of("k0", "loaded-k0-n0", "m0", "loaded-m0-n1"), all);
      assertEquals(2, loadsByNode.get("n1").get(), "getAll loaded m0 and null0 on n1");

      assertNull(n0.get("null1"));
      assertNull(c.node(1).getIfPresent("null1"), "a null load stores nothing");
      CacheLoadingException e =
          assertThrows(CacheLoadingException.class, () -> c.node(1).get("fail1"));
      assertTrue(e.getCause() instanceof IOException);
      assertEquals(1, c.node(1).stats().loadFailureCount());

      String race = keyNotOwnedBy(n0, "race");
      assertEquals("written", n0.get(race), "a value written during the load wins");
      for (ClusteredCache<String, String> node : c.nodes) {
        assertEquals("written", node.getIfPresent(race));
      }
    }
  }

  @Test
  void expiryDeadlineIsStampedOnceAndKeptByEveryOwnerAndByStateTransfer() {
    for (ClusterMode mode : List.of(ClusterMode.DISTRIBUTED, ClusterMode.REPLICATED)) {
      TestClock clock = new TestClock();
      try (InProcessCluster c =
          new InProcessCluster(
              mode, Replication.SYNC, 3, -1, 2, b -> b.expireAfterWrite(TTL).clock(clock))) {
        for (int i = 0; i < 30; i++) {
          c.node(i % 3).put("k" + i, "v" + i);
        }
        clock.advance(TTL.toMillis() / 2);
        c.node(0).put("late", "v");
        // a member that joins now receives the entries by state transfer, with their stamps
        ClusteredCache<String, String> joiner = c.add();
        c.awaitMembers(4);
        c.awaitRebalanced();
        clock.advance(TTL.toMillis() / 2 - 1);
        for (ClusteredCache<String, String> node : c.nodes) {
          for (int i = 0; i < 30; i++) {
            assertEquals("v" + i, node.getIfPresent("k" + i), mode + " " + node.nodeName());
          }
        }
        assertTrue(joiner.localEntryCount() > 0, mode + ": the joiner received entries");
        assertEquals(
            0, joiner.rebalanceStats().segmentsLost(), mode + " " + joiner.rebalanceStats());
        clock.advance(1);
        for (ClusteredCache<String, String> node : c.nodes) {
          for (int i = 0; i < 30; i++) {
            assertNull(node.getIfPresent("k" + i), mode + " " + node.nodeName() + " k" + i);
          }
          assertEquals("v", node.getIfPresent("late"), mode + " " + node.nodeName());
          List<String> listed = new ArrayList<>();
          node.asMap().forEach((k, v) -> listed.add(k + "=" + v));
          assertEquals(List.of("late=v"), listed, "iteration skips expired entries");
        }
        // expired values are absent to conditional writes too
        assertNull(c.node(1).putIfAbsent("k0", "again"));
        assertNull(c.node(2).replace("k1", "x"));
        assertEquals("again", joiner.getIfPresent("k0"));
        assertNull(joiner.getIfPresent("k1"));
        clock.advance(TTL.toMillis());
        for (ClusteredCache<String, String> node : c.nodes) {
          node.cleanUp();
        }
        InProcessCluster.await(
            () -> c.nodes.stream().mapToLong(ClusteredCache::localEntryCount).sum() == 0,
            mode + ": every store reclaimed its expired entries");
      }
    }
  }

  record Event(String node, String key, String value, RemovalCause cause) {}

  @Test
  void eachRemovalIsReportedOnceByTheKeysPrimary() {
    TestClock clock = new TestClock();
    List<Event> events = new CopyOnWriteArrayList<>();
    AtomicInteger index = new AtomicInteger();
    try (InProcessCluster c =
        new InProcessCluster(
            ClusterMode.DISTRIBUTED,
            Replication.SYNC,
            3,
            -1,
            2,
            b -> {
              String name = "n" + index.getAndIncrement();
              b.expireAfterWrite(TTL)
                  .clock(clock)
                  .executor(Runnable::run)
                  .removalListener((k, v, cause) -> events.add(new Event(name, k, v, cause)));
            })) {
      List<String> keys = List.of("a", "b", "c", "d", "e", "f");
      for (String k : keys) {
        c.node(0).put(k, k + "1");
        c.node(1).put(k, k + "2");
        c.node(2).remove(k);
        c.node(2).remove(k);
      }
      c.node(0).put("x", "x1");
      c.node(1).replace("x", "x1", "x2");
      c.node(2).remove("x", "x2");
      List<Event> expected = new ArrayList<>();
      for (String k : keys) {
        String primary = primaryName(c, k);
        expected.add(new Event(primary, k, k + "1", RemovalCause.REPLACED));
        expected.add(new Event(primary, k, k + "2", RemovalCause.EXPLICIT));
      }
      expected.add(new Event(primaryName(c, "x"), "x", "x1", RemovalCause.REPLACED));
      expected.add(new Event(primaryName(c, "x"), "x", "x2", RemovalCause.EXPLICIT));
      assertEquals(expected, List.copyOf(events), "writes report once, on the primary, in order");

      events.clear();
      for (String k : keys) {
        c.node(1).put(k, k + "3");
      }
      clock.advance(TTL.toMillis() + 1);
      c.node(0).put("a", "a4");
      for (ClusteredCache<String, String> node : c.nodes) {
        node.cleanUp();
      }
      InProcessCluster.await(() -> events.size() >= keys.size(), "an expiry per key");
      c.nodes.forEach(ClusteredCache::cleanUp);
      java.util.concurrent.ForkJoinPool.commonPool().awaitQuiescence(5, TimeUnit.SECONDS);
      List<Event> expired = new ArrayList<>();
      for (String k : keys) {
        expired.add(new Event(primaryName(c, k), k, k + "3", RemovalCause.EXPIRED));
      }
      assertEquals(new java.util.HashSet<>(expired), new java.util.HashSet<>(events));
      assertEquals(expired.size(), events.size(), "no expiry reported twice: " + events);
    }
  }

  @Test
  void evictionsAreReportedOnlyByThePrimaryOfTheEvictedKey() {
    List<Event> events = new CopyOnWriteArrayList<>();
    AtomicInteger index = new AtomicInteger();
    try (InProcessCluster c =
        new InProcessCluster(
            ClusterMode.DISTRIBUTED,
            Replication.SYNC,
            3,
            4L << 20,
            2,
            b -> {
              String name = "n" + index.getAndIncrement();
              b.removalListener((k, v, cause) -> events.add(new Event(name, k, v, cause)));
            })) {
      String big = "x".repeat(2000);
      for (int i = 0; i < 6000; i++) {
        c.node(i % 3).put("k" + i, big);
      }
      c.nodes.forEach(ClusteredCache::cleanUp);
      InProcessCluster.await(
          () -> events.stream().anyMatch(e -> e.cause() == RemovalCause.SIZE),
          "an eviction is reported");
      java.util.concurrent.ForkJoinPool.commonPool().awaitQuiescence(5, TimeUnit.SECONDS);
      long evictions = c.nodes.stream().mapToLong(n -> n.stats().evictionCount()).sum();
      long reported = 0;
      for (Event e : events) {
        assertEquals(RemovalCause.SIZE, e.cause(), e.toString());
        assertEquals(primaryName(c, e.key()), e.node(), "reported by the primary: " + e.key());
        reported++;
      }
      assertTrue(
          reported < evictions,
          "backup copies' evictions ("
              + evictions
              + " in all) are not reported ("
              + reported
              + ")");
    }
  }

  @Test
  void invalidationModeReportsEachMembersOwnRemovals() {
    List<Event> events = new CopyOnWriteArrayList<>();
    AtomicInteger index = new AtomicInteger();
    try (InProcessCluster c =
        new InProcessCluster(
            ClusterMode.INVALIDATION,
            Replication.SYNC,
            3,
            -1,
            2,
            b -> {
              String name = "n" + index.getAndIncrement();
              b.removalListener((k, v, cause) -> events.add(new Event(name, k, v, cause)));
            })) {
      c.node(0).put("k", "v0");
      c.node(1).put("k", "v1");
      c.node(1).put("k", "v2");
      InProcessCluster.await(() -> events.size() >= 2, "two removals");
      java.util.concurrent.ForkJoinPool.commonPool().awaitQuiescence(5, TimeUnit.SECONDS);
      assertEquals(
          java.util.Set.of(
              new Event("n0", "k", "v0", RemovalCause.EXPLICIT),
              new Event("n1", "k", "v1", RemovalCause.REPLACED)),
          new java.util.HashSet<>(events));
      assertEquals(2, events.size());
    }
  }

  private static String primaryName(InProcessCluster c, String key) {
    // the primary is the one owner whose write path reports; find it through the engine
    for (ClusteredCache<String, String> node : c.nodes) {
      if (((dev.larder.cluster.internal.ClusteredLarderCache<String, String>) node)
          .isLocalPrimary(key)) {
        return node.nodeName();
      }
    }
    throw new AssertionError("no primary for " + key);
  }
}
