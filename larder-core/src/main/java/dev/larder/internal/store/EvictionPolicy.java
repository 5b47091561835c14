package dev.larder.internal.store;

/**
 * The decisions of the eviction policy, kept apart from the mechanics of pages and queues.
 *
 * <p>Implementation notes. The segment keeps two FIFO queues of entries: a small window that
 * new entries enter, and a main queue. Under pressure the segment consumes entries at the
 * tails and asks this policy what to do with each:
 * <ul>
 *   <li>the window's oldest entry (the candidate) moves to the main queue if it was read while
 *       in the window, or if the frequency sketch says it is requested more often than the
 *       main queue's next victim (TinyLFU admission); otherwise it is evicted;</li>
 *   <li>the main queue's oldest entry is given another round at the head if its access counter
 *       is above zero (the counter is decremented: CLOCK with a 2-bit counter), else evicted.</li>
 * </ul>
 * This is W-TinyLFU's structure (window, frequency-filtered main) with FIFO-reinsertion queues
 * in place of linked lists, which a page layout without per-entry pointers can afford.
 * Single-threaded: called under the segment's write lock, except {@link #recordAccess}.
 */
final class EvictionPolicy {

  /** Share of the bound given to the window. */
  static final double WINDOW_FRACTION = 0.01;

  private final FrequencySketch sketch;

  EvictionPolicy(FrequencySketch sketch) {
    this.sketch = sketch;
  }

  /** Called by readers (racily) for every request, hit or miss. */
  void recordAccess(long hash) {
    sketch.increment(hash);
  }

  /** @return the window's target size in the bound's unit (bytes or entries) */
  long windowTarget(long capacity) {
    return Math.max(1, (long) (capacity * WINDOW_FRACTION));
  }

  /**
   * @param candidateHash the window entry leaving the window
   * @param candidateClock its access counter
   * @param victimHash the main queue's next victim, if {@code hasVictim}
   * @param hasVictim false if the main queue is empty
   * @return true to move the candidate to the main queue, false to evict it
   */
  boolean admit(long candidateHash, int candidateClock, long victimHash, boolean hasVictim) {
    if (candidateClock > 0 || !hasVictim) {
      return true;
    }
    return sketch.frequency(candidateHash) > sketch.frequency(victimHash);
  }

  /**
   * @param hash the main queue's oldest entry
   * @param clock its access counter
   * @return the counter to reinsert it with, or -1 to evict it
   */
  int onMainTail(long hash, int clock) {
    return clock > 0 ? clock - 1 : -1;
  }
}
