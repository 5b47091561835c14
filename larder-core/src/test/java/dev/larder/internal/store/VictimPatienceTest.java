package dev.larder.internal.store;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * A victim that wins every contest is forced out after {@link EvictionPolicy#PATIENCE} capacities
 * of them, so that a count the sketch overstates cannot freeze the cache.
 */
class VictimPatienceTest {

  private static final int ENTRIES = 1000;
  private static final long CONTESTS = (long) EvictionPolicy.PATIENCE * ENTRIES;

  private final FrequencySketch sketch = new FrequencySketch(ENTRIES, 16);
  private final EvictionPolicy policy =
      new EvictionPolicy(
          sketch,
          new GhostTable(ENTRIES, 1),
          new AdmissionSample(ENTRIES),
          new PageQueue("window"),
          new PageQueue("main"));

  private static long hashOf(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return h ^ (h >>> 31);
  }

  /** A victim the sketch counts 15 times, against candidates it has never seen. */
  private long popularVictim(long key) {
    long victim = hashOf(key);
    for (int i = 0; i < 15; i++) {
      sketch.increment(victim);
    }
    return victim;
  }

  /** Plays {@code contests} contests of fresh candidates against {@code victim}. */
  private void assertAllRejected(long victim, long firstCandidate, long contests) {
    for (long i = 0; i < contests; i++) {
      assertFalse(policy.admit(hashOf(firstCandidate + i), 0, victim, true), "contest " + i);
    }
  }

  @Test
  void aVictimThatWinsEveryContestForEightCapacitiesLosesTheNext() {
    policy.adapt(ENTRIES, ENTRIES, 1, 10, ENTRIES - 10);
    long victim = popularVictim(-1);
    assertAllRejected(victim, 1_000_000, CONTESTS);
    assertTrue(policy.admit(hashOf(1), 0, victim, true));
    // the count starts again for whichever victim comes next
    assertAllRejected(victim, 2_000_000, CONTESTS);
  }

  @Test
  void aNewVictimStartsItsOwnCount() {
    policy.adapt(ENTRIES, ENTRIES, 1, 10, ENTRIES - 10);
    long first = popularVictim(-1);
    long second = popularVictim(-2);
    assertAllRejected(first, 1_000_000, CONTESTS - 1);
    assertAllRejected(second, 2_000_000, CONTESTS);
    assertAllRejected(first, 3_000_000, CONTESTS);
  }

  @Test
  void anAdmissionOnTheMeritsResetsTheCount() {
    policy.adapt(ENTRIES, ENTRIES, 1, 10, ENTRIES - 10);
    long victim = popularVictim(-1);
    assertAllRejected(victim, 1_000_000, CONTESTS - 1);
    // a candidate read in the window has the free pass
    assertTrue(policy.admit(hashOf(5), 1, victim, true));
    assertAllRejected(victim, 2_000_000, CONTESTS);
  }
}
