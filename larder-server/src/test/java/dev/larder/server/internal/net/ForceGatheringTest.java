package dev.larder.server.internal.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The next force waits only for the writers the last one answered, and never past half the last
 * force's length: a lone writer never waits, two cohorts taking turns are merged into one force.
 */
class ForceGatheringTest {
  private static final long MS = 1_000_000;

  @Test
  void theFirstForceAndOneWithNothingCarriedNeverWait() {
    ForceGathering g = new ForceGathering();
    assertEquals(0, g.waitNanos(0, 0), "before any force");
    g.forceStarting(10);
    g.forceEnded(10, 5 * MS, 4 * MS);
    assertEquals(0, g.waitNanos(10, 5 * MS), "the first force's count is unknown: no wait");

    g.forceStarting(10);
    g.forceEnded(10, 9 * MS, 4 * MS);
    assertEquals(0, g.waitNanos(10, 9 * MS), "a force that carried nothing");
  }

  /** One writer, one write in flight: its next write is all the next force waits for. */
  @Test
  void aLoneWriterNeverWaits() {
    ForceGathering g = new ForceGathering();
    long sequence = 0;
    long now = 0;
    for (int i = 0; i < 100; i++) {
      sequence++; // the writer's record, appended before its round reaches the syncer
      assertEquals(0, g.waitNanos(sequence, now), "write " + i + " held back");
      g.forceStarting(sequence);
      now += 2 * MS;
      g.forceEnded(sequence, now, 2 * MS);
      now += MS / 10; // its reply travels, its next write arrives
    }
  }

  /**
   * 50 writers in two cohorts of 25 taking turns: when a force ends, the cohort the force before
   * answered has appended its writes; the next force waits for the cohort this force answered.
   */
  @Test
  void twoCohortsAreMergedIntoOneForce() {
    ForceGathering g = new ForceGathering();
    g.forceStarting(25);
    g.forceEnded(50, 4 * MS, 4 * MS);
    g.forceStarting(50); // carried 25
    g.forceEnded(75, 8 * MS, 4 * MS); // the other cohort's 25 appended meanwhile

    assertEquals(2 * MS, g.waitNanos(75, 8 * MS), "waits up to half the force's length");
    assertEquals(MS, g.waitNanos(99, 9 * MS), "24 of the 25 back");
    assertEquals(0, g.waitNanos(100, 9 * MS), "the cohort the force answered is back");

    g.forceStarting(100); // carried 50: both cohorts
    g.forceEnded(100, 13 * MS, 4 * MS);
    assertTrue(g.waitNanos(149, 13 * MS) > 0, "waits for all 50 writers");
    assertEquals(0, g.waitNanos(150, 13 * MS));
  }

  /** Writers that do not come back cost at most the bound, and the next force waits for fewer. */
  @Test
  void theWaitIsBoundedByHalfTheLastForce() {
    ForceGathering g = new ForceGathering();
    g.forceStarting(0);
    g.forceEnded(0, 0, MS);
    g.forceStarting(40); // carried 40
    long forceNanos = 6 * MS;
    long ended = 10 * MS;
    g.forceEnded(40, ended, forceNanos);
    long bound = (long) (forceNanos * ForceGathering.BOUND);
    for (long now = ended; now <= ended + 2 * forceNanos; now += MS / 4) {
      long wait = g.waitNanos(40, now);
      assertTrue(wait <= bound, wait + " ns at " + now);
      assertEquals(Math.max(0, ended + bound - now), wait);
    }

    g.forceStarting(50); // only 10 came back: carried 10
    g.forceEnded(50, 20 * MS, forceNanos);
    assertTrue(g.waitNanos(59, 20 * MS) > 0);
    assertEquals(0, g.waitNanos(60, 20 * MS), "waits for the 10, not the 40 before");
  }
}
