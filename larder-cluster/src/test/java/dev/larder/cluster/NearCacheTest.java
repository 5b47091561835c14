package dev.larder.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The near cache of non-owned keys in distributed mode, 3 members in one JVM. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NearCacheTest {

  private static String keyNotOwnedBy(ClusteredCache<String, String> node) {
    for (int i = 0; ; i++) {
      if (!node.isLocalOwner("key" + i)) {
        return "key" + i;
      }
    }
  }

  @Test
  void aNonOwnerKeepsACopyUntilTheOwnersWriteInvalidatesIt() {
    try (InProcessCluster c =
        new InProcessCluster(
            ClusterMode.DISTRIBUTED, Replication.SYNC, 3, -1, 1, b -> b.nearCache(100))) {
      ClusteredCache<String, String> reader = c.node(0);
      String k = keyNotOwnedBy(reader);
      c.node(1).put(k, "v1");
      assertEquals("v1", reader.get(k));
      assertEquals(1, reader.nearStats().entries(), "the reply was kept");
      assertEquals("v1", reader.get(k));
      assertEquals(1, reader.nearStats().hits());
      c.node(2).put(k, "v2");
      assertEquals(0, reader.nearStats().entries(), "the owner's write dropped the copy");
      assertEquals("v2", reader.get(k));
      c.node(1).remove(k);
      assertNull(reader.get(k));
      assertEquals(0, reader.nearStats().entries(), "absent keys are not kept");
      String owned = null;
      for (int i = 0; owned == null; i++) {
        owned = reader.isLocalOwner("own" + i) ? "own" + i : null;
      }
      reader.put(owned, "x");
      assertEquals("x", reader.get(owned));
      assertEquals(0, reader.nearStats().entries(), "owned keys are read from the store");
      assertTrue(reader.nearStats().memoryUsed() > 0);
    }
  }

  @Test
  void nearCacheNeedsDistributedMode() {
    assertThrows(
        IllegalArgumentException.class,
        () ->
            ClusteredCache.builder(String.class, String.class)
                .nearCache(10)
                .cluster(
                    ClusterConfig.builder()
                        .stack(Stacks.IN_PROCESS)
                        .mode(ClusterMode.REPLICATED)
                        .build())
                .build());
  }

  /**
   * Writers on every member (one per key, increasing versions), readers on every member, and a
   * member joining half way. Every read must return at least the version last acknowledged to its
   * writer before the read started, and never a version not yet written.
   */
  @Test
  void noReadIsOlderThanAnAcknowledgedWriteUnderConcurrentWritersAndAJoin() throws Exception {
    int keys = 24;
    int rounds = 120;
    AtomicLongArray issued = new AtomicLongArray(keys);
    AtomicLongArray acked = new AtomicLongArray(keys);
    ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    AtomicBoolean writing = new AtomicBoolean(true);
    CountDownLatch halfway = new CountDownLatch(3);
    try (InProcessCluster c =
        new InProcessCluster(
            ClusterMode.DISTRIBUTED, Replication.SYNC, 3, -1, 1, b -> b.nearCache(keys))) {
      List<Thread> threads = new ArrayList<>();
      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < 3; w++) {
        ClusteredCache<String, String> node = c.node(w);
        int mine = w;
        writers.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      try {
                        for (int r = 1; r <= rounds; r++) {
                          for (int k = mine; k < keys; k += 3) {
                            issued.set(k, r);
                            node.put("k" + k, Integer.toString(r));
                            acked.set(k, r);
                          }
                          if (r == rounds / 2) {
                            halfway.countDown();
                          }
                        }
                      } catch (Throwable e) {
                        errors.add(e);
                        halfway.countDown();
                      }
                    }));
      }
      for (int m = 0; m < 3; m++) {
        for (int t = 0; t < 2; t++) {
          ClusteredCache<String, String> node = c.node(m);
          threads.add(
              Thread.ofPlatform()
                  .start(
                      () -> {
                        ThreadLocalRandom rnd = ThreadLocalRandom.current();
                        try {
                          for (int n = 0; n < 500_000 && writing.get(); n++) {
                            int k = rnd.nextInt(keys);
                            long floor = acked.get(k);
                            String v = node.get("k" + k);
                            long got = v == null ? 0 : Long.parseLong(v);
                            long ceiling = issued.get(k);
                            if (got < floor || got > ceiling) {
                              violations.add(
                                  node.nodeName()
                                      + " read k"
                                      + k
                                      + "="
                                      + got
                                      + ", acknowledged "
                                      + floor
                                      + ", issued "
                                      + ceiling);
                            }
                          }
                        } catch (Throwable e) {
                          errors.add(e);
                        }
                      }));
        }
      }
      assertTrue(halfway.await(60, TimeUnit.SECONDS), "writers reached half way");
      c.add();
      for (Thread w : writers) {
        w.join(TimeUnit.SECONDS.toMillis(90));
      }
      writing.set(false);
      for (Thread t : threads) {
        t.join(TimeUnit.SECONDS.toMillis(30));
      }
      assertTrue(errors.isEmpty(), () -> "failures: " + errors);
      assertTrue(
          violations.isEmpty(),
          () ->
              violations.size()
                  + " stale or invented reads, "
                  + "first: "
                  + List.copyOf(violations).subList(0, Math.min(5, violations.size())));
      c.awaitMembers(4);
      long hits = 0;
      long invalidations = 0;
      for (ClusteredCache<String, String> node : c.nodes) {
        hits += node.nearStats().hits();
        invalidations += node.nearStats().invalidations();
        for (int k = 0; k < keys; k++) {
          assertEquals(Long.toString(acked.get(k)), node.get("k" + k), node.nodeName());
        }
        assertTrue(node.nearStats().entries() <= keys, "the near cache keeps its bound");
      }
      assertTrue(hits > 0, "reads were answered by near caches");
      assertTrue(invalidations > 0, "writes invalidated near copies");
    }
  }
}
