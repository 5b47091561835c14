package dev.larder.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Admission's threshold follows the regrets of the decisions it changes
 * (docs/design/eviction.md). The tests play decisions as the segment makes them: ask
 * {@code admit}, then report the rejected candidate or the displaced victim, and let some of
 * those ghosts come back.
 */
class AdmissionThresholdTest {

  private static final int ENTRIES = 1000;

  private final FrequencySketch sketch = new FrequencySketch(ENTRIES, 16);
  private final EvictionPolicy policy =
      new EvictionPolicy(sketch, new GhostTable(ENTRIES, 8), new PageQueue("window"),
          new PageQueue("main"));
  private long nextKey = 1;

  private static long hashOf(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return h ^ (h >>> 31);
  }

  /**
   * @return a key the sketch has seen {@code count} times, skipping keys whose estimate a
   *     collision already raised
   */
  private long keySeen(int count) {
    while (true) {
      long hash = hashOf(nextKey++);
      if (sketch.frequency(hash) != 0) {
        continue;
      }
      for (int i = 0; i < count; i++) {
        sketch.increment(hash);
      }
      if (sketch.frequency(hash) == count) {
        return hash;
      }
    }
  }

  /**
   * Plays {@code n} decisions on candidates seen {@code candidateCount} times (read in the
   * window if {@code clock > 0}) against fresh victims; {@code back} of the ghosts they leave
   * (the rejected candidate, or the displaced victim) come back.
   */
  private void decisions(int n, int back, int candidateCount, int clock) {
    for (int i = 0; i < n; i++) {
      long candidate = keySeen(candidateCount);
      long victim = keySeen(0);
      long ghost;
      if (policy.admit(candidate, clock, victim, true)) {
        policy.onEvicted(victim);
        ghost = victim;
      } else {
        policy.onRejected(candidate);
        ghost = candidate;
      }
      if (i < back) {
        policy.onInsert(ghost);
      }
    }
  }

  /** Ordinary rejections: a candidate seen no more than the victim, rejected in any state. */
  private void rejections(int n, int back) {
    decisions(n, back, 0, 0);
  }

  /** Ordinary admissions: a candidate seen three times more, admitted in any state. */
  private void admissions(int n, int back) {
    decisions(n, back, 3, 0);
  }

  /** Marginal decisions: one count more than the victim, rejected unless admission is lenient. */
  private void marginal(int n, int back) {
    decisions(n, back, 1, 0);
  }

  private void endPeriod() {
    for (int i = 0; i < EvictionPolicy.PERIOD * ENTRIES; i++) {
      policy.recordAccess(hashOf(10_000_000 + i));
    }
    policy.adapt(ENTRIES, ENTRIES, 1, 0, 0);
  }

  /** @return whether a candidate seen {@code candidate} times beats a victim seen {@code victim} */
  private boolean admits(int candidate, int victim, int clock) {
    return policy.admit(keySeen(candidate), clock, keySeen(victim), true);
  }

  private void becomeLenient() {
    marginal(40, 30);
    rejections(40, 4);
    admissions(40, 4);
    endPeriod();
    assertEquals(0, policy.admissionThreshold());
  }

  @Test
  void startsCautiousButWithTheFreePass() {
    assertEquals(1, policy.admissionThreshold());
    assertFalse(policy.strictAdmission());
    assertFalse(admits(3, 2, 0), "one count more is not enough at first");
    assertTrue(admits(4, 2, 0));
    assertTrue(admits(0, 5, 1), "read in the window: free pass");
    assertTrue(policy.admit(keySeen(0), 0, keySeen(5), false), "no victim");
  }

  @Test
  void marginallyRejectedCandidatesThatComeBackMakeItLenient() {
    becomeLenient();
    assertFalse(policy.strictAdmission());
    assertTrue(admits(3, 2, 0));
    assertFalse(admits(2, 2, 0), "ties still go to the incumbent");
    assertTrue(admits(0, 5, 1));
  }

  @Test
  void victimsOfMarginalAdmissionsThatComeBackMakeItStrict() {
    becomeLenient();
    // the same decisions now admit, and it is their victims that come back
    marginal(40, 30);
    rejections(40, 4);
    admissions(40, 4);
    endPeriod();
    assertEquals(1, policy.admissionThreshold());
    assertTrue(policy.strictAdmission());
    assertFalse(admits(3, 2, 0));
    assertFalse(admits(2, 2, 3), "read in the window, but it must compete");
    assertTrue(admits(4, 2, 1));
  }

  @Test
  void freePassesWhoseVictimsComeBackMakeItStrictFromTheStart() {
    decisions(40, 30, 0, 1);
    rejections(40, 4);
    admissions(40, 4);
    endPeriod();
    assertTrue(policy.strictAdmission());
  }

  @Test
  void ordinaryDecisionsAloneLeaveItAlone() {
    // every rejected candidate comes back and no victim does, but no decision was marginal
    rejections(100, 100);
    admissions(100, 0);
    endPeriod();
    assertEquals(1, policy.admissionThreshold());
    assertFalse(policy.strictAdmission());
  }

  @Test
  void waitsForEnoughMarginalDecisions() {
    int needed = AdmissionThreshold.MARGINAL_EVIDENCE;
    marginal(needed / 2, needed / 2);
    rejections(40, 0);
    admissions(40, 0);
    endPeriod();
    assertEquals(1, policy.admissionThreshold(), "too few marginal decisions yet");
    marginal(needed / 2, needed / 2);
    rejections(40, 0);
    admissions(40, 0);
    endPeriod();
    assertEquals(0, policy.admissionThreshold(), "enough once accumulated");
  }

  @Test
  void aDifferenceWithinTheNoiseLeavesItAlone() {
    // 3 of 16 marginal rejections come back against 4 of 40 victims: a ratio of 1.9, but less
    // than a standard error apart
    marginal(16, 3);
    rejections(40, 4);
    admissions(40, 4);
    endPeriod();
    assertEquals(1, policy.admissionThreshold());
    // the same rates over ten times as many decisions are a clear difference
    marginal(160, 30);
    rejections(400, 40);
    admissions(400, 40);
    endPeriod();
    assertEquals(0, policy.admissionThreshold());
  }
}
