package dev.larder.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Admission's threshold follows the regrets of the decisions it changes (docs/design/eviction.md).
 * The tests play decisions as the segment makes them: ask {@code admit}, then report the rejected
 * candidate or the displaced victim, and let some of those ghosts come back.
 */
class AdmissionThresholdTest {

  private final AdmissionPlay play = new AdmissionPlay();
  private final EvictionPolicy policy = play.policy;

  /**
   * Returns whether a candidate seen {@code candidate} times beats a victim seen {@code victim}.
   */
  private boolean admits(int candidate, int victim, int clock) {
    return policy.admit(play.keySeen(candidate), clock, play.keySeen(victim), true);
  }

  private void becomeLenient() {
    play.marginalRegretsForAPeriod();
    assertEquals(0, policy.admissionThreshold());
  }

  @Test
  void startsCautiousButWithTheFreePass() {
    assertEquals(1, policy.admissionThreshold());
    assertFalse(policy.strictAdmission());
    assertFalse(admits(3, 2, 0), "one count more is not enough at first");
    assertTrue(admits(4, 2, 0));
    assertTrue(admits(0, 5, 1), "read in the window: free pass");
    assertTrue(policy.admit(play.keySeen(0), 0, play.keySeen(5), false), "no victim");
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
    // the same decisions now admit, and it is their victims that come back; none of the admitted
    // candidates has left probation yet, so the victims are weighed against rejected candidates
    play.marginalRegretsForAPeriod();
    assertEquals(1, policy.admissionThreshold());
    assertTrue(policy.strictAdmission());
    assertFalse(admits(3, 2, 0));
    assertFalse(admits(2, 2, 3), "read in the window, but it must compete");
    assertTrue(admits(4, 2, 1));
  }

  @Test
  void marginalAdmissionsReadInProbationKeepItLenient() {
    becomeLenient();
    // 30 of 40 victims come back, as in the test above, but 36 of the 40 candidates admitted in
    // their place were read in probation: leniency earns more than it costs
    play.marginalAdmissions(40, 30, 36);
    play.rejections(40, 4);
    play.endPeriod();
    assertEquals(0, policy.admissionThreshold());
    assertFalse(policy.strictAdmission());
  }

  @Test
  void marginalAdmissionsLeftUnreadWhileTheirVictimsComeBackMakeItStrict() {
    becomeLenient();
    play.marginalAdmissions(40, 30, 4);
    play.rejections(40, 4);
    play.endPeriod();
    assertTrue(policy.strictAdmission());
  }

  @Test
  void victimsBackOnlyAfterTheirLifetimeAreNoRegretOfLeniency() {
    AdmissionThreshold admission = new AdmissionThreshold();
    // to lenient: 30 of 40 marginal rejections come back, 4 of 40 rejections and of 40 victims
    for (int i = 0; i < 40; i++) {
      assertFalse(admission.admit(1, 0, 0));
      admission.onRejected();
      admission.onReturn(true, true, 0, 0, false);
      assertFalse(admission.admit(0, 0, 0));
      admission.onRejected();
      assertTrue(admission.admit(3, 0, 0));
      admission.onEvicted();
      if (i < 4) {
        admission.onReturn(true, false, 0, 0, false);
        admission.onReturn(false, false, 0, 0, false);
      }
    }
    admission.endPeriod(80, 40, 0, 0);
    assertEquals(0, admission.threshold());
    // every victim of a marginal admission comes back, but only once main has moved on past the
    // lifetime it would have had; half the admitted candidates were read in probation
    everyVictimBackHalfTheAdmittedRead(admission, false);
    assertEquals(0, admission.threshold(), "returns after the lifetime are no regret");
    // the same returns within the lifetime outweigh the reads
    everyVictimBackHalfTheAdmittedRead(admission, true);
    assertTrue(admission.strict());
  }

  /** A lenient period of 40 marginal admissions and 40 ordinary rejections, then its end. */
  private static void everyVictimBackHalfTheAdmittedRead(
      AdmissionThreshold admission, boolean withinLifetime) {
    for (int i = 0; i < 40; i++) {
      assertTrue(admission.admit(1, 0, 0));
      admission.onEvicted();
      admission.onReturn(false, true, 0, 0, withinLifetime);
      admission.onSampledAdmission(i % 2 == 0);
      assertFalse(admission.admit(0, 0, 0));
      admission.onRejected();
    }
    admission.endPeriod(40, 40, 0, 0);
  }

  @Test
  void aFirstJudgementDoesNotTurnLenientOnTheLeastValuableRejections() {
    // marginal rejections come back (5%) and no victim has yet, but rejected candidates in
    // general come back far more often (40%): the marginal ones are the least worth keeping
    play.period(200, 10, 100, 40, 40, 0);
    assertEquals(1, policy.admissionThreshold());
    // without the ordinary rejections' returns the same marginal evidence does turn it lenient
    play.period(200, 10, 100, 0, 40, 0);
    assertEquals(0, policy.admissionThreshold());
  }

  @Test
  void freePassesWhoseVictimsComeBackMakeItStrictFromTheStart() {
    play.decisions(40, 30, 0, 1);
    play.rejections(40, 4);
    play.admissions(40, 4);
    play.endPeriod();
    assertTrue(policy.strictAdmission());
  }

  @Test
  void ordinaryDecisionsAloneLeaveItAlone() {
    // every rejected candidate comes back and no victim does, but no decision was marginal
    play.rejections(100, 100);
    play.admissions(100, 0);
    play.endPeriod();
    assertEquals(1, policy.admissionThreshold());
    assertFalse(policy.strictAdmission());
  }

  @Test
  void waitsForEnoughMarginalDecisions() {
    int needed = AdmissionThreshold.MARGINAL_EVIDENCE;
    play.period(needed / 2, needed / 2, 40, 0, 40, 0);
    assertEquals(1, policy.admissionThreshold(), "too few marginal decisions yet");
    play.period(needed / 2, needed / 2, 40, 0, 40, 0);
    assertEquals(0, policy.admissionThreshold(), "enough once accumulated");
  }

  @Test
  void aDifferenceWithinTheNoiseLeavesItAlone() {
    // 3 of 16 marginal rejections come back against 4 of 40 victims: a ratio of 1.9, but less
    // than a standard error apart
    play.period(16, 3, 40, 4, 40, 4);
    assertEquals(1, policy.admissionThreshold());
    // the same rates over ten times as many decisions are a clear difference
    play.period(160, 30, 400, 40, 400, 40);
    assertEquals(0, policy.admissionThreshold());
  }
}
