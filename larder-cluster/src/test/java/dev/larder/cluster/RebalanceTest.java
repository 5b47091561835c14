package dev.larder.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Joins and leaves while a writer keeps writing: the joiner receives its segments, leavers' copies
 * are restored, every acknowledged write stays readable everywhere, and each member's memory bound
 * holds.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RebalanceTest {

  private static final int KEYS = 2000;

  /** Writes key i%KEYS = counter, recording each acknowledged value, until stopped. */
  private static Thread writer(
      ClusteredCache<String, String> node,
      Map<String, String> acked,
      AtomicBoolean stop,
      AtomicReference<Throwable> failure) {
    Thread t =
        new Thread(
            () -> {
              try {
                for (int i = 0; !stop.get(); i++) {
                  String k = "k" + (i % KEYS);
                  String v = "w" + i;
                  node.put(k, v);
                  acked.put(k, v);
                }
              } catch (Throwable e) {
                failure.set(e);
              }
            });
    t.start();
    return t;
  }

  private static void assertAllReadable(InProcessCluster c, Map<String, String> acked) {
    for (ClusteredCache<String, String> n : c.live()) {
      for (Map.Entry<String, String> e : acked.entrySet()) {
        assertEquals(
            e.getValue(),
            n.getIfPresent(e.getKey()),
            "key " + e.getKey() + " read on " + n.nodeName());
      }
    }
  }

  @Test
  void distributedJoinAndLeaveUnderWritesLoseNothing() throws Exception {
    try (InProcessCluster c = new InProcessCluster(ClusterMode.DISTRIBUTED, Replication.SYNC, 3)) {
      Map<String, String> acked = new ConcurrentHashMap<>();
      for (int i = 0; i < KEYS; i++) {
        c.node(0).put("k" + i, "init" + i);
        acked.put("k" + i, "init" + i);
      }
      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread w = writer(c.node(1), acked, stop, failure);
      ClusteredCache<String, String> joiner = c.add();
      c.awaitMembers(4);
      c.awaitRebalanced();
      RebalanceStats joined = joiner.rebalanceStats();
      assertTrue(joined.segmentsReceived() > 0, joined.toString());
      assertTrue(joined.bytesReceived() > 0, joined.toString());
      assertEquals(joined.lastSegments(), joined.segmentsReceived(), joined.toString());
      assertEquals(0, joined.segmentsLost(), joined.toString());
      c.close(0);
      c.awaitMembers(3);
      c.awaitRebalanced();
      stopWriter(stop, w, failure);
      assertAllReadable(c, acked);
      long stored = c.live().stream().mapToLong(ClusteredCache::localEntryCount).sum();
      assertEquals(2L * KEYS, stored, "owners(2) copies of every key, after the leave");
      assertEquals(KEYS, c.node(2).estimatedSize());
    }
  }

  @Test
  void replicatedJoinerReceivesEverything() {
    try (InProcessCluster c = new InProcessCluster(ClusterMode.REPLICATED, Replication.SYNC, 2)) {
      for (int i = 0; i < KEYS; i++) {
        c.node(i % 2).put("k" + i, "v" + i);
      }
      ClusteredCache<String, String> joiner = c.add();
      c.awaitMembers(3);
      c.awaitRebalanced();
      assertEquals(KEYS, joiner.localEntryCount());
      assertEquals(64, joiner.rebalanceStats().segmentsReceived());
      assertEquals("v7", joiner.getIfPresent("k7"));
    }
  }

  /**
   * Enough state for many chunks (about 24 of 256 KiB, more than the joiner keeps unapplied at
   * once, so chunks are applied by several threads and delivery waits for them), while a writer
   * overwrites some keys: the joiner ends with every key, each at its last acknowledged value.
   */
  @Test
  void replicatedJoinerReceivesManyChunksUnderWrites() throws Exception {
    int keys = 6000;
    String pad = "x".repeat(1000);
    try (InProcessCluster c = new InProcessCluster(ClusterMode.REPLICATED, Replication.SYNC, 2)) {
      Map<String, String> acked = new ConcurrentHashMap<>();
      for (int i = 0; i < keys; i++) {
        c.node(i % 2).put("k" + i, pad + i);
        acked.put("k" + i, pad + i);
      }
      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread w =
          new Thread(
              () -> {
                try {
                  for (int i = 0; !stop.get() && i < 1_000_000; i++) {
                    String k = "k" + (i * 7 % 500); // at most 500 live keys: most entries travel
                    String v = pad + "w" + i;
                    c.node(1).put(k, v);
                    acked.put(k, v);
                  }
                } catch (Throwable e) {
                  failure.set(e);
                }
              });
      w.start();
      ClusteredCache<String, String> joiner = c.add();
      c.awaitMembers(3);
      c.awaitRebalanced();
      stopWriter(stop, w, failure);
      assertTrue(
          joiner.rebalanceStats().lastBytes() > 2L << 20, joiner.rebalanceStats().toString());
      assertEquals(keys, joiner.localEntryCount());
      assertAllReadable(c, acked);
    }
  }

  @Test
  void aMemberThatCannotTakeItsShareSaysSoAndKeepsItsBound() {
    long big = 8L << 20;
    long small = 1L << 20;
    try (InProcessCluster c =
        new InProcessCluster(ClusterMode.REPLICATED, Replication.SYNC, 1, big)) {
      String value = "x".repeat(1000);
      for (int i = 0; i < 3000; i++) {
        c.node(0).put("k" + i, value);
      }
      ClusteredCache<String, String> joiner = c.add(small);
      c.awaitMembers(2);
      c.awaitRebalanced();
      RebalanceStats stats = joiner.rebalanceStats();
      assertTrue(stats.shortfallBytes() > 0, stats.toString());
      assertTrue(joiner.memoryUsed() <= small, joiner.memoryUsed() + " > " + small);
      assertTrue(joiner.localEntryCount() < 3000);
    }
  }

  private static void stopWriter(
      AtomicBoolean stop, Thread writer, AtomicReference<Throwable> failure)
      throws InterruptedException {
    stop.set(true);
    writer.join();
    if (failure.get() != null) {
      throw new AssertionError("the writer failed", failure.get());
    }
  }
}
