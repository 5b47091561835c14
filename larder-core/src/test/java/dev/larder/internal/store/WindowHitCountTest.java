package dev.larder.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * A read of an entry in the window reaches the frequency sketch only as far as admission relies
 * on counts alone (docs/design/eviction.md, "Reads in the window and the sketch"): not at all
 * while admission is lenient, the first read of a stay in the initial state, every read once
 * admission is strict. Reads in main always count, and so does a miss.
 */
class WindowHitCountTest {

  private static final int ENTRIES = 1000;

  private final FrequencySketch sketch = new FrequencySketch(ENTRIES, 16);
  private final PageQueue window = new PageQueue("window");
  private final PageQueue main = new PageQueue("main");
  private final EvictionPolicy policy =
      new EvictionPolicy(sketch, new GhostTable(ENTRIES, 8), window, main);
  private final Page windowPage = pageIn(window, 0);
  private final Page mainPage = pageIn(main, 1);
  private long nextKey = 1;

  private static Page pageIn(PageQueue queue, int number) {
    Page page = new Page(number, MemorySegment.ofArray(new byte[4096]), null);
    queue.appendPage(page);
    return page;
  }

  private static long hashOf(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return h ^ (h >>> 31);
  }

  /** @return a key the sketch has not counted yet (no collision raised its estimate) */
  private long freshKey() {
    while (true) {
      long hash = hashOf(nextKey++);
      if (sketch.frequency(hash) == 0) {
        return hash;
      }
    }
  }

  /**
   * Plays a key's miss and then {@code reads} hits on it in {@code page}, with the access
   * counter the segment would pass (0 for the first read, raised by one per read, at most 3).
   *
   * @return the key's count in the sketch afterwards
   */
  private int missThenReads(Page page, int reads) {
    long key = freshKey();
    policy.recordAccess(key);
    for (int i = 0; i < reads; i++) {
      policy.onHit(page, 0, key, Math.min(i, 3));
    }
    return sketch.frequency(key);
  }

  /** Gives the threshold the regrets that make it lenient or strict, as the segment would. */
  private void judge(boolean lenient) {
    for (int i = 0; i < 40; i++) {
      long candidate = freshKey();
      sketch.increment(candidate);
      long victim = freshKey();
      long ghost;
      if (policy.admit(candidate, 0, victim, true)) {
        policy.onEvicted(victim);
        ghost = victim;
      } else {
        policy.onRejected(candidate);
        ghost = candidate;
      }
      if (i < 30) {
        policy.onInsert(ghost);
      }
    }
    for (int i = 0; i < 80; i++) {
      long candidate = freshKey();
      long victim = freshKey();
      if (i % 2 == 0) {
        sketch.increment(candidate);
        sketch.increment(candidate);
        sketch.increment(candidate);
      }
      if (policy.admit(candidate, 0, victim, true)) {
        policy.onEvicted(victim);
        if (i < 8) {
          policy.onInsert(victim);
        }
      } else {
        policy.onRejected(candidate);
        if (i < 8) {
          policy.onInsert(candidate);
        }
      }
    }
    for (int i = 0; i < EvictionPolicy.PERIOD * ENTRIES; i++) {
      policy.recordAccess(hashOf(10_000_000 + i));
    }
    policy.adapt(ENTRIES, ENTRIES, 1, 0, 0);
    assertEquals(lenient ? 0 : 1, policy.admissionThreshold());
    assertEquals(!lenient, policy.strictAdmission());
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
    judge(true);
    assertEquals(1, missThenReads(windowPage, 1));
    assertEquals(1, missThenReads(windowPage, 4));
    assertEquals(5, missThenReads(mainPage, 4));
  }

  @Test
  void strictAdmissionCountsEveryReadInTheWindow() {
    judge(true);
    judge(false);
    assertTrue(policy.strictAdmission());
    assertEquals(5, missThenReads(windowPage, 4));
    assertEquals(5, missThenReads(mainPage, 4));
  }
}
