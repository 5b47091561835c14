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
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
  private static final int SEGMENTS = 64;

  private final String name =
      "journal-" + ProcessHandle.current().pid() + "-" + CLUSTERS.incrementAndGet();
  private final List<ClusteredCache<byte[], byte[]>> members = new CopyOnWriteArrayList<>();

  /** A journal that mirrors the store it hears about, and its epochs. */
  private static final class Mirror implements StoreJournal {
    final Map<String, String> entries = new ConcurrentHashMap<>();
    private final long[] recovered;
    volatile long[] epochs;

    Mirror() {
      this(new long[SEGMENTS]);
    }

    /** A journal recovered with these epochs (what a member's record ended in). */
    Mirror(long[] recovered) {
      this.recovered = recovered.clone();
      this.epochs = recovered.clone();
    }

    /** What the member would recover from this record at its next start. */
    Mirror recover() {
      Mirror next = new Mirror(epochs);
      next.entries.putAll(entries);
      return next;
    }

    /** The newest epoch it recorded for any segment. */
    long newest() {
      return Arrays.stream(epochs).max().orElse(0);
    }

    Cache<byte[], byte[]> recoveredStore() {
      Cache<byte[], byte[]> s = store();
      entries.forEach((k, v) -> s.put(bytes(k), bytes(v)));
      return s;
    }

    @Override
    public long[] recordedEpochs(int segments) {
      assertEquals(SEGMENTS, segments);
      return recovered.clone();
    }

    @Override
    public void recordEpochs(long[] e) {
      epochs = e.clone();
    }

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
    return join(node, store, journal, 1);
  }

  private ClusteredCache<byte[], byte[]> join(
      String node, Cache<byte[], byte[]> store, StoreJournal journal, int clusterSize) {
    return join(node, store, journal, clusterSize, ClusterMode.REPLICATED);
  }

  private ClusteredCache<byte[], byte[]> join(
      String node,
      Cache<byte[], byte[]> store,
      StoreJournal journal,
      int clusterSize,
      ClusterMode mode) {
    ClusteredCache<byte[], byte[]> c =
        ClusteredCache.builder(Codecs.bytes(), Codecs.bytes())
            .maximumMemory(16 << 20)
            .localStore(store, journal)
            .cluster(
                ClusterConfig.builder()
                    .stack(Stacks.IN_PROCESS)
                    .clusterName(name)
                    .nodeName(node)
                    .mode(mode)
                    .owners(2)
                    .replication(Replication.SYNC)
                    .timeout(Duration.ofSeconds(5))
                    .segments(SEGMENTS)
                    .initialClusterSize(clusterSize)
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

  /** Starts members at once (each build returns once the cluster has formed), in order given. */
  private List<ClusteredCache<byte[], byte[]>> startAll(
      List<String> nodes, List<Cache<byte[], byte[]>> stores, List<Mirror> journals, long headStart)
      throws Exception {
    return startAll(nodes, stores, journals, headStart, ClusterMode.REPLICATED);
  }

  private List<ClusteredCache<byte[], byte[]>> startAll(
      List<String> nodes,
      List<Cache<byte[], byte[]>> stores,
      List<Mirror> journals,
      long headStart,
      ClusterMode mode)
      throws Exception {
    ExecutorService starts = Executors.newFixedThreadPool(nodes.size());
    try {
      List<Future<ClusteredCache<byte[], byte[]>>> started = new ArrayList<>();
      for (int i = 0; i < nodes.size(); i++) {
        int n = i;
        started.add(
            starts.submit(
                () -> join(nodes.get(n), stores.get(n), journals.get(n), nodes.size(), mode)));
        if (i == 0 && headStart > 0) {
          // the first member forms its first view (of itself) before the others start
          Thread.sleep(headStart);
        }
      }
      List<ClusteredCache<byte[], byte[]>> out = new ArrayList<>();
      for (Future<ClusteredCache<byte[], byte[]>> f : started) {
        out.add(f.get(40, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      starts.shutdownNow();
    }
  }

  private void stop(ClusteredCache<byte[], byte[]> member) {
    members.remove(member);
    member.close();
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

  @Test
  void aFullRestartStartsFromTheNewestRecordNotFromTheMemberStartedFirst() throws Exception {
    List<Mirror> journals = List.of(new Mirror(), new Mirror(), new Mirror());
    List<ClusteredCache<byte[], byte[]>> first =
        startAll(List.of("a", "b", "c"), List.of(store(), store(), store()), journals, 0);
    awaitWhole(3);
    first.get(0).put(bytes("kept"), bytes("1"));
    first.get(0).put(bytes("gone"), bytes("x"));
    // a stops; b and c go on without it
    stop(first.get(0));
    awaitWhole(2);
    first.get(1).put(bytes("kept"), bytes("2"));
    first.get(2).put(bytes("added"), bytes("y"));
    first.get(2).invalidate(bytes("gone"));
    stop(first.get(1));
    stop(first.get(2));
    assertTrue(
        journals.get(1).newest() > journals.get(0).newest(),
        "b's record is newer than a's: "
            + journals.get(1).newest()
            + " "
            + journals.get(0).newest());

    // every member restarts from its record, a first (with the older record)
    List<Mirror> recovered = journals.stream().map(Mirror::recover).toList();
    List<Cache<byte[], byte[]>> stores = recovered.stream().map(Mirror::recoveredStore).toList();
    List<ClusteredCache<byte[], byte[]>> second =
        startAll(List.of("a", "b", "c"), stores, recovered, 1_000);
    awaitWhole(3);
    Map<String, String> expected = Map.of("kept", "2", "added", "y");
    for (int i = 0; i < 3; i++) {
      assertEquals(expected, contents(stores.get(i)), "store " + i);
      assertEquals(expected, recovered.get(i).entries, "journal " + i);
      assertArrayEquals(bytes("2"), second.get(i).getIfPresent(bytes("kept")));
      assertNull(second.get(i).getIfPresent(bytes("gone")));
    }
  }

  /**
   * DISTRIBUTED, two owners of each segment among three members: each member's record holds its
   * share only. One member stops, the other two go on (updates, a new key, a removal), then they
   * stop too; all three restart at once, the stale one first. Each segment must start from the
   * newest record of it, wherever ownership falls in the new view: every key at its last value
   * through every member, the removed key absent, and each store holding the segments it owns.
   */
  @Test
  void aDistributedFullRestartStartsEachSegmentFromItsNewestRecord() throws Exception {
    List<String> nodes = List.of("a", "b", "c");
    List<Mirror> journals = List.of(new Mirror(), new Mirror(), new Mirror());
    List<ClusteredCache<byte[], byte[]>> first =
        startAll(nodes, List.of(store(), store(), store()), journals, 0, ClusterMode.DISTRIBUTED);
    awaitWhole(3);
    int keys = 60;
    for (int i = 0; i < keys; i++) {
      first.get(i % 3).put(bytes("k" + i), bytes("1"));
    }
    stop(first.get(0));
    awaitWhole(2);
    Map<String, String> expected = new HashMap<>();
    for (int i = 0; i < keys; i++) {
      if (i % 10 == 3) {
        first.get(1 + i % 2).invalidate(bytes("k" + i));
      } else {
        first.get(1 + i % 2).put(bytes("k" + i), bytes("2"));
        expected.put("k" + i, "2");
      }
    }
    first.get(2).put(bytes("added"), bytes("y"));
    expected.put("added", "y");
    stop(first.get(1));
    stop(first.get(2));

    List<Mirror> recovered = journals.stream().map(Mirror::recover).toList();
    List<Cache<byte[], byte[]>> stores = recovered.stream().map(Mirror::recoveredStore).toList();
    List<ClusteredCache<byte[], byte[]>> second =
        startAll(nodes, stores, recovered, 1_000, ClusterMode.DISTRIBUTED);
    awaitWhole(3);
    for (int i = 0; i < 3; i++) {
      ClusteredCache<byte[], byte[]> m = second.get(i);
      for (int k = 0; k < keys; k++) {
        byte[] v = m.getIfPresent(bytes("k" + k));
        assertEquals(expected.get("k" + k), v == null ? null : text(v), "k" + k + " via " + i);
      }
      assertArrayEquals(bytes("y"), m.getIfPresent(bytes("added")));
    }
    // each key ends on exactly its two owners (a seed drops what it does not own once its owners
    // have it), each store and journal agree, nothing stale is kept
    InProcessCluster.await(
        () -> expected.keySet().stream().allMatch(k -> copies(stores, k) == 2),
        "every key is on its two owners only");
    for (int i = 0; i < 3; i++) {
      Map<String, String> held = contents(stores.get(i));
      assertEquals(held, recovered.get(i).entries, "journal " + i);
      for (Map.Entry<String, String> e : held.entrySet()) {
        assertEquals(expected.get(e.getKey()), e.getValue(), "store " + i + " " + e.getKey());
      }
    }
    for (ClusteredCache<byte[], byte[]> m : second) {
      assertEquals(0, m.rebalanceStats().segmentsLost(), m.nodeName());
    }
  }

  private static int copies(List<Cache<byte[], byte[]>> stores, String key) {
    int n = 0;
    for (Cache<byte[], byte[]> s : stores) {
      n += s.getIfPresent(bytes(key)) == null ? 0 : 1;
    }
    return n;
  }
}
