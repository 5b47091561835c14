package dev.larder.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The sketch's history follows admission's regrets (docs/design/eviction.md). */
class SketchHistoryAdaptationTest {

  private static final int ENTRIES = 1000;

  private final FrequencySketch sketch = new FrequencySketch(ENTRIES, 16);
  private final EvictionPolicy policy =
      new EvictionPolicy(
          sketch,
          new GhostTable(ENTRIES, 8),
          new AdmissionSample(ENTRIES),
          new PageQueue("window"),
          new PageQueue("main"));

  /**
   * Plays one adaptation period: {@code rejected} candidates rejected, of which {@code
   * rejectedBack} come back, and {@code evicted} main entries evicted, of which {@code evictedBack}
   * come back.
   */
  private void period(int rejected, int rejectedBack, int evicted, int evictedBack) {
    long key = 1;
    for (int i = 0; i < rejected; i++, key++) {
      policy.onRejected(hashOf(key));
      if (i < rejectedBack) {
        policy.onInsert(hashOf(key));
      }
    }
    for (int i = 0; i < evicted; i++, key++) {
      policy.onEvicted(hashOf(key + 1_000_000));
      if (i < evictedBack) {
        policy.onInsert(hashOf(key + 1_000_000));
      }
    }
    for (int i = 0; i < EvictionPolicy.PERIOD * ENTRIES; i++) {
      policy.recordAccess(hashOf(i));
    }
    policy.adapt(ENTRIES, ENTRIES, 1, 0, 0);
  }

  private static long hashOf(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return h ^ (h >>> 31);
  }

  @Test
  void rejectedCandidatesThatComeBackShortenTheHistoryDownToItsMinimum() {
    double start = sketch.agingFactor();
    period(100, 60, 100, 5);
    assertTrue(sketch.agingFactor() < start, "history " + sketch.agingFactor());
    for (int i = 0; i < 20; i++) {
      period(100, 60, 100, 5);
    }
    assertEquals(FrequencySketch.MIN_AGING, sketch.agingFactor());
  }

  @Test
  void displacedVictimsThatComeBackLengthenTheHistoryUpToItsMaximum() {
    double start = sketch.agingFactor();
    period(100, 5, 100, 60);
    assertTrue(sketch.agingFactor() > start, "history " + sketch.agingFactor());
    for (int i = 0; i < 20; i++) {
      period(100, 5, 100, 60);
    }
    assertEquals(FrequencySketch.MAX_AGING, sketch.agingFactor());
  }

  @Test
  void equalReturnRatesLeaveTheHistoryAlone() {
    double start = sketch.agingFactor();
    // a loop: every rejected and every evicted key comes back; twice as many rejections
    period(200, 200, 100, 100);
    period(200, 0, 100, 0);
    assertEquals(start, sketch.agingFactor());
  }
}
