package dev.larder.internal.store;

/**
 * One decoded value of the hot tier: the key object it is found by, the value handed to readers,
 * the store hash of the key's bytes (its segment finds it by that), the deadline it shares with
 * its compact entry, and the bytes it is counted for.
 *
 * <p>Immutable but for {@link #marks}, which readers set without synchronization when they
 * hit (two bits: one for the compact store's policy, one for the tier's CLOCK) and which the
 * segment clears under its lock; a lost set or clear only misplaces one bit of recency.
 */
final class HotEntry {

  /** Set by a hit; cleared when the compact entry's queue tail passes it. */
  static final int SEEN_BY_STORE = 1;
  /** Set by a hit; cleared by the tier's CLOCK hand. */
  static final int SEEN_BY_TIER = 2;
  static final byte SEEN = SEEN_BY_STORE | SEEN_BY_TIER;

  final Object key;
  final Object value;
  final long hash;
  final long deadline;
  final int bytes;
  byte marks;

  HotEntry(Object key, Object value, long hash, long deadline, int bytes) {
    this.key = key;
    this.value = value;
    this.hash = hash;
    this.deadline = deadline;
    this.bytes = bytes;
  }

  /** Records a hit: a plain write, and only when a bit is clear, so hot lines stay shared. */
  void touch() {
    if (marks != SEEN) {
      marks = SEEN;
    }
  }

  /** @return whether a hit came since the last call; clears the bit. Under the segment lock. */
  boolean takeMark(int bit) {
    byte m = marks;
    if ((m & bit) == 0) {
      return false;
    }
    marks = (byte) (m & ~bit);
    return true;
  }
}
