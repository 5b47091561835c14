package dev.larder.internal.store;

import java.util.Arrays;

/**
 * Fingerprints of keys that recently left the cache, with where they left it: the policy's only
 * memory of evicted entries, used to tell how far a missed key got from staying.
 *
 * <p>Implementation notes. A direct-mapped table of {@code int}s, one per ghost:
 *
 * <pre>
 *  31             17 16 15 14                 0
 * +-----------------+--+--+-------------------+
 * | fingerprint (15)|m |q | position (15)     |
 * +-----------------+--+--+-------------------+
 * </pre>
 *
 * {@code q} says which queue the key left (0 window: rejected by admission; 1 main: evicted),
 * {@code m} whether the decision that made it a ghost was marginal (one that strict and lenient
 * admission take differently, see {@link EvictionPolicy}), and the position is that queue's tail
 * position in its byte flow at the time (see {@link PageQueue#tailPosition}), in units of {@code
 * 2^resolution} bytes, modulo 2^15. The resolution is set so that one adaptation step is about 256
 * units: distances up to the step are measured to within half a percent of it, and the position
 * wraps only after 128 steps. A newer ghost overwrites whatever shares its slot, so the table
 * forgets on its own; only distances up to a step matter. A fingerprint collision, an overwritten
 * ghost or a wrapped position only adds noise to the adaptations, never affects correctness. With a
 * byte bound the table has a slot for every eight entries of the segment (half a byte an entry):
 * the ghosts of one step (a twentieth of the entries from each queue) survive in part, the same
 * part for either queue. With an entry bound, where memory is not the bound, it has a slot per
 * entry, so that ghosts also reach back far enough for the sketch's history adaptation ({@link
 * EvictionPolicy}), whose victims of disk-like traces come back after long gaps. A <em>lazy</em>
 * table (an entry-bounded segment's, sized for the bound) allocates its slots at the first ghost:
 * until then every lookup finds none, as in a table of empty slots, so nothing any decision sees
 * changes. Guarded by the segment's write lock.
 */
final class GhostTable {

  static final int WINDOW = 0;
  static final int MAIN = 1;
  private static final int POSITION_MASK = 0x7FFF;

  /** Units per adaptation step wanted: 2^8. */
  private static final int STEP_UNITS_LOG2 = 8;

  private static final SlotSizing SLOT_PER_ENTRY = sizing(1);
  private static final SlotSizing SLOT_PER_EIGHT = sizing(8);

  /** The slots; null in a lazy table until its first ghost. */
  private int[] slots;

  /** Slots the table has, or will have when allocated. */
  private int length;

  private int resolution;
  private final SlotSizing sizing;

  /**
   * @param entriesPerSlot expected entries per ghost slot (8: half a byte an entry)
   */
  GhostTable(int expectedEntries, int entriesPerSlot) {
    this(expectedEntries, entriesPerSlot, false);
  }

  /**
   * @param entriesPerSlot as above
   * @param lazy whether to allocate the slots at the first ghost rather than now
   */
  GhostTable(int expectedEntries, int entriesPerSlot, boolean lazy) {
    sizing =
        entriesPerSlot == 1
            ? SLOT_PER_ENTRY
            : entriesPerSlot == 8 ? SLOT_PER_EIGHT : sizing(entriesPerSlot);
    length = sizing.lengthFor(expectedEntries);
    slots = lazy ? null : new int[length];
  }

  private static SlotSizing sizing(int entriesPerSlot) {
    return new SlotSizing(entriesPerSlot, 16, Integer.MAX_VALUE);
  }

  /** Returns bytes of the slots allocated (none yet in a lazy table without ghosts). */
  long bytes() {
    return slots == null ? 0 : SlotSizing.bytes(length);
  }

  /** Returns bytes of the slots, allocated or not: what they take once allocated; for tests. */
  long tableBytes() {
    return SlotSizing.bytes(length);
  }

  /** Returns the bytes {@link #ensureCapacity} would add. */
  long growthFor(int expectedEntries) {
    return sizing.growthFor(length, expectedEntries);
  }

  /** Grows (forgetting every ghost) if {@code expectedEntries} needs a table twice as large. */
  void ensureCapacity(int expectedEntries) {
    int grown = sizing.grownLength(length, expectedEntries);
    if (grown > 0) {
      length = grown;
      if (slots != null) {
        slots = new int[grown];
      }
    }
  }

  /**
   * Adjusts the position unit to a step of {@code stepBytes}; forgets every ghost when the unit
   * changes, which happens only when the step doubles or halves more than once over.
   */
  void fitStep(long stepBytes) {
    int wanted =
        Math.max(0, 63 - Long.numberOfLeadingZeros(Math.max(1, stepBytes)) - STEP_UNITS_LOG2);
    if (Math.abs(wanted - resolution) > 1) {
      resolution = wanted;
      if (slots != null) {
        Arrays.fill(slots, 0);
      }
    }
  }

  /**
   * @param marginal whether the decision that made the key a ghost was a marginal one
   */
  void add(long hash, int queue, long position, boolean marginal) {
    if (slots == null) {
      slots = new int[length];
    }
    slots[index(hash)] =
        (fingerprint(hash) << 17)
            | (marginal ? 1 << 16 : 0)
            | (queue << 15)
            | (int) ((position >>> resolution) & POSITION_MASK);
  }

  /**
   * Returns how far (in bytes of that queue's flow, to within a unit) the key is from having
   * stayed, or -1 if it is not a ghost; {@link #queueOf} tells which queue it left.
   *
   * @param windowTail the window's current tail position
   * @param mainTail the main queue's current tail position
   */
  long distance(long hash, long windowTail, long mainTail) {
    if (slots == null) {
      return -1;
    }
    int entry = slots[index(hash)];
    if (entry == 0 || (entry >>> 17) != fingerprint(hash)) {
      return -1;
    }
    long now = ((entry >>> 15) & 1) == WINDOW ? windowTail : mainTail;
    return (((now >>> resolution) - entry) & POSITION_MASK) << resolution;
  }

  /** Returns the queue a ghost found by {@link #distance} left. */
  int queueOf(long hash) {
    return (slots[index(hash)] >>> 15) & 1;
  }

  /** Returns whether a ghost found by {@link #distance} was made by a marginal decision. */
  boolean marginal(long hash) {
    return ((slots[index(hash)] >>> 16) & 1) != 0;
  }

  /** Forgets a key that is back in the cache. */
  void remove(long hash) {
    if (slots == null) {
      return;
    }
    int i = index(hash);
    if ((slots[i] >>> 17) == fingerprint(hash)) {
      slots[i] = 0;
    }
  }

  private int index(long hash) {
    long x = (hash * 0x9E3779B97F4A7C15L) >>> 32;
    return (int) ((x * length) >>> 32);
  }

  private static int fingerprint(long hash) {
    int f = (int) (hash >>> 16) & 0x7FFF;
    return f == 0 ? 1 : f;
  }
}
