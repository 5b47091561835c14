package dev.larder;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The adaptive window, through the real cache: a recency workload (every key requested twice,
 * the second time soon after the first, as in Corda's vault trace) needs a window far larger
 * than the initial 1%, and a loop slightly larger than the cache needs main kept stable. A
 * fixed policy gets one of the two wrong.
 */
class WindowAdaptationTest {

  private static boolean access(Cache<Long, Long> cache, long key) {
    if (cache.getIfPresent(key) != null) {
      return true;
    }
    cache.put(key, key);
    return false;
  }

  @Test
  void recencyWorkloadGrowsTheWindowToLruHitRatio() {
    SplittableRandom random = new SplittableRandom(11);
    try (Cache<Long, Long> cache = Cache.builder(Long.class, Long.class)
        .executor(Runnable::run).maximumEntries(1000).build()) {
      long next = 0;
      long[] pending = new long[400];
      int hits = 0;
      int requests = 0;
      for (int i = 0; i < 200_000; i++) {
        // each new key comes back once, 0-399 requests later: LRU hits every return
        int slot = random.nextInt(pending.length);
        long key = pending[slot];
        if (key == 0) {
          key = ++next;
          pending[slot] = key;
        } else {
          pending[slot] = 0;
        }
        boolean hit = access(cache, key);
        if (i >= 100_000) {
          requests++;
          hits += hit ? 1 : 0;
        }
      }
      double ratio = (double) hits / requests;
      assertTrue(ratio > 0.30, "hit ratio " + ratio);
    }
  }

  @Test
  void loopLargerThanTheCacheKeepsMainStable() {
    try (Cache<Long, Long> cache = Cache.builder(Long.class, Long.class)
        .executor(Runnable::run).maximumEntries(1000).build()) {
      int hits = 0;
      for (int round = 0; round < 50; round++) {
        for (long key = 0; key < 1100; key++) {
          boolean hit = access(cache, key);
          hits += round >= 25 && hit ? 1 : 0;
        }
      }
      double ratio = hits / (25.0 * 1100);
      assertTrue(ratio > 0.8, "hit ratio " + ratio);
    }
  }
}
