package dev.larder.internal.store;

/**
 * How the policy's direct-mapped tables of {@code int} slots ({@link GhostTable}, {@link
 * AdmissionSample}) are sized to their segment: a slot per so many expected entries, within limits,
 * grown only once twice the slots are needed. Growing forgets a table's contents, and a
 * byte-bounded segment's index grows a fifth at a time, so growing at every step would keep
 * forgetting. Immutable.
 *
 * @param entriesPerSlot expected entries per slot
 * @param minSlots the fewest slots a table has
 * @param maxSlots the most slots a table has
 */
record SlotSizing(int entriesPerSlot, int minSlots, int maxSlots) {

  /** Returns the slots a table for {@code expectedEntries} has when created. */
  int lengthFor(int expectedEntries) {
    return Math.max(minSlots, Math.min(maxSlots, expectedEntries / entriesPerSlot));
  }

  /** Returns the slots to grow a table of {@code length} slots to, or 0 to keep it. */
  int grownLength(int length, int expectedEntries) {
    int wanted = lengthFor(expectedEntries);
    return wanted > length * 2L ? wanted : 0;
  }

  /** Returns the bytes growing a table of {@code length} slots would add. */
  long growthFor(int length, int expectedEntries) {
    int grown = grownLength(length, expectedEntries);
    return grown == 0 ? 0 : 4L * (grown - length);
  }

  /** Returns the bytes of a table of {@code length} slots, with its array header. */
  static long bytes(int length) {
    return 16L + 4L * length;
  }
}
