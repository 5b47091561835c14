package dev.larder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codecs;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A segment's keys are copied in steps, the segment's lock released between them (so that writers
 * are not stopped for a whole walk), and its index may be grown or rebuilt between two steps. The
 * map view's iteration must still return every key present throughout exactly once, while another
 * thread inserts and removes other keys fast enough to grow the indexes and purge their tombstones
 * during the walks.
 */
class MapViewWalkUnderWritesTest {

  private static final int PRESENT = 30_000;
  private static final long CHURN_FROM = 1L << 40;

  @Test
  @Timeout(120)
  void everyKeyPresentThroughoutIsWalkedOnce() throws Exception {
    try (Cache<Long, Long> cache =
        Cache.builder(Codecs.longs(), Codecs.longs()).unbounded().segments(1).build()) {
      for (long k = 0; k < PRESENT; k++) {
        cache.put(k, k);
      }
      AtomicBoolean stop = new AtomicBoolean();
      ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
      Thread churn =
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      for (long k = CHURN_FROM; !stop.get(); k++) {
                        cache.put(k, k);
                        if (k - CHURN_FROM >= PRESENT / 2) {
                          cache.remove(k - PRESENT / 2);
                        }
                      }
                    } catch (Throwable t) {
                      failures.add(t);
                    }
                  });
      try {
        for (int walk = 0; walk < 4 && failures.isEmpty(); walk++) {
          int[] seen = new int[PRESENT];
          for (Long key : cache.asMap().keySet()) {
            if (key < PRESENT) {
              seen[key.intValue()]++;
            } else {
              assertTrue(key >= CHURN_FROM, "a key never written: " + key);
            }
          }
          for (int k = 0; k < PRESENT; k++) {
            assertEquals(1, seen[k], "walk " + walk + ": key " + k + " seen " + seen[k] + " times");
          }
        }
      } finally {
        stop.set(true);
        churn.join();
      }
      assertTrue(failures.isEmpty(), () -> "the writer failed: " + failures.peek());
    }
  }
}
