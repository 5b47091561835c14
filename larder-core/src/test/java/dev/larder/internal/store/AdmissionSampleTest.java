package dev.larder.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The sample of marginal admissions that admission follows through probation. */
class AdmissionSampleTest {

  private static long hashOf(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return h ^ (h >>> 31);
  }

  @Test
  void aSampledKeyIsResolvedOnce() {
    AdmissionSample sample = new AdmissionSample(1000);
    sample.add(hashOf(1));
    assertFalse(sample.remove(hashOf(2)), "never sampled");
    assertTrue(sample.remove(hashOf(1)));
    assertFalse(sample.remove(hashOf(1)), "already resolved");
    assertEquals(0, sample.size());
  }

  @Test
  void aLaterKeyNeverTakesASampledKeysSlot() {
    AdmissionSample sample = new AdmissionSample(16); // the minimum: 16 slots
    for (long key = 0; key < 1000; key++) {
      sample.add(hashOf(key));
    }
    assertEquals(16, sample.size(), "every slot taken once");
    int resolved = 0;
    for (long key = 0; key < 1000; key++) {
      resolved += sample.remove(hashOf(key)) ? 1 : 0;
    }
    assertEquals(16, resolved, "the keys that took the slots are all still there");
  }

  @Test
  void aPeriodEndForgetsOnlyASampleThatStoppedResolving() {
    AdmissionSample sample = new AdmissionSample(16);
    for (long key = 0; key < 1000; key++) {
      sample.add(hashOf(key));
    }
    sample.endPeriod();
    assertEquals(0, sample.size(), "full, and nothing left probation in the period: forgotten");
    for (long key = 0; key < 1000; key++) {
      sample.add(hashOf(key));
    }
    boolean resolvedOne = false;
    for (long key = 0; key < 1000 && !resolvedOne; key++) {
      resolvedOne = sample.remove(hashOf(key));
    }
    sample.endPeriod();
    assertEquals(15, sample.size(), "a key resolved in the period: the rest are kept");
    sample.endPeriod();
    assertEquals(0, sample.size(), "a period with no resolution at all: forgotten");
  }

  @Test
  void growsWithTheSegmentWithinItsLimits() {
    AdmissionSample sample = new AdmissionSample(16);
    assertEquals(16 + 4 * 16, sample.bytes());
    assertEquals(4 * (512 - 16), sample.growthFor(1_000_000), "at most 512 slots");
    assertEquals(0, sample.growthFor(100), "16 slots until 256 entries");
    assertEquals(0, sample.growthFor(500), "31 slots are not twice 16: no growth yet");
    assertEquals(4 * (40 - 16), sample.growthFor(640), "40 slots are");
    sample.add(hashOf(1));
    sample.ensureCapacity(1_000_000);
    assertEquals(16 + 4 * 512, sample.bytes());
    assertEquals(0, sample.size(), "growing forgets");
  }
}
