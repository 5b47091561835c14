package dev.larder.internal.store;

/**
 * The layout of one index slot: a primitive {@code long}, the store's only per-entry state outside
 * the pages.
 *
 * <pre>
 *  63            42 41 40 39          20 19           0
 * +----------------+-----+--------------+--------------+
 * |   tag (22)     |clk 2| page (20)    | offset (20)  |
 * +----------------+-----+--------------+--------------+
 * </pre>
 *
 * <ul>
 *   <li>{@code tag}: the top 22 bits of the key hash. It is both the fingerprint that saves most
 *       key comparisons and the source of the slot's home position ({@code tag * capacity >>> 22}),
 *       so the table can be resized and entries shifted without reading keys back from the pages.
 *   <li>{@code clk}: a saturating 0-3 access counter for the eviction policy. Readers raise it with
 *       a compare-and-set on the whole slot, so a raise can be lost but never corrupts the slot.
 *   <li>{@code page}, {@code offset}: where the entry starts. Page numbers start at 1, so an
 *       occupied slot is never 0 or 1: 0 means empty and 1 a deleted slot (tombstone).
 * </ul>
 *
 * Format version 1 (docs/spec/store-layout.md).
 */
final class IndexSlot {

  static final long EMPTY = 0;

  /** A deleted slot: page 0, which no entry uses, so no real slot has this value. */
  static final long TOMBSTONE = 1;

  static final int TAG_BITS = 22;
  static final int MAX_CAPACITY = 1 << TAG_BITS;
  static final int PAGE_BITS = 20;
  static final int OFFSET_BITS = 20;
  static final int MAX_PAGES = 1 << PAGE_BITS;
  static final int MAX_OFFSET = (1 << OFFSET_BITS) - 1;
  static final int MAX_CLOCK = 3;

  private static final int CLOCK_SHIFT = PAGE_BITS + OFFSET_BITS;
  private static final int TAG_SHIFT = CLOCK_SHIFT + 2;
  private static final long ADDRESS_MASK = (1L << CLOCK_SHIFT) - 1;
  private static final long CLOCK_ONE = 1L << CLOCK_SHIFT;

  private IndexSlot() {}

  static int tag(long hash) {
    return (int) (hash >>> (64 - TAG_BITS));
  }

  static int home(int tag, int capacity) {
    return (int) (((long) tag * capacity) >>> TAG_BITS);
  }

  static long of(int tag, int clock, long address) {
    return ((long) tag << TAG_SHIFT) | ((long) clock << CLOCK_SHIFT) | address;
  }

  static int tagOf(long slot) {
    return (int) (slot >>> TAG_SHIFT);
  }

  static int clock(long slot) {
    return (int) (slot >>> CLOCK_SHIFT) & 3;
  }

  static long withClock(long slot, int clock) {
    return (slot & ~(3L << CLOCK_SHIFT)) | ((long) clock << CLOCK_SHIFT);
  }

  static long raiseClock(long slot) {
    return clock(slot) == MAX_CLOCK ? slot : slot + CLOCK_ONE;
  }

  static long address(long slot) {
    return slot & ADDRESS_MASK;
  }

  static long address(int page, int offset) {
    return ((long) page << OFFSET_BITS) | offset;
  }

  static int page(long address) {
    return (int) (address >>> OFFSET_BITS);
  }

  static int offset(long address) {
    return (int) (address & MAX_OFFSET);
  }
}
