package dev.larder.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.Cache;
import dev.larder.codec.Codecs;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A member's own store given to the builder ({@link ClusteredCacheBuilder#localStore}): its journal
 * hears every change before the write is acknowledged, a founder serves what its store held, and a
 * member that joins a running cluster with a recovered store takes the cluster's state (a key the
 * cluster does not hold does not come back).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StoreJournalTest {

  private static final AtomicInteger CLUSTERS = new AtomicInteger();

  private final String name =
      "journal-" + ProcessHandle.current().pid() + "-" + CLUSTERS.incrementAndGet();
  private final List<ClusteredCache<byte[], byte[]>> members = new ArrayList<>();

  /** A journal that mirrors the store it hears about. */
  private static final class Mirror implements StoreJournal {
    final Map<String, String> entries = new ConcurrentHashMap<>();

    @Override
    public void stored(byte[] key, byte[] value) {
      entries.put(text(key), text(value));
    }

    @Override
    public void removed(byte[] key) {
      entries.remove(text(key));
    }

    @Override
    public void cleared() {
      entries.clear();
    }

    @Override
    public void sync() {}
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.ISO_8859_1);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static Cache<byte[], byte[]> store() {
    return Cache.builder(Codecs.bytes(), Codecs.bytes()).maximumMemory(16 << 20).build();
  }

  private static Map<String, String> contents(Cache<byte[], byte[]> store) {
    Map<String, String> out = new HashMap<>();
    store.asMap().forEach((k, v) -> out.put(text(k), text(v)));
    return out;
  }

  private ClusteredCache<byte[], byte[]> join(
      String node, Cache<byte[], byte[]> store, StoreJournal journal) {
    ClusteredCache<byte[], byte[]> c =
        ClusteredCache.builder(Codecs.bytes(), Codecs.bytes())
            .maximumMemory(16 << 20)
            .localStore(store, journal)
            .cluster(
                ClusterConfig.builder()
                    .stack(Stacks.IN_PROCESS)
                    .clusterName(name)
                    .nodeName(node)
                    .mode(ClusterMode.REPLICATED)
                    .replication(Replication.SYNC)
                    .timeout(Duration.ofSeconds(5))
                    .segments(64)
                    .build())
            .build();
    members.add(c);
    return c;
  }

  private void awaitWhole(int n) {
    InProcessCluster.await(
        () -> members.stream().allMatch(m -> m.members().size() == n), n + " members");
    for (ClusteredCache<byte[], byte[]> m : members) {
      assertTrue(m.awaitRebalanced(Duration.ofSeconds(20)), m.nodeName() + " rebalanced");
    }
  }

  @AfterEach
  void close() {
    members.forEach(ClusteredCache::close);
  }

  @Test
  void everyOwnerJournalsEachChangeBeforeTheWriteReturns() {
    Cache<byte[], byte[]> s0 = store();
    Cache<byte[], byte[]> s1 = store();
    Mirror j0 = new Mirror();
    Mirror j1 = new Mirror();
    ClusteredCache<byte[], byte[]> n0 = join("n0", s0, j0);
    join("n1", s1, j1);
    awaitWhole(2);
    n0.put(bytes("a"), bytes("1"));
    n0.put(bytes("b"), bytes("2"));
    members.get(1).put(bytes("b"), bytes("3"));
    n0.invalidate(bytes("a"));
    // SYNC: each call returned once both owners applied it, so both journals heard it already
    Map<String, String> expected = Map.of("b", "3");
    assertEquals(expected, contents(s0));
    assertEquals(expected, j0.entries);
    assertEquals(expected, contents(s1));
    assertEquals(expected, j1.entries);
    n0.invalidateAll();
    assertEquals(Map.of(), j0.entries);
    assertEquals(Map.of(), j1.entries);
  }

  @Test
  void aFounderServesItsRecoveredStoreAndAJoinerReceivesIt() {
    Cache<byte[], byte[]> s0 = store();
    s0.put(bytes("kept"), bytes("v"));
    ClusteredCache<byte[], byte[]> n0 = join("n0", s0, new Mirror());
    awaitWhole(1);
    assertArrayEquals(bytes("v"), n0.getIfPresent(bytes("kept")));
    Cache<byte[], byte[]> s1 = store();
    Mirror j1 = new Mirror();
    join("n1", s1, j1);
    awaitWhole(2);
    assertEquals(Map.of("kept", "v"), contents(s1));
    assertEquals(Map.of("kept", "v"), j1.entries);
  }

  @Test
  void aRejoiningMembersRecoveredStoreGivesWayToTheClusters() {
    ClusteredCache<byte[], byte[]> n0 = join("n0", store(), new Mirror());
    join("n1", store(), new Mirror());
    awaitWhole(2);
    n0.put(bytes("kept"), bytes("new"));
    // what a member down meanwhile recovers from its own record: an older value of one key, and
    // a key the cluster removed while it was away
    Cache<byte[], byte[]> s2 = store();
    s2.put(bytes("kept"), bytes("old"));
    s2.put(bytes("gone"), bytes("x"));
    Mirror j2 = new Mirror();
    j2.entries.putAll(contents(s2));
    ClusteredCache<byte[], byte[]> n2 = join("n2", s2, j2);
    awaitWhole(3);
    assertEquals(Map.of("kept", "new"), contents(s2));
    assertEquals(Map.of("kept", "new"), j2.entries);
    assertNull(n2.getIfPresent(bytes("gone")));
    assertNull(n0.getIfPresent(bytes("gone")));
  }
}
