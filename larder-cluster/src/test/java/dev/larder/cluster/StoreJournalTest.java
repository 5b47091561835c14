package dev.larder.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntUnaryOperator;
import org.jgroups.protocols.DISCARD;
import org.jgroups.protocols.TP;
import org.jgroups.stack.ProtocolStack;
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

  /** The members' cluster timeout (how long a refused read or write takes to fail). */
  private Duration timeout = Duration.ofSeconds(5);

  /** A journal that mirrors the store it hears about, and its epochs. */
  private static final class Mirror implements StoreJournal {
    final Map<String, String> entries = new ConcurrentHashMap<>();
    private final long[] recovered;
    volatile long[] epochs;

    /** While set, {@link #sync} waits for it (so a pull's entries stay unapplied): see hold. */
    private volatile CountDownLatch gate;

    /** Counted down when a sync first waits at the gate. */
    final CountDownLatch held = new CountDownLatch(1);

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

    /** From now on, syncs wait until {@link #release}: state transfer cannot finish a pull. */
    void hold() {
      gate = new CountDownLatch(1);
    }

    void release() {
      CountDownLatch g = gate;
      gate = null;
      if (g != null) {
        g.countDown();
      }
    }

    @Override
    public void sync() {
      CountDownLatch g = gate;
      if (g == null) {
        return;
      }
      held.countDown();
      try {
        assertTrue(g.await(30, TimeUnit.SECONDS), "the test released the journal");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** A record of {@code keys} keys (k0=v0, ...) at epoch {@code epoch} for every segment. */
  private static Mirror recordOf(int keys, long epoch) {
    long[] e = new long[SEGMENTS];
    Arrays.fill(e, epoch);
    Mirror m = new Mirror(e);
    for (int i = 0; i < keys; i++) {
      m.entries.put("k" + i, "v" + i);
    }
    return m;
  }

  /** Every key of {@link #recordOf} reads its value through every member; nothing was lost. */
  private static void assertEveryKey(List<ClusteredCache<byte[], byte[]>> through, int keys) {
    for (ClusteredCache<byte[], byte[]> m : through) {
      for (int i = 0; i < keys; i++) {
        byte[] v = m.getIfPresent(bytes("k" + i));
        assertEquals("v" + i, v == null ? null : text(v), "k" + i + " via " + m.nodeName());
      }
      assertEquals(0, m.rebalanceStats().segmentsLost(), m.nodeName() + " segments lost");
    }
  }

  private static void awaitHeld(Mirror m) throws InterruptedException {
    assertTrue(m.held.await(20, TimeUnit.SECONDS), "state transfer reached the journal");
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
                    .timeout(timeout)
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

  /**
   * A full restart of a DISTRIBUTED cluster whose newest record is on one member, a: it seeds every
   * segment and serves those it does not own from RETIRED. While b and c are still pulling, a
   * fourth member joins (a view change). a must keep what it serves across the view (it is the only
   * copy), and the owners of the new view receive every key: none starts empty.
   */
  @Test
  void aViewChangeWhileOwnersPullFromARetiredSeedLosesNothing() throws Exception {
    int keys = 100;
    Mirror ja = recordOf(keys, (3L << 32) | 7);
    Mirror jb = new Mirror();
    Mirror jc = new Mirror();
    jb.hold();
    jc.hold();
    List<ClusteredCache<byte[], byte[]>> first =
        startAll(
            List.of("a", "b", "c"),
            List.of(ja.recoveredStore(), store(), store()),
            List.of(ja, jb, jc),
            0,
            ClusterMode.DISTRIBUTED);
    awaitHeld(jb);
    awaitHeld(jc);
    ClusteredCache<byte[], byte[]> d = join("d", store(), new Mirror(), 1, ClusterMode.DISTRIBUTED);
    InProcessCluster.await(
        () -> first.stream().allMatch(m -> m.members().size() == 4), "the view of four");
    jb.release();
    jc.release();
    awaitWhole(4);
    List<ClusteredCache<byte[], byte[]>> all = new ArrayList<>(first);
    all.add(d);
    assertEveryKey(all, keys);
  }

  /**
   * The same restart, and the seed a dies while b and c are still pulling from it: it was the only
   * member holding the newest record. b and c must not start its segments empty: reads and writes
   * of them are refused until a returns, and then a's record is served (a joining a running cluster
   * keeps what the cluster still waits for, rather than taking the cluster's empty state).
   */
  @Test
  void theOnlySeedDyingMidPullIsWaitedForNotReplacedByEmptySegments() throws Exception {
    timeout = Duration.ofSeconds(2);
    int keys = 100;
    Mirror ja = recordOf(keys, (3L << 32) | 7);
    Mirror jb = new Mirror();
    Mirror jc = new Mirror();
    jb.hold();
    jc.hold();
    List<ClusteredCache<byte[], byte[]>> first =
        startAll(
            List.of("a", "b", "c"),
            List.of(ja.recoveredStore(), store(), store()),
            List.of(ja, jb, jc),
            0,
            ClusterMode.DISTRIBUTED);
    awaitHeld(jb);
    awaitHeld(jc);
    stop(first.get(0));
    InProcessCluster.await(
        () -> first.get(1).members().size() == 2 && first.get(2).members().size() == 2,
        "the view without a");
    jb.release();
    jc.release();
    ClusteredCache<byte[], byte[]> b = first.get(1);
    assertThrows(ClusterTimeoutException.class, () -> b.getIfPresent(bytes("k1")));
    assertThrows(ClusterTimeoutException.class, () -> b.put(bytes("k2"), bytes("new")));

    Mirror again = ja.recover();
    ClusteredCache<byte[], byte[]> a =
        join("a", again.recoveredStore(), again, 3, ClusterMode.DISTRIBUTED);
    awaitWhole(3);
    assertEveryKey(List.of(a, b, first.get(2)), keys);
    b.put(bytes("k2"), bytes("new"));
    assertArrayEquals(bytes("new"), a.getIfPresent(bytes("k2")));
  }

  /**
   * The same restart with two members, a and b, holding the newest record (as the two owners of
   * every segment do under SYNC replication); a seeds (first in view order). a dies while c is
   * pulling from it: b kept its copy, and c receives every key from b.
   */
  @Test
  void aSecondHolderOfTheNewestRecordServesWhenTheSeedDiesMidPull() throws Exception {
    int keys = 100;
    Mirror ja = recordOf(keys, (3L << 32) | 7);
    Mirror jb = recordOf(keys, (3L << 32) | 7);
    Mirror jc = new Mirror();
    jc.hold();
    List<ClusteredCache<byte[], byte[]>> first =
        startAll(
            List.of("a", "b", "c"),
            List.of(ja.recoveredStore(), jb.recoveredStore(), store()),
            List.of(ja, jb, jc),
            1_000,
            ClusterMode.DISTRIBUTED);
    awaitHeld(jc);
    stop(first.get(0));
    InProcessCluster.await(
        () -> first.get(1).members().size() == 2 && first.get(2).members().size() == 2,
        "the view without a");
    jc.release();
    awaitWhole(2);
    assertEveryKey(List.of(first.get(1), first.get(2)), keys);
  }

  /**
   * DISTRIBUTED, three members a, b, c holding 200 keys; d joins and its pulls are held (its
   * journal's sync waits), so the segments it takes over stay complete on one owner only, b or the
   * member that gave them to d; then b leaves. Where b and d owned a segment in the view of four,
   * the member that gave it to d owns it again in the view of three, with d still receiving it and
   * b, its only complete owner, gone: that former owner must keep its copy rather than drop it to
   * receive the segment anew, serve it to d and complete from d. No segment starts empty and every
   * key reads its value through every member.
   */
  @Test
  void aFormerOwnerMadeOwnerAgainKeepsItsCopyWhenTheOnlyCompleteOwnerLeavesMidRebalance()
      throws Exception {
    int keys = 200;
    List<ClusteredCache<byte[], byte[]>> first =
        startAll(
            List.of("a", "b", "c"),
            List.of(store(), store(), store()),
            List.of(new Mirror(), new Mirror(), new Mirror()),
            0,
            ClusterMode.DISTRIBUTED);
    awaitWhole(3);
    for (int i = 0; i < keys; i++) {
      first.get(i % 3).put(bytes("k" + i), bytes("v" + i));
    }
    Mirror jd = new Mirror();
    jd.hold();
    ClusteredCache<byte[], byte[]> d = join("d", store(), jd, 1, ClusterMode.DISTRIBUTED);
    awaitHeld(jd);
    InProcessCluster.await(
        () -> first.stream().allMatch(m -> m.members().size() == 4), "the view of four");
    stop(first.get(1));
    List<ClusteredCache<byte[], byte[]>> left = List.of(first.get(0), first.get(2), d);
    InProcessCluster.await(
        () -> left.stream().allMatch(m -> m.members().size() == 3), "the view without b");
    jd.release();
    awaitWhole(3);
    assertEveryKey(left, keys);
  }

  /**
   * DISTRIBUTED, three members a, b, c holding 100 keys; a's pulls are held (its journal's sync
   * waits), then b and c stop: the segments b and c owned are complete nowhere in the view of a
   * alone. a must not start them empty: their reads and writes are refused (time out) until c
   * returns with its record (the newest of them: it held them complete in the view of a and c), and
   * then every key reads its value. Keys a held from the start serve throughout.
   */
  @Test
  void bothOwnersLeavingAtOnceLeaveTheirSegmentsRefusedUntilAHolderReturns() throws Exception {
    timeout = Duration.ofSeconds(2);
    int keys = 100;
    AloneWaiting w = aloneWaitingForHolders(keys);
    ClusteredCache<byte[], byte[]> a = w.a();
    String lostKey = w.elsewhere().getFirst();
    assertThrows(ClusterTimeoutException.class, () -> a.getIfPresent(bytes(lostKey)));
    assertThrows(ClusterTimeoutException.class, () -> a.put(bytes(lostKey), bytes("new")));
    assertEquals(0, a.rebalanceStats().segmentsLost(), "segments a started empty");

    Mirror again = w.journals().get(2).recover();
    ClusteredCache<byte[], byte[]> c =
        join("c", again.recoveredStore(), again, 1, ClusterMode.DISTRIBUTED);
    awaitWhole(2);
    assertEveryKey(List.of(a, c), keys);
    a.put(bytes(lostKey), bytes("new"));
    assertArrayEquals(bytes("new"), c.getIfPresent(bytes(lostKey)));
  }

  /**
   * a alone, waiting for the segments b and c owned (as in the test above), is cleared (FLUSHALL),
   * then writes a key of one of them. c returns with its record, which holds keys the clear
   * removed: they must not come back, and the write after the clear must not be overwritten; nor
   * after a full restart of all three from their records (a's record of those segments must be
   * newer than the ones b and c kept). Before, the clear left the segments waiting: the write timed
   * out, and c's return served the cleared keys.
   */
  @Test
  void aClearWhileSegmentsWaitForAHolderIsNotUndoneWhenTheHolderReturns() throws Exception {
    int keys = 100;
    AloneWaiting w = aloneWaitingForHolders(keys);
    ClusteredCache<byte[], byte[]> a = w.a();
    String written = w.elsewhere().getFirst();
    a.invalidateAll();
    a.put(bytes(written), bytes("after the clear"));

    Mirror cJournal = w.journals().get(2).recover();
    ClusteredCache<byte[], byte[]> c =
        join("c", cJournal.recoveredStore(), cJournal, 1, ClusterMode.DISTRIBUTED);
    awaitWhole(2);
    assertOnlyKeyAfterTheClear(List.of(a, c), keys, written);

    stop(a);
    stop(c);
    Mirror ja = w.journals().get(0).recover();
    Mirror oldB = w.journals().get(1).recover();
    Mirror jc = cJournal.recover();
    List<ClusteredCache<byte[], byte[]>> restarted =
        startAll(
            List.of("a", "b", "c"),
            List.of(ja.recoveredStore(), oldB.recoveredStore(), jc.recoveredStore()),
            List.of(ja, oldB, jc),
            0,
            ClusterMode.DISTRIBUTED);
    awaitWhole(3);
    assertOnlyKeyAfterTheClear(restarted, keys, written);
  }

  /** Through every member, {@code written} reads its value after the clear and no other key is. */
  private static void assertOnlyKeyAfterTheClear(
      List<ClusteredCache<byte[], byte[]>> through, int keys, String written) {
    for (ClusteredCache<byte[], byte[]> m : through) {
      for (int i = 0; i < keys; i++) {
        String k = "k" + i;
        byte[] v = m.getIfPresent(bytes(k));
        assertEquals(
            k.equals(written) ? "after the clear" : null,
            v == null ? null : text(v),
            k + " via " + m.nodeName());
      }
    }
  }

  /**
   * a alone, waiting for the segments b and c owned (as above), and the members holding their
   * records never return (their disks are lost). The operator gives those records up: the segments
   * start empty, are counted as lost, and take writes again; a's own keys are still served. A
   * member returning later with such a record anyway takes the cluster's state.
   */
  @Test
  void theOperatorCanStartSegmentsWhoseHoldersNeverReturnEmpty() throws Exception {
    int keys = 100;
    AloneWaiting w = aloneWaitingForHolders(keys);
    ClusteredCache<byte[], byte[]> a = w.a();
    InProcessCluster.await(() -> !a.waitingSegments().isEmpty(), "a waits for segments");
    List<Integer> waited = a.waitingSegments();
    String written = w.elsewhere().getFirst();
    assertTrue(w.elsewhere().size() >= 2, "keys of b's and c's segments: " + w.elsewhere());

    List<Integer> given = a.abandonWaitingSegments();
    assertTrue(given.containsAll(waited), given + " holds " + waited);
    a.put(bytes(written), bytes("new"));
    // each starts empty on a's state transfer thread, a few hundred ms at most
    InProcessCluster.await(() -> a.waitingSegments().isEmpty(), "every given-up segment started");
    assertEquals(given.size(), a.rebalanceStats().segmentsLost(), "segments given up");
    for (int i = 0; i < keys; i++) {
      String k = "k" + i;
      byte[] v = a.getIfPresent(bytes(k));
      String expected = k.equals(written) ? "new" : w.elsewhere().contains(k) ? null : "v" + i;
      assertEquals(expected, v == null ? null : text(v), k);
    }
    assertEquals(List.of(), a.abandonWaitingSegments(), "nothing left to give up");

    Mirror again = w.journals().get(2).recover();
    ClusteredCache<byte[], byte[]> c =
        join("c", again.recoveredStore(), again, 1, ClusterMode.DISTRIBUTED);
    awaitWhole(2);
    byte[] v = c.getIfPresent(bytes(written));
    assertEquals("new", v == null ? null : text(v));
    for (String k : w.elsewhere()) {
      if (!k.equals(written)) {
        assertNull(c.getIfPresent(bytes(k)), k + ", given up, came back");
      }
    }
  }

  /**
   * a, b and c's journals, a alone, and the keys a holds no copy of.
   *
   * @param a the member left alone
   * @param journals a's, b's and c's journals
   * @param elsewhere the keys of the segments b and c owned, of which a holds no copy
   */
  private record AloneWaiting(
      ClusteredCache<byte[], byte[]> a, List<Mirror> journals, List<String> elsewhere) {}

  /**
   * DISTRIBUTED, three members a, b, c holding {@code keys} keys; a's pulls are held (its journal's
   * sync waits), then b and c stop: the segments b and c owned are complete nowhere in the view of
   * a alone, and a waits for them (the journal released again).
   */
  private AloneWaiting aloneWaitingForHolders(int keys) throws Exception {
    List<Mirror> journals = List.of(new Mirror(), new Mirror(), new Mirror());
    List<Cache<byte[], byte[]>> stores = List.of(store(), store(), store());
    List<ClusteredCache<byte[], byte[]>> first =
        startAll(List.of("a", "b", "c"), stores, journals, 0, ClusterMode.DISTRIBUTED);
    awaitWhole(3);
    for (int i = 0; i < keys; i++) {
      first.get(i % 3).put(bytes("k" + i), bytes("v" + i));
    }
    // the keys of the segments b and c own: a holds none of them
    List<String> elsewhere = new ArrayList<>();
    for (int i = 0; i < keys; i++) {
      if (stores.get(0).getIfPresent(bytes("k" + i)) == null) {
        elsewhere.add("k" + i);
      }
    }
    assertTrue(!elsewhere.isEmpty() && elsewhere.size() < keys, "a owns some keys, not all");
    ClusteredCache<byte[], byte[]> a = first.get(0);
    journals.get(0).hold();
    stop(first.get(1));
    awaitHeld(journals.get(0));
    stop(first.get(2));
    InProcessCluster.await(() -> a.members().size() == 1, "the view of a alone");
    journals.get(0).release();
    return new AloneWaiting(a, journals, elsewhere);
  }

  /**
   * DISTRIBUTED, a, b, c holding 100 keys; d joins with its pulls held, so the members that gave
   * segments to d keep them RETIRED. Each records, for a segment it gave away, an epoch newer than
   * every epoch it recorded before that view (it held the segment complete as the view began: with
   * every write acknowledged before it, including, when the view also drops the segment's other
   * owner after a crash, the writes acknowledged only once that owner was gone) and older than the
   * epoch the view's owners record (their copies go on taking the view's writes).
   */
  @Test
  void aMemberRecordsThatItHeldASegmentItGivesAwayCompleteWhenTheViewBegan() throws Exception {
    List<Mirror> journals = List.of(new Mirror(), new Mirror(), new Mirror());
    List<ClusteredCache<byte[], byte[]>> first =
        startAll(
            List.of("a", "b", "c"),
            List.of(store(), store(), store()),
            journals,
            0,
            ClusterMode.DISTRIBUTED);
    awaitWhole(3);
    for (int i = 0; i < 100; i++) {
      first.get(i % 3).put(bytes("k" + i), bytes("v" + i));
    }
    long[] before = journals.stream().mapToLong(Mirror::newest).toArray();
    Mirror jd = new Mirror();
    jd.hold();
    join("d", store(), jd, 1, ClusterMode.DISTRIBUTED);
    try {
      awaitHeld(jd);
      InProcessCluster.await(
          () -> first.stream().allMatch(m -> m.members().size() == 4), "the view of four");
      // each of a, b and c records the view of four for every segment it holds (a member
      // publishes the view before it records it)
      InProcessCluster.await(
          () -> {
            for (int i = 0; i < 3; i++) {
              for (long e : journals.get(i).epochs) {
                if (e != 0 && e <= before[i]) {
                  return false;
                }
              }
            }
            return true;
          },
          "every segment a, b and c hold recorded newer than before d joined");
      long owners = journals.stream().mapToLong(Mirror::newest).max().orElse(0);
      int retired = 0;
      for (int i = 0; i < 3; i++) {
        long[] epochs = journals.get(i).epochs;
        for (int s = 0; s < SEGMENTS; s++) {
          if (epochs[s] != 0 && epochs[s] != owners) {
            retired++;
            assertTrue(
                epochs[s] > before[i] && epochs[s] < owners,
                "member "
                    + i
                    + " segment "
                    + s
                    + ": "
                    + Long.toHexString(epochs[s])
                    + " after "
                    + Long.toHexString(before[i])
                    + ", owners "
                    + Long.toHexString(owners));
          }
        }
      }
      assertTrue(retired > 0, "some member gave d a segment");
    } finally {
      jd.release();
    }
  }

  /**
   * Five durable members, DISTRIBUTED with two owners, split 3|2 under quorum: some segments have
   * both owners, d and e, on the minority side. During the split the majority refuses those
   * segments' writes (it waits for a holder's record) and writes the keys it holds; the minority
   * refuses every write. At the merge the minority loses, but keeps its copies of what the majority
   * never held, and its owners complete from them: every key reads back, the majority's writes of
   * the split included. Then every member stops and all restart from their records: each segment
   * starts from the newest record of it, so the same values read back again (the losers' records of
   * segments the majority wrote during the split rank below the majority's). Before the losers kept
   * their copies, all 20 keys only d and e held were lost at the merge.
   */
  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void aDurableMinoritysCopiesOfWhatOnlyItHeldSurviveTheMergeAndAFullRestart() throws Exception {
    SplitCluster c = splitThreeTwo();
    c.heal();
    awaitWhole(5);
    assertNoneLost(c.members(), c.expected(), "after the merge");
    restartAll(c, c.journals());
  }

  /**
   * The same split and merge, and every member crashes while d and e, the minority's owners of the
   * segments only they held, are still completing them from each other's copy (their journals hold
   * every sync back): their records of those segments must still be the newest, so the full restart
   * starts the segments from them. Before a member kept the record of a copy it completes from, d
   * and e recorded epoch 0 for those segments as the merge's rebalance began, and the restart
   * started them empty.
   */
  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void everyMemberCrashingWhileTheLosersCompleteFromTheirCopiesLosesNothing() throws Exception {
    SplitCluster c = splitThreeTwo();
    Mirror jd = c.journals().get(3);
    Mirror je = c.journals().get(4);
    jd.hold();
    je.hold();
    List<Mirror> crashed;
    try {
      c.heal();
      awaitHeld(jd);
      awaitHeld(je);
      // what each member would recover had every member crashed now
      crashed = c.journals().stream().map(Mirror::recover).toList();
    } finally {
      jd.release();
      je.release();
    }
    restartAll(c, crashed);
  }

  /**
   * A cluster split by {@link #splitThreeTwo}.
   *
   * @param members a, b, c (the majority), d and e
   * @param journals their journals, in the same order
   * @param expected every key acknowledged before and during the split, with its last value
   * @param discards what cuts d and e off, to heal
   */
  private record SplitCluster(
      List<ClusteredCache<byte[], byte[]>> members,
      List<Mirror> journals,
      Map<String, String> expected,
      List<DISCARD> discards) {

    /** Ends the split and waits until every member sees all five. */
    void heal() throws InterruptedException {
      discards.forEach(DISCARD::resetIgnoredMembers);
      awaitViews(members, i -> 5, "the merge");
    }
  }

  /**
   * Starts five durable members (DISTRIBUTED, two owners), writes 20 keys owned by d and e alone
   * and 40 others, cuts d and e off, and writes the 40 others again through the majority; checks
   * that the majority refuses a key only d and e hold (it times out) and that d refuses every
   * write.
   */
  private SplitCluster splitThreeTwo() throws Exception {
    timeout = Duration.ofSeconds(2);
    List<String> nodes = List.of("a", "b", "c", "d", "e");
    List<Mirror> journals = nodes.stream().map(n -> new Mirror()).toList();
    List<ClusteredCache<byte[], byte[]>> all =
        startAll(
            nodes, nodes.stream().map(n -> store()).toList(), journals, 0, ClusterMode.DISTRIBUTED);
    awaitWhole(5);
    ClusteredCache<byte[], byte[]> a = all.get(0);
    ClusteredCache<byte[], byte[]> d = all.get(3);
    ClusteredCache<byte[], byte[]> e = all.get(4);
    List<String> minorityOnly = new ArrayList<>();
    List<String> elsewhere = new ArrayList<>();
    for (int i = 0; i < 2_000 && (minorityOnly.size() < 20 || elsewhere.size() < 40); i++) {
      byte[] k = bytes("k" + i);
      boolean both = d.isLocalOwner(k) && e.isLocalOwner(k);
      if (both && minorityOnly.size() < 20) {
        minorityOnly.add("k" + i);
      } else if (!both && elsewhere.size() < 40) {
        elsewhere.add("k" + i);
      }
    }
    assertTrue(minorityOnly.size() >= 5, "keys owned by d and e alone: " + minorityOnly);
    Map<String, String> expected = new HashMap<>();
    for (String k : minorityOnly) {
      a.put(bytes(k), bytes("before"));
      expected.put(k, "before");
    }
    for (String k : elsewhere) {
      a.put(bytes(k), bytes("before"));
    }

    List<DISCARD> discards = cut(all, Set.of(3, 4));
    awaitViews(all, i -> i >= 3 ? 2 : 3, "the split 3|2");
    // refused, never applied: the majority holds no copy of it
    assertThrows(
        ClusterTimeoutException.class, () -> a.put(bytes(minorityOnly.getFirst()), bytes("no")));
    for (String k : elsewhere) {
      // every key with an owner on the majority side: the majority holds it complete
      a.put(bytes(k), bytes("split"));
      expected.put(k, "split");
      assertThrows(ClusterDegradedException.class, () -> d.put(bytes(k), bytes("minority")));
    }
    return new SplitCluster(all, journals, expected, discards);
  }

  /**
   * Stops every member of {@code c}, restarts all five at once from {@code records}, and checks
   * that every key {@code c} expects reads back through every member, with no segment lost.
   */
  private void restartAll(SplitCluster c, List<Mirror> records) throws Exception {
    for (ClusteredCache<byte[], byte[]> m : c.members()) {
      stop(m);
    }
    List<Mirror> recovered = records.stream().map(Mirror::recover).toList();
    List<ClusteredCache<byte[], byte[]>> second =
        startAll(
            List.of("a", "b", "c", "d", "e"),
            recovered.stream().map(Mirror::recoveredStore).toList(),
            recovered,
            0,
            ClusterMode.DISTRIBUTED);
    awaitWhole(5);
    assertNoneLost(second, c.expected(), "after the full restart");
    for (ClusteredCache<byte[], byte[]> m : second) {
      assertEquals(0, m.rebalanceStats().segmentsLost(), m.nodeName() + " segments lost");
    }
  }

  private static void assertNoneLost(
      List<ClusteredCache<byte[], byte[]>> through, Map<String, String> expected, String when) {
    Set<String> lost = lost(through, expected);
    assertEquals(
        Set.of(),
        lost,
        lost.size()
            + " reads of "
            + expected.size()
            + " keys through "
            + through.size()
            + " members not as acknowledged "
            + when);
  }

  /** The keys of {@code expected} some member of {@code through} does not read as expected. */
  private static Set<String> lost(
      List<ClusteredCache<byte[], byte[]>> through, Map<String, String> expected) {
    Set<String> out = new TreeSet<>();
    for (ClusteredCache<byte[], byte[]> m : through) {
      expected.forEach(
          (k, v) -> {
            byte[] got = m.getIfPresent(bytes(k));
            if (got == null || !v.equals(text(got))) {
              out.add(k + " via " + m.nodeName());
            }
          });
    }
    return out;
  }

  /** Cuts the members {@code side} off from the others (DISCARD above each transport). */
  private static List<DISCARD> cut(List<ClusteredCache<byte[], byte[]>> all, Set<Integer> side)
      throws Exception {
    List<DISCARD> discards = new ArrayList<>();
    for (ClusteredCache<byte[], byte[]> n : all) {
      DISCARD d = new DISCARD();
      InProcessCluster.channel(n)
          .getProtocolStack()
          .insertProtocol(d, ProtocolStack.Position.ABOVE, TP.class);
      discards.add(d);
    }
    for (int i = 0; i < all.size(); i++) {
      for (int j = 0; j < all.size(); j++) {
        if (side.contains(i) != side.contains(j)) {
          discards.get(i).addIgnoreMember(InProcessCluster.channel(all.get(j)).getAddress());
        }
      }
    }
    return discards;
  }

  /** Waits up to 60 s until member {@code i} of {@code all} sees {@code size.applyAsInt(i)}. */
  private static void awaitViews(
      List<ClusteredCache<byte[], byte[]>> all, IntUnaryOperator size, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      boolean done = true;
      for (int i = 0; i < all.size(); i++) {
        done &= all.get(i).members().size() == size.applyAsInt(i);
      }
      if (done) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "timed out waiting for " + what + ": " + all.stream().map(m -> m.members()).toList());
      }
      Thread.sleep(20);
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
