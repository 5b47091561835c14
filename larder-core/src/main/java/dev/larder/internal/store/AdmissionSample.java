package dev.larder.internal.store;

import java.util.Arrays;

/**
 * A sample of the candidates that marginal admissions let into main, remembered until they leave
 * probation, so that admission can count how many were read there: what lenient admission earns,
 * set against the victims it displaced ({@link AdmissionThreshold}).
 *
 * <p>Implementation notes. A direct-mapped table of 32-bit fingerprints (0 is empty). A key is
 * sampled only if its slot is free, so the sample never loses a key it holds to a later one and
 * every sampled key is resolved when it leaves probation, read or not, however long that takes
 * (on P3 it takes more than an adaptation period). Keys that leave main some other way (removed,
 * or expired) would hold their slots forever, so once a period the table is cleared if it is at
 * least half full and none of its keys left probation during the period. One slot per 16
 * expected entries, 16 to 512 slots (at most 2 KiB a segment), counted in the policy's memory.
 * A fingerprint collision can resolve the wrong key: noise in a statistic, nothing else.
 *
 * <p>Not thread-safe: guarded by the segment's write lock.
 */
final class AdmissionSample {

  private static final SlotSizing SIZING = new SlotSizing(16, 16, 512);

  private int[] slots;
  private int occupied;
  private int resolvedInPeriod;

  AdmissionSample(int expectedEntries) {
    slots = new int[SIZING.lengthFor(expectedEntries)];
  }

  /** Samples the key if its slot is free. */
  void add(long hash) {
    int i = index(hash);
    if (slots[i] == 0) {
      slots[i] = fingerprint(hash);
      occupied++;
    }
  }

  /** @return whether the key was in the sample (it is forgotten now) */
  boolean remove(long hash) {
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
    if (resolvedInPeriod == 0 && occupied * 2 >= slots.length) {
      clear();
    }
    resolvedInPeriod = 0;
  }

  /** Forgets every key. */
  void clear() {
    Arrays.fill(slots, 0);
    occupied = 0;
  }

  /** @return how many keys the sample holds, for tests */
  int size() {
    return occupied;
  }

  long bytes() {
    return SlotSizing.bytes(slots.length);
  }

  /** @return the bytes {@link #ensureCapacity} would add */
  long growthFor(int expectedEntries) {
    return SIZING.growthFor(slots.length, expectedEntries);
  }

  /** Grows (forgetting every key) if {@code expectedEntries} needs twice the slots. */
  void ensureCapacity(int expectedEntries) {
    int grown = SIZING.grownLength(slots.length, expectedEntries);
    if (grown > 0) {
      slots = new int[grown];
      occupied = 0;
    }
  }

  private int index(long hash) {
    // the low bits: the sketch and the ghost table use the high ones
    return (int) (((hash & 0xFFFF_FFFFL) * slots.length) >>> 32);
  }

  private static int fingerprint(long hash) {
    return (int) (hash >>> 32) | 1;
  }
}
