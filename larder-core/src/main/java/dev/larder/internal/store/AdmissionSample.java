package dev.larder.internal.store;

import java.util.Arrays;

/**
 * A sample of the candidates that marginal admissions let into main, remembered until they leave
 * probation, so that admission can count how many were read there: what lenient admission earns,
 * set against the victims it displaced ({@link AdmissionThreshold}).
 *
 * <p>Implementation notes. A direct-mapped table of 32-bit fingerprints (0 is empty). A key is
 * sampled only if its slot is free, so the sample never loses a key it holds to a later one and
 * every sampled key is resolved when it leaves probation, read or not, however long that takes (on
 * P3 it takes more than an adaptation period). Keys that leave main some other way (removed, or
 * expired) would hold their slots forever, so once a period the table is cleared if it is at least
 * half full and none of its keys left probation during the period. One slot per 16 expected
 * entries, 16 to 512 slots (at most 2 KiB a segment), counted in the policy's memory. A fingerprint
 * collision can resolve the wrong key: noise in a statistic, nothing else. A <em>lazy</em> sample
 * allocates its slots when the first key is sampled; until then it holds none, as empty slots
 * would.
 *
 * <p>Not thread-safe: guarded by the segment's write lock.
 */
final class AdmissionSample {

  private static final SlotSizing SIZING = new SlotSizing(16, 16, 512);

  /** The slots; null in a lazy sample until a key is first sampled. */
  private int[] slots;

  /** Slots the sample has, or will have when allocated. */
  private int length;

  private int occupied;
  private int resolvedInPeriod;

  AdmissionSample(int expectedEntries) {
    this(expectedEntries, false);
  }

  /**
   * @param lazy whether to allocate the slots when the first key is sampled rather than now
   */
  AdmissionSample(int expectedEntries, boolean lazy) {
    length = SIZING.lengthFor(expectedEntries);
    slots = lazy ? null : new int[length];
  }

  /** Samples the key if its slot is free. */
  void add(long hash) {
    if (slots == null) {
      slots = new int[length];
    }
    int i = index(hash);
    if (slots[i] == 0) {
      slots[i] = fingerprint(hash);
      occupied++;
    }
  }

  /** Returns whether the key was in the sample (it is forgotten now). */
  boolean remove(long hash) {
    if (slots == null) {
      return false;
    }
    int i = index(hash);
    if (slots[i] != fingerprint(hash)) {
      return false;
    }
    slots[i] = 0;
    occupied--;
    resolvedInPeriod++;
    return true;
  }

  /**
   * Called once per adaptation period: forgets every key if the sample is at least half full and
   * none of its keys left probation during the period, since they left main some other way.
   */
  void endPeriod() {
    if (resolvedInPeriod == 0 && occupied * 2 >= length) {
      clear();
    }
    resolvedInPeriod = 0;
  }

  /** Forgets every key. */
  void clear() {
    if (slots != null) {
      Arrays.fill(slots, 0);
    }
    occupied = 0;
  }

  /** Returns how many keys the sample holds, for tests. */
  int size() {
    return occupied;
  }

  /** Returns bytes of the slots allocated (none yet in a lazy sample that sampled nothing). */
  long bytes() {
    return slots == null ? 0 : SlotSizing.bytes(length);
  }

  /** Returns bytes of the slots, allocated or not: what they take once allocated; for tests. */
  long tableBytes() {
    return SlotSizing.bytes(length);
  }

  /** Returns the bytes {@link #ensureCapacity} would add. */
  long growthFor(int expectedEntries) {
    return SIZING.growthFor(length, expectedEntries);
  }

  /** Grows (forgetting every key) if {@code expectedEntries} needs twice the slots. */
  void ensureCapacity(int expectedEntries) {
    int grown = SIZING.grownLength(length, expectedEntries);
    if (grown > 0) {
      length = grown;
      if (slots != null) {
        slots = new int[grown];
      }
      occupied = 0;
    }
  }

  private int index(long hash) {
    // the low bits: the sketch and the ghost table use the high ones
    return (int) (((hash & 0xFFFF_FFFFL) * length) >>> 32);
  }

  private static int fingerprint(long hash) {
    return (int) (hash >>> 32) | 1;
  }
}
