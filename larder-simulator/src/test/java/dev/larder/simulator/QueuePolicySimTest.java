package dev.larder.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.bench.hitratio.Bound;
import dev.larder.bench.hitratio.LruContender;
import dev.larder.bench.hitratio.Trace;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class QueuePolicySimTest {

  @Test
  void theBreakdownCountsExactlyTheRequestsLruHits() {
    Random random = new Random(7);
    long[] keys = new long[20_000];
    for (int i = 0; i < keys.length; i++) {
      // skewed, so that every capacity below sees both hits and misses
      keys[i] = (long) (Math.pow(random.nextDouble(), 3) * 3_000);
    }
    int[] weights = new int[keys.length];
    Arrays.fill(weights, 1);
    Trace trace = new Trace("skewed", keys, weights);
    for (long capacity : new long[] {1, 10, 100, 1_000, 5_000}) {
      QueuePolicySim.Breakdown breakdown = new QueuePolicySim.Breakdown(trace.denseIds(), capacity);
      for (int i = 0; i < keys.length; i++) {
        breakdown.record(i, false, (byte) 0);
      }
      assertEquals(
          new LruContender().replay(trace, Bound.entries(capacity), 0).hits(),
          breakdown.lruHits(),
          "capacity " + capacity);
    }
  }
}
