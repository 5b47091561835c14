package dev.larder.internal.store;

/**
 * A count-min sketch of 4-bit counters that estimates how often each key hash was requested,
 * with periodic aging so that old popularity fades (the TinyLFU admission filter).
 *
 * <p>Implementation notes. Each long holds sixteen 4-bit counters; a hash selects one counter
 * in each of four rows (four independent rehashes), and the estimate is the minimum of the
 * four. Rows are indexed by multiply-shift range reduction rather than a power-of-two
 * mask, so the sketch can be sized to the index exactly (about two bytes a slot) instead of
 * up to twice that. After {@code sampleSize} increments every counter is halved, so frequencies describe
 * a recent window of requests. Readers increment concurrently without synchronisation: a racing
 * increment or a race with the halving may be lost, which only makes the estimate slightly
 * lower, and can never produce a value outside 0-15. The sketch is resized (and forgets) when
 * the segment's index grows.
 */
final class FrequencySketch {

  private static final long[] SEEDS = {
    0x97CB3127C5E2D4A1L, 0xC3A5C85C97CB3127L, 0xB492B66FBE98F273L, 0x9AE16A3B2F90404FL
  };
  private static final long HALF_MASK = 0x7777_7777_7777_7777L;

  private long[] table;
  private final int countersPerEntry;
  private int sampleSize;
  private int additions;
  /** Entries the sketch was last sized for. */
  private int expectedEntries;
  /** Increments per expected entry between halvings; see {@link #agingFactor(double)}. */
  private double agingFactor = INITIAL_AGING;

  /**
   * Increments per expected entry between halvings when a segment starts: TinyLFU's sample of
   * ten capacities, as Caffeine uses. The policy then moves it within {@link #MIN_AGING} and
   * {@link #MAX_AGING} (docs/design/eviction.md, "Adapting the sketch's history").
   */
  static final double INITIAL_AGING = 10;
  /**
   * The shortest and longest history the policy may choose. Fixed at 40 the longest lost 16
   * points on P6 at 131k entries in the simulator (hot keys saturate their 4-bit counters and
   * tie), at 5 the shortest lost 2-6 points on loops and scans; the adaptation keeps within 5-20.
   */
  static final double MIN_AGING = 5;
  static final double MAX_AGING = 20;

  /**
   * @param expectedEntries entries the sketch should describe
   * @param countersPerEntry 4-bit counters per expected entry (a multiple of 4): 16 as
   *     Caffeine uses where memory is not the bound, fewer where every byte an entry costs
   *     counts against a byte bound
   */
  FrequencySketch(int expectedEntries, int countersPerEntry) {
    this.countersPerEntry = countersPerEntry;
    resize(expectedEntries);
  }

  /** Grows the sketch to suit {@code expectedEntries}; counts are forgotten if it grows. */
  void ensureCapacity(int expectedEntries) {
    if (longsFor(expectedEntries) > table.length * 2L) {
      resize(expectedEntries);
    }
  }

  /** @return the bytes {@link #ensureCapacity} would add for {@code expectedEntries} */
  long growthFor(int expectedEntries) {
    int longs = longsFor(expectedEntries);
    return longs > table.length * 2L ? 8L * (longs - table.length) : 0;
  }

  long bytes() {
    return 16L + 8L * table.length;
  }

  int frequency(long hash) {
    long[] t = table;
    int min = 15;
    for (int row = 0; row < 4; row++) {
      long x = rehash(hash, row);
      int count = (int) (t[index(x, t.length)] >>> shift(x)) & 15;
      min = Math.min(min, count);
    }
    return min;
  }

  void increment(long hash) {
    long[] t = table;
    boolean added = false;
    for (int row = 0; row < 4; row++) {
      long x = rehash(hash, row);
      int index = index(x, t.length);
      int shift = shift(x);
      if (((t[index] >>> shift) & 15) < 15) {
        t[index] += 1L << shift;
        added = true;
      }
    }
    if (added && ++additions >= sampleSize) {
      age(t);
    }
  }

  private void age(long[] t) {
    for (int i = 0; i < t.length; i++) {
      t[i] = (t[i] >>> 1) & HALF_MASK;
    }
    additions = additions >>> 1;
  }

  private void resize(int expectedEntries) {
    int longs = longsFor(expectedEntries);
    table = new long[longs];
    this.expectedEntries = expectedEntries;
    sampleSize = sampleSizeFor(expectedEntries, agingFactor);
    additions = 0;
  }

  /** @return the current increments per expected entry between halvings */
  double agingFactor() {
    return agingFactor;
  }

  /**
   * Sets the history the sketch keeps: {@code factor} increments per expected entry between
   * halvings, clamped to {@link #MIN_AGING}-{@link #MAX_AGING}. Counts are kept; the next
   * halving comes when the new period is reached. Called under the segment's write lock;
   * readers see the new period racily, which only moves a halving by a few increments.
   */
  void agingFactor(double factor) {
    agingFactor = Math.max(MIN_AGING, Math.min(MAX_AGING, factor));
    sampleSize = sampleSizeFor(expectedEntries, agingFactor);
  }

  private static int sampleSizeFor(int expectedEntries, double factor) {
    return (int) Math.min(Integer.MAX_VALUE, (long) (factor * Math.max(16, expectedEntries)));
  }

  private int longsFor(int expectedEntries) {
    return (int) Math.max(8, (long) expectedEntries * countersPerEntry / 16);
  }

  private static int index(long x, int length) {
    return (int) (((x >>> 32) * length) >>> 32);
  }

  private static long rehash(long hash, int row) {
    long x = (hash + SEEDS[row]) * SEEDS[(row + 1) & 3];
    return x ^ (x >>> 29);
  }

  private static int shift(long x) {
    return ((int) x & 15) << 2;
  }

}
