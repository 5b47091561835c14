package dev.larder.internal.store;

/**
 * One decoded value of the hot tier: the key object it is found by, the value handed to readers,
 * the store hash of the key's bytes (its segment finds it by that), the deadline it shares with its
 * compact entry, and the bytes it is counted for.
 *
 * <p>Immutable but for two fields that readers write without synchronization when they hit, and
 * only while they are below their ceiling (so the line of a hot entry stays shared once they are):
 * {@link #seen}, the tier's CLOCK bit, which its hand clears; and {@link #hits}, hits not yet told
 * to the store's policy, which the segment takes under its lock when the compact entry's queue tail
 * reaches it. A lost increment or clear only blurs a statistic.
 */
final class HotEntry {

  /** The most hits an entry holds for the store's policy before it is drained. */
  static final int MOST_HITS = 15;

  final Object key;
  final Object value;
  final long hash;
  final long deadline;
  final int bytes;

  /** Set by a hit; cleared by the tier's CLOCK hand. */
  boolean seen;

  /** Hits since the store's policy last took them, up to {@link #MOST_HITS}. */
  byte hits;

  HotEntry(Object key, Object value, long hash, long deadline, int bytes) {
    this.key = key;
    this.value = value;
    this.hash = hash;
    this.deadline = deadline;
    this.bytes = bytes;
  }

  /** Records a hit. */
  void touch() {
    if (!seen) {
      seen = true;
    }
    int h = hits;
    if (h < MOST_HITS) {
      hits = (byte) (h + 1);
    }
  }

  /** Returns whether a hit came since the last call; clears the bit. Under the segment lock. */
  boolean takeSeen() {
    if (!seen) {
      return false;
    }
    seen = false;
    return true;
  }

  /** Returns hits since the last call, and forgets them. Under the segment lock. */
  int takeHits() {
    int h = hits;
    if (h != 0) {
      hits = 0;
    }
    return h;
  }
}
