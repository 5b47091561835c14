package dev.larder;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The adaptive window, through the real cache: a recency workload (every key requested twice,
 * the second time soon after the first, as in Corda's vault trace) needs a window far larger
 * than the initial 1%, and a loop slightly larger than the cache needs main kept stable. A
 * fixed policy gets one of the two wrong, and an adaptive one must get the loop right after
 * the recency workload too.
 */
class WindowAdaptationTest {

  private static boolean access(Cache<Long, Long> cache, long key) {
    if (cache.getIfPresent(key) != null) {
      return true;
    }
    cache.put(key, key);
    return false;
  }

  /**
   * Requests of a recency workload: each new key comes back once, 0-399 requests later, so LRU
   * hits every return.
   *
   * @return the hits among the requests from {@code counted} on
   */
  private static int recencyPhase(Cache<Long, Long> cache, int requests, int counted) {
    SplittableRandom random = new SplittableRandom(11);
    long next = 0;
    long[] pending = new long[400];
    int hits = 0;
    for (int i = 0; i < requests; i++) {
      int slot = random.nextInt(pending.length);
      long key = pending[slot];
      if (key == 0) {
        key = ++next;
        pending[slot] = key;
      } else {
        pending[slot] = 0;
      }
      boolean hit = access(cache, key);
      hits += i >= counted && hit ? 1 : 0;
    }
    return hits;
  }

  /**
   * 50 rounds of a loop over 1,100 keys (from {@code first} on), 10% more than the cache holds.
   *
   * @return the hit ratio of the last 25 rounds
   */
  private static double loopPhase(Cache<Long, Long> cache, long first) {
    int hits = 0;
    for (int round = 0; round < 50; round++) {
      for (long key = first; key < first + 1100; key++) {
        boolean hit = access(cache, key);
        hits += round >= 25 && hit ? 1 : 0;
      }
    }
    return hits / (25.0 * 1100);
  }

  private static Cache<Long, Long> thousandEntries() {
    return Cache.builder(Long.class, Long.class).executor(Runnable::run).maximumEntries(1000)
        .build();
  }

  @Test
  void recencyWorkloadGrowsTheWindowToLruHitRatio() {
    try (Cache<Long, Long> cache = thousandEntries()) {
      double ratio = recencyPhase(cache, 200_000, 100_000) / 100_000.0;
      assertTrue(ratio > 0.30, "hit ratio " + ratio);
    }
  }

  @Test
  void loopLargerThanTheCacheKeepsMainStable() {
    try (Cache<Long, Long> cache = thousandEntries()) {
      double ratio = loopPhase(cache, 0);
      assertTrue(ratio > 0.8, "hit ratio " + ratio);
    }
  }

  @Test
  void aLoopAfterARecencyPhaseTakesTheWindowBackDown() {
    try (Cache<Long, Long> cache = thousandEntries()) {
      recencyPhase(cache, 100_000, 0);
      // the loop's keys are not the recency phase's
      double ratio = loopPhase(cache, 10_000_000);
      assertTrue(ratio > 0.8, "hit ratio " + ratio);
    }
  }
}
