package dev.larder.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * A read of an entry in the window reaches the frequency sketch only as far as admission relies on
 * counts alone (docs/design/eviction.md, "Reads in the window and the sketch"): not at all while
 * admission is lenient, the first read of a stay in the initial state, every read once admission is
 * strict. Reads in main always count, and so does a miss.
 */
class WindowHitCountTest {

  private final AdmissionPlay play = new AdmissionPlay();
  private final EvictionPolicy policy = play.policy;
  private final Page windowPage = pageIn(play.window, 0);
  private final Page mainPage = pageIn(play.main, 1);

  private static Page pageIn(PageQueue queue, int number) {
    Page page = new Page(number, MemorySegment.ofArray(new byte[4096]));
    queue.appendPage(page);
    return page;
  }

  /**
   * Plays a key's miss and then {@code reads} hits on it in {@code page}, with the access counter
   * the segment would pass (0 for the first read, raised by one per read, at most 3).
   *
   * @return the key's count in the sketch afterwards
   */
  private int missThenReads(Page page, int reads) {
    long key = play.keySeen(0);
    policy.recordAccess(key);
    for (int i = 0; i < reads; i++) {
      policy.onHit(page, 0, key, Math.min(i, 3));
    }
    return play.sketch.frequency(key);
  }

  @Test
  void initialStateCountsOnlyTheFirstReadInTheWindow() {
    assertEquals(1, policy.admissionThreshold());
    assertFalse(policy.strictAdmission());
    assertEquals(2, missThenReads(windowPage, 1));
    assertEquals(2, missThenReads(windowPage, 4), "later reads in the same stay do not count");
    assertEquals(5, missThenReads(mainPage, 4), "reads in main always count");
  }

  @Test
  void lenientAdmissionCountsNoReadInTheWindow() {
    play.marginalRegretsForAPeriod();
    assertEquals(0, policy.admissionThreshold());
    assertEquals(1, missThenReads(windowPage, 1));
    assertEquals(1, missThenReads(windowPage, 4));
    assertEquals(5, missThenReads(mainPage, 4));
  }

  @Test
  void strictAdmissionCountsEveryReadInTheWindow() {
    play.marginalRegretsForAPeriod();
    play.marginalRegretsForAPeriod();
    assertTrue(policy.strictAdmission());
    assertEquals(5, missThenReads(windowPage, 4));
    assertEquals(5, missThenReads(mainPage, 4));
  }
}
