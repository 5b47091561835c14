package dev.larder.codec;

/**
 * Remembers a fingerprint of recently seen values, so that an adaptive substitution can intern a
 * value the second time it is seen. A direct-mapped table of 32-bit fingerprints: a value's
 * fingerprint selects one slot; finding the same fingerprint there means "seen before", otherwise
 * the slot is overwritten.
 *
 * <p>Implementation notes: slots are plain ints written without synchronization. Int writes are
 * atomic, and a lost or stale write only delays or advances one value's interning (a false "seen"
 * on a fingerprint collision interns a value that may not repeat), which costs at most one
 * dictionary entry and never correctness.
 */
final class AdmissionFilter {

  private final int[] slots;
  private final int mask;

  /**
   * @param size a power of two
   */
  AdmissionFilter(int size) {
    slots = new int[size];
    mask = size - 1;
  }

  /**
   * Records a sighting of a value.
   *
   * @param hash the value's hash code
   * @return true if the value (or a colliding one) was seen recently
   */
  boolean seenBefore(int hash) {
    int h = hash * 0x9E3779B9;
    int fingerprint = h | 1;
    int slot = (h >>> 16 ^ h) & mask;
    if (slots[slot] == fingerprint) {
      return true;
    }
    slots[slot] = fingerprint;
    return false;
  }

  long memory() {
    return 16L + 4L * slots.length + 16;
  }
}
