package dev.larder.bench.hitratio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ContenderTest {

  private static Trace trace(long... keys) {
    int[] weights = new int[keys.length];
    Arrays.fill(weights, 1);
    return new Trace("t", keys, weights);
  }

  @Test
  void lruOnALoopLargerThanTheCacheNeverHits() {
    long[] keys = new long[300];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = i % 3;
    }
    assertEquals(0, new LruContender().replay(trace(keys), Bound.entries(2), 0).hits());
    assertEquals(297, new LruContender().replay(trace(keys), Bound.entries(3), 0).hits());
  }

  @Test
  void optimalMatchesTheTextbookExample() {
    // 7 0 1 2 0 3 0 4 2 3 0 3 2 1 2 0 1 7 0 1 with 3 frames: MIN has 9 faults (11 hits)
    // without bypass; bypass cannot do worse.
    Trace trace = trace(7, 0, 1, 2, 0, 3, 0, 4, 2, 3, 0, 3, 2, 1, 2, 0, 1, 7, 0, 1);
    assertTrue(new OptimalContender().replay(trace, Bound.entries(3), 0).hits() >= 11);
  }

  @Test
  void optimalIsAnUpperBoundOfTheOthers() {
    SplittableRandom random = new SplittableRandom(7);
    long[] keys = new long[20_000];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = (long) (Math.pow(random.nextDouble(), 3) * 2000);
    }
    Trace trace = trace(keys);
    for (int size : new int[] {10, 100, 500}) {
      long optimal = new OptimalContender().replay(trace, Bound.entries(size), 0).hits();
      assertTrue(optimal >= new LruContender().replay(trace, Bound.entries(size), 0).hits());
      assertTrue(optimal >= new CaffeineContender().replay(trace, Bound.entries(size), 0).hits());
    }
  }

  @Test
  void lruBoundedByBytesKeepsTheWeightUnderTheBound() {
    Trace trace = new Trace("t", new long[] {1, 2, 3, 1, 2, 3}, new int[] {4, 4, 4, 4, 4, 4});
    // 8 bytes hold two of the three 4-byte objects: a cycle of three never hits under LRU
    assertEquals(0, new LruContender().replay(trace, Bound.ofBytes(8), 0).hits());
    assertEquals(3, new LruContender().replay(trace, Bound.ofBytes(12), 0).hits());
  }

  @Test
  void larderReportsThePayloadItHoldsUnderAByteBound() {
    // 40 distinct objects of 1-20 KB, requested twice: about 400 KB, all within a 1 MiB bound
    int n = 40;
    long[] keys = new long[2 * n];
    int[] sizes = new int[2 * n];
    long distinctBytes = 0;
    for (int i = 0; i < 2 * n; i++) {
      keys[i] = i % n;
      sizes[i] = 1000 + (i % n) * 500;
      if (i < n) {
        distinctBytes += sizes[i];
      }
    }
    Outcome outcome =
        new LarderContender().replay(new Trace("t", keys, sizes), Bound.ofBytes(1 << 20), 0);
    assertEquals(n, outcome.hits());
    assertEquals(distinctBytes, outcome.heldBytes());
    assertEquals(
        -1,
        new LarderContender().replay(trace(1, 2, 1), Bound.entries(2), 0).heldBytes(),
        "entry bounds do not report it");
  }
}
