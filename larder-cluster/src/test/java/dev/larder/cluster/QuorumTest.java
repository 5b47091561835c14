package dev.larder.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;
import org.jgroups.protocols.DISCARD;
import org.jgroups.protocols.TP;
import org.jgroups.stack.ProtocolStack;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Partition handling QUORUM (the default for SYNC caches), with partitions made by JGroups' DISCARD
 * inserted above the transport and healed by MERGE3: the minority side refuses writes (and, with
 * minority reads off, reads) with {@link ClusterDegradedException}, the majority goes on, and after
 * the merge every member holds the majority's writes; writers on every member lose no acknowledged
 * write. ALLOW_ALL, beside it, loses the minority's.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QuorumTest {

  /** Cuts members [0, minority) off from the rest; returns the DISCARDs, to heal. */
  private static List<DISCARD> split(InProcessCluster c, int minority) throws Exception {
    List<DISCARD> discards = cut(c, minority);
    awaitSplit(c, minority);
    return discards;
  }

  /** Waits until every member's view is its side of a cut of members [0, minority). */
  private static void awaitSplit(InProcessCluster c, int minority) {
    int size = c.nodes.size();
    InProcessCluster.await(
        () -> {
          for (int i = 0; i < size; i++) {
            if (c.node(i).members().size() != (i < minority ? minority : size - minority)) {
              return false;
            }
          }
          return true;
        },
        "the split");
  }

  /**
   * Cuts members [0, minority) off from the rest, without waiting for the views that notice it;
   * returns the DISCARDs, to heal.
   */
  private static List<DISCARD> cut(InProcessCluster c, int minority) throws Exception {
    List<DISCARD> discards = new ArrayList<>();
    for (ClusteredCache<String, String> n : c.nodes) {
      DISCARD d = new DISCARD();
      InProcessCluster.channel(n)
          .getProtocolStack()
          .insertProtocol(d, ProtocolStack.Position.ABOVE, TP.class);
      discards.add(d);
    }
    int size = c.nodes.size();
    for (int i = 0; i < size; i++) {
      for (int j = 0; j < size; j++) {
        if ((i < minority) != (j < minority)) {
          discards.get(i).addIgnoreMember(InProcessCluster.channel(c.node(j)).getAddress());
        }
      }
    }
    return discards;
  }

  private static void heal(InProcessCluster c, List<DISCARD> discards) {
    discards.forEach(DISCARD::resetIgnoredMembers);
    c.awaitMembers(c.nodes.size());
    c.awaitRebalanced();
  }

  private static InProcessCluster cluster(
      ClusterMode mode, int size, Consumer<ClusterConfig.Builder> settings) {
    return new InProcessCluster(mode, Replication.SYNC, size, -1, 2, b -> {}, settings);
  }

  @ParameterizedTest
  @EnumSource(
      value = ClusterMode.class,
      names = {"REPLICATED", "DISTRIBUTED"})
  void theMinorityRefusesWritesAndServesReadsTheMajorityGoesOn(ClusterMode mode) throws Exception {
    try (InProcessCluster c = cluster(mode, 3, b -> {})) {
      assertEquals(
          PartitionHandling.QUORUM,
          c.node(0).clusterConfig().partitionHandling(),
          "the default for SYNC");
      c.node(1).put("k", "before");
      List<DISCARD> discards = split(c, 1);
      ClusteredCache<String, String> minority = c.node(0);
      assertFalse(minority.available());
      ClusterDegradedException refused =
          assertThrows(ClusterDegradedException.class, () -> minority.put("k", "minority"));
      assertEquals(3, refused.stable().size(), refused.getMessage());
      assertEquals(List.of("n0"), refused.present());
      assertThrows(ClusterDegradedException.class, () -> minority.remove("k"));
      assertThrows(ClusterDegradedException.class, minority::invalidateAll);
      if (mode == ClusterMode.REPLICATED) {
        assertEquals("before", minority.getIfPresent("k"), "minority reads are served");
      }
      // the majority's view counts once its members confirmed they installed it
      InProcessCluster.await(() -> c.node(1).available(), "the majority available");
      c.node(1).put("k", "majority");
      c.node(2).put("new", "majority");
      assertEquals("majority", c.node(2).getIfPresent("k"));

      heal(c, discards);
      InProcessCluster.await(minority::available, "the minority available again");
      for (ClusteredCache<String, String> n : c.nodes) {
        assertEquals("majority", n.getIfPresent("k"), n.nodeName());
        assertEquals("majority", n.getIfPresent("new"), n.nodeName());
      }
      minority.put("k", "after");
      assertEquals("after", c.node(2).getIfPresent("k"));
      assertEquals(1, minority.mergesLost());
      assertEquals(0, c.node(1).mergesLost() + c.node(2).mergesLost());
    }
  }

  /**
   * A write taken by a primary just as it is cut off: its backups never ack, and leave its view
   * when failure detection notices the cut. That must not acknowledge the write, whose only copy is
   * on the side that loses the merge.
   */
  @ParameterizedTest
  @EnumSource(
      value = ClusterMode.class,
      names = {"REPLICATED", "DISTRIBUTED"})
  void aWriteWhosePrimaryIsCutOffMidWriteIsNotAcknowledged(ClusterMode mode) throws Exception {
    try (InProcessCluster c = cluster(mode, 3, b -> {})) {
      ClusteredCache<String, String> minority = c.node(0);
      String key = null;
      for (int i = 0; key == null; i++) {
        key = minority.isLocalPrimary("cut-" + i) ? "cut-" + i : null;
      }
      String k = key;
      List<DISCARD> discards = cut(c, 1);
      // failure detection takes seconds, so this write is applied here in the three-member view
      // and waits for backups that no longer hear it
      assertThrows(
          ClusterDegradedException.class,
          () -> minority.put(k, "cut off"),
          "acknowledged by a primary whose backups left because it was cut off");
      assertEquals(
          "cut off",
          minority.getIfPresent(k),
          "the write raced the split (applied here before the view without the others)");
      assertEquals(1, minority.members().size());
      assertNull(c.node(1).getIfPresent(k), "the majority never had it");
      // heal only once the majority has noticed too, so that the merge is one of two sides
      awaitSplit(c, 1);
      heal(c, discards);
      for (ClusteredCache<String, String> n : c.nodes) {
        assertNull(n.getIfPresent(k), n.nodeName());
      }
    }
  }

  /** The same for invalidateAll: a clear cut off midway is not acknowledged. */
  @Test
  void aClearCutOffMidwayIsNotAcknowledged() throws Exception {
    try (InProcessCluster c = cluster(ClusterMode.REPLICATED, 3, b -> {})) {
      c.node(1).put("k", "v");
      List<DISCARD> discards = cut(c, 1);
      assertThrows(
          ClusterDegradedException.class,
          c.node(0)::invalidateAll,
          "acknowledged by a member whose peers left because it was cut off");
      assertNull(c.node(0).getIfPresent("k"), "the clear raced the split (applied here first)");
      awaitSplit(c, 1);
      heal(c, discards);
      List<String> after = c.nodes.stream().map(n -> n.getIfPresent("k")).toList();
      assertEquals(List.of("v", "v", "v"), after, "every member after the merge");
    }
  }

  @Test
  void minorityReadsOffRefusesReadsToo() throws Exception {
    try (InProcessCluster c = cluster(ClusterMode.REPLICATED, 3, b -> b.minorityReads(false))) {
      c.node(0).put("k", "v");
      split(c, 1);
      assertThrows(ClusterDegradedException.class, () -> c.node(0).getIfPresent("k"));
      assertEquals("v", c.node(1).getIfPresent("k"), "the majority reads");
    }
  }

  @Test
  void anEvenSplitLeavesNoSideAMajorityAndLosesNothing() throws Exception {
    try (InProcessCluster c = cluster(ClusterMode.REPLICATED, 4, b -> {})) {
      c.node(0).put("k", "before");
      List<DISCARD> discards = split(c, 2);
      for (ClusteredCache<String, String> n : c.nodes) {
        assertFalse(n.available(), n.nodeName());
        assertThrows(ClusterDegradedException.class, () -> n.put("k", "split"), n.nodeName());
      }
      heal(c, discards);
      InProcessCluster.await(
          () -> c.nodes.stream().allMatch(ClusteredCache::available), "every member available");
      for (ClusteredCache<String, String> n : c.nodes) {
        assertEquals("before", n.getIfPresent("k"), n.nodeName());
      }
    }
  }

  /**
   * DISTRIBUTED, four members split two and two: neither side is a majority, so neither takes
   * writes, and each lacks the segments whose two owners are on the other side. The merge loses no
   * entry. Before, the side that lost the merge (the allow-all rule: the merged view's
   * coordinator's side won) dropped every entry, and the winner had started the segments only the
   * other side held empty: their keys were gone on every member.
   *
   * <p>Segments lost are counted from just before the split, not from the cluster's start: the four
   * members join one after another without waiting for each other's state transfer, and when a
   * join's view comes before the previous joiner received a segment, the member that gave the
   * segment up has already dropped its copy (a former owner keeps it for one view only), so the
   * joiner starts it empty and counts it lost. That happens before any key is written (about one
   * run in six on a busy host), so it loses nothing here, and it is not what this test is about.
   * Counted over the split and the merge, it still fails if a side without a majority starts the
   * segments it lacks empty (without that side's wait, the second member counts three).
   */
  @Test
  void anEvenDistributedSplitLosesNoSegmentOnlyOneSideHeld() throws Exception {
    int keys = 200;
    try (InProcessCluster c = cluster(ClusterMode.DISTRIBUTED, 4, b -> {})) {
      for (int i = 0; i < keys; i++) {
        c.node(i % 4).put("k" + i, "v" + i);
      }
      long[] lostBefore = new long[c.nodes.size()];
      for (int m = 0; m < lostBefore.length; m++) {
        lostBefore[m] = c.node(m).rebalanceStats().segmentsLost();
      }
      List<DISCARD> discards = split(c, 2);
      for (ClusteredCache<String, String> n : c.nodes) {
        assertFalse(n.available(), n.nodeName());
      }
      heal(c, discards);
      InProcessCluster.await(
          () -> c.nodes.stream().allMatch(ClusteredCache::available), "every member available");
      for (int m = 0; m < lostBefore.length; m++) {
        ClusteredCache<String, String> n = c.node(m);
        for (int i = 0; i < keys; i++) {
          assertEquals("v" + i, n.getIfPresent("k" + i), "k" + i + " via " + n.nodeName());
        }
        assertEquals(
            lostBefore[m],
            n.rebalanceStats().segmentsLost(),
            n.nodeName() + " segments lost by the split and the merge");
      }
    }
  }

  @Test
  void membersThatLeaveOnPurposeStopCounting() {
    try (InProcessCluster c = cluster(ClusterMode.REPLICATED, 3, b -> {})) {
      c.close(2);
      c.awaitMembers(2);
      c.close(1);
      c.awaitMembers(1);
      InProcessCluster.await(() -> c.node(0).available(), "the last member available");
      assertEquals(List.of("n0"), c.node(0).stableMembers());
      c.node(0).put("k", "v");
    }
  }

  /**
   * Each phase lasts until every writer concerned has answered enough writes in it, not for a fixed
   * time: on a loaded host a fixed time could pass with few writes or none (before the cut, the
   * first cluster of a JVM is still being compiled).
   */
  @ParameterizedTest
  @EnumSource(value = PartitionHandling.class)
  void writersOnEveryMemberThroughAPartitionAndMerge(PartitionHandling handling) throws Exception {
    try (InProcessCluster c =
        cluster(ClusterMode.DISTRIBUTED, 3, b -> b.partitionHandling(handling))) {
      Writers writers = new Writers(c);
      writers.start();
      try {
        writers.awaitAcknowledged("before the split", 0, 1, 2);
        List<DISCARD> discards = split(c, 1);
        writers.awaitOutcomes("on the minority", 0);
        writers.awaitAcknowledged("on the majority", 1, 2);
        heal(c, discards);
        InProcessCluster.await(
            () -> c.nodes.stream().allMatch(ClusteredCache::available), "every member available");
        writers.awaitAcknowledged("after the merge", 0, 1, 2);
      } finally {
        writers.stop();
      }
      long lost = writers.lost(c);
      assertTrue(writers.acknowledged.size() > 100, "writes acknowledged");
      if (handling == PartitionHandling.QUORUM) {
        assertEquals(0, lost, "acknowledged writes lost under QUORUM");
        assertTrue(writers.refused.get() > 0, "the minority refused writes");
      } else {
        assertTrue(lost > 0, "ALLOW_ALL loses the minority's acknowledged writes");
        assertEquals(0, writers.refused.get());
      }
    }
  }

  /**
   * One writer per member, each writing new keys of its own, recording the keys whose write was
   * acknowledged (a refused or timed-out write may or may not have happened). A refused writer
   * backs off a millisecond, as a client would, rather than spin on the cores the members need.
   */
  private static final class Writers {
    /** Writes each writer must answer in a phase. */
    private static final int PER_PHASE = 50;

    private static final Duration PHASE_TIMEOUT = Duration.ofSeconds(60);

    private final InProcessCluster c;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong refused = new AtomicLong();
    private final Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    private final AtomicLongArray acknowledgedBy = new AtomicLongArray(3);
    private final AtomicLongArray answeredBy = new AtomicLongArray(3);
    private final ExecutorService pool = Executors.newFixedThreadPool(3);
    private final List<Future<?>> futures = new ArrayList<>();

    Writers(InProcessCluster c) {
      this.c = c;
    }

    void start() {
      for (int w = 0; w < 3; w++) {
        int writer = w;
        futures.add(pool.submit(() -> write(writer)));
      }
    }

    private Void write(int writer) throws InterruptedException {
      ClusteredCache<String, String> node = c.node(writer);
      for (long v = 1; running.get(); v++) {
        String key = "w" + writer + "-" + v;
        try {
          node.put(key, key);
          acknowledged.add(key);
          acknowledgedBy.incrementAndGet(writer);
        } catch (ClusterDegradedException e) {
          refused.incrementAndGet();
          Thread.sleep(1);
        } catch (ClusterTimeoutException e) {
          // not acknowledged: either outcome is allowed
        }
        answeredBy.incrementAndGet(writer);
      }
      return null;
    }

    /** Waits until each of {@code writers} has had {@link #PER_PHASE} more writes acknowledged. */
    void awaitAcknowledged(String when, int... writers) throws Exception {
      awaitMore(acknowledgedBy, PER_PHASE + " writes acknowledged " + when, writers);
    }

    /** Waits until each of {@code writers} has had {@link #PER_PHASE} more writes answered. */
    void awaitOutcomes(String where, int... writers) throws Exception {
      awaitMore(answeredBy, PER_PHASE + " writes answered " + where, writers);
    }

    private void awaitMore(AtomicLongArray counts, String what, int... writers) throws Exception {
      long[] from = new long[writers.length];
      for (int w = 0; w < writers.length; w++) {
        from[w] = counts.get(writers[w]);
      }
      Await.until(
          what,
          PHASE_TIMEOUT,
          () -> {
            for (int w = 0; w < writers.length; w++) {
              if (counts.get(writers[w]) < from[w] + PER_PHASE) {
                return false;
              }
            }
            return true;
          });
      // a writer that failed (anything but a refusal or a timeout) fails the test here
      for (Future<?> f : futures) {
        if (f.isDone()) {
          f.get();
        }
      }
    }

    void stop() throws Exception {
      running.set(false);
      try {
        for (Future<?> f : futures) {
          f.get(30, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
    }

    /**
     * Returns acknowledged keys that some member does not read back. The keys are read from several
     * threads at once: most reads are remote (a distributed member holds a third of the keys as
     * primary), and one at a time they took seconds for a few thousand keys.
     */
    long lost(InProcessCluster c) throws Exception {
      List<String> keys = List.copyOf(acknowledged);
      int readers = 8;
      ExecutorService readPool = Executors.newFixedThreadPool(readers);
      try {
        List<Future<Long>> counts = new ArrayList<>();
        for (int r = 0; r < readers; r++) {
          int first = r;
          counts.add(readPool.submit(() -> lost(c, keys, first, readers)));
        }
        long lost = 0;
        for (Future<Long> count : counts) {
          lost += count.get(60, TimeUnit.SECONDS);
        }
        return lost;
      } finally {
        readPool.shutdownNow();
      }
    }

    /** Counts the lost keys among every {@code step}th of {@code keys} from {@code first}. */
    private static long lost(InProcessCluster c, List<String> keys, int first, int step) {
      long lost = 0;
      for (int i = first; i < keys.size(); i += step) {
        String key = keys.get(i);
        for (ClusteredCache<String, String> n : c.nodes) {
          if (!key.equals(n.getIfPresent(key))) {
            lost++;
            break;
          }
        }
      }
      return lost;
    }
  }

  @Test
  void asyncCachesDefaultToAllowAll() {
    assertEquals(
        PartitionHandling.ALLOW_ALL,
        ClusterConfig.builder().replication(Replication.ASYNC).build().partitionHandling());
    assertNull(ClusterConfig.builder().build().partitioner());
  }
}
