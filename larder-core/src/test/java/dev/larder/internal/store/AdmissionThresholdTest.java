package dev.larder.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Admission's threshold follows its regrets (docs/design/eviction.md). */
class AdmissionThresholdTest {

  private static final int ENTRIES = 1000;
  /** Keys of the admission checks, far from those the periods use. */
  private static final long CANDIDATE = 50_000_000;
  private static final long VICTIM = 60_000_000;

  private final FrequencySketch sketch = new FrequencySketch(ENTRIES, 16);
  private final EvictionPolicy policy =
      new EvictionPolicy(sketch, ENTRIES, new PageQueue("window"), new PageQueue("main"));
  private long nextKey = 1;

  /**
   * Plays one adaptation period: {@code rejected} candidates rejected, of which
   * {@code rejectedBack} come back, and {@code evicted} main entries evicted, of which
   * {@code evictedBack} come back.
   */
  private void period(int rejected, int rejectedBack, int evicted, int evictedBack) {
    for (int i = 0; i < rejected; i++, nextKey++) {
      policy.onRejected(hashOf(nextKey));
      if (i < rejectedBack) {
        policy.onInsert(hashOf(nextKey));
      }
    }
    for (int i = 0; i < evicted; i++, nextKey++) {
      policy.onEvicted(hashOf(nextKey));
      if (i < evictedBack) {
        policy.onInsert(hashOf(nextKey));
      }
    }
    for (int i = 0; i < EvictionPolicy.PERIOD * ENTRIES; i++) {
      policy.recordAccess(hashOf(10_000_000 + i));
    }
    policy.adapt(ENTRIES, ENTRIES, 1);
  }

  private static long hashOf(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return h ^ (h >>> 31);
  }

  /** @return whether a candidate seen {@code candidate} times beats a victim seen {@code victim} */
  private boolean admits(int candidate, int victim, int clock) {
    long candidateHash = hashOf(CANDIDATE + nextKey);
    long victimHash = hashOf(VICTIM + nextKey);
    nextKey++;
    for (int i = 0; i < candidate; i++) {
      sketch.increment(candidateHash);
    }
    for (int i = 0; i < victim; i++) {
      sketch.increment(victimHash);
    }
    assertEquals(candidate, sketch.frequency(candidateHash), "sketch collision in the test");
    assertEquals(victim, sketch.frequency(victimHash), "sketch collision in the test");
    return policy.admit(candidateHash, clock, victimHash, true);
  }

  @Test
  void startsCautiousButWithTheFreePass() {
    assertEquals(1, policy.admissionThreshold());
    assertFalse(policy.strictAdmission());
    assertFalse(admits(3, 2, 0), "one count more is not enough at first");
    assertTrue(admits(4, 2, 0));
    assertTrue(admits(0, 5, 1), "read in the window: free pass");
    assertTrue(policy.admit(hashOf(CANDIDATE), 0, hashOf(VICTIM), false), "no victim");
  }

  @Test
  void rejectedCandidatesThatComeBackLowerTheThreshold() {
    period(100, 60, 100, 5);
    assertEquals(0, policy.admissionThreshold());
    assertFalse(policy.strictAdmission());
    assertTrue(admits(3, 2, 0));
    assertFalse(admits(2, 2, 0), "ties still go to the incumbent");
    assertTrue(admits(0, 5, 1));
  }

  @Test
  void displacedVictimsThatComeBackRaiseItAndTakeTheFreePassAway() {
    period(100, 60, 100, 5);
    period(100, 5, 100, 60);
    assertEquals(1, policy.admissionThreshold());
    assertTrue(policy.strictAdmission());
    assertFalse(admits(3, 2, 0));
    assertFalse(admits(2, 2, 3), "read in the window, but it must compete");
    assertTrue(admits(4, 2, 1));
  }

  @Test
  void waitsForEnoughEvidenceAccumulatedOverPeriods() {
    int needed = EvictionPolicy.THRESHOLD_EVIDENCE;
    period(100, 60, needed / 2, 0);
    assertEquals(1, policy.admissionThreshold(), "too few evictions yet");
    period(100, 60, needed / 2, 0);
    assertEquals(0, policy.admissionThreshold(), "enough once accumulated");
  }

  @Test
  void aDifferenceWithinTheNoiseLeavesItAlone() {
    // 5 of 32 against 3 of 32: a ratio of 1.7, but less than a standard error apart
    period(32, 5, 32, 3);
    assertEquals(1, policy.admissionThreshold());
    // the same rates over ten times as many events are a clear difference
    period(320, 50, 320, 30);
    assertEquals(0, policy.admissionThreshold());
  }

  @Test
  void equalReturnRatesLeaveItAlone() {
    period(200, 200, 100, 100);
    period(200, 0, 100, 0);
    assertEquals(1, policy.admissionThreshold());
    assertFalse(policy.strictAdmission());
  }
}
