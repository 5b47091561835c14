package dev.larder.internal.store;

import java.util.Arrays;

/**
 * A count-min sketch of 4-bit counters that estimates how often each key hash was requested, with
 * periodic aging so that old popularity fades (the TinyLFU admission filter).
 *
 * <p>Implementation notes. Each long holds sixteen 4-bit counters; a hash selects one counter in
 * each of four rows (four independent rehashes), and the estimate is the minimum of the four. Rows
 * are indexed by multiply-shift range reduction rather than a power-of-two mask, so the sketch can
 * be sized to the index exactly (about two bytes a slot) instead of up to twice that. After {@code
 * sampleSize} increments every counter is halved, so frequencies describe a recent window of
 * requests. Readers increment concurrently without synchronisation: a racing increment or a race
 * with the halving may be lost, which only makes the estimate slightly lower, and can never produce
 * a value outside 0-15. The sketch is resized (and forgets) when the segment's index grows.
 *
 * <p>A <em>deferred</em> sketch (an entry-bounded segment's, whose table is sized for the bound, 8
 * bytes an entry of it, whatever the segment holds) starts without its table: it records the hashes
 * it is asked to count, in order, until they would take a quarter of the table's bytes, or until an
 * estimate is asked for (the first admission contest, a split), and then builds the table by
 * replaying them. Counting is the same function of the same hashes in the same order, so the table,
 * the additions and the next halving are exactly those of a sketch that had its table from the
 * start, and every eviction decision is unchanged; a segment that is never read much nor full never
 * pays for the table. Readers append to the record as racily as they increment counters (a racing
 * append may be lost, as a racing increment may); growing the record and building the table are
 * done under the sketch's monitor, never on the path of an ordinary increment.
 */
final class FrequencySketch {

  private static final long[] SEEDS = {
    0x97CB3127C5E2D4A1L, 0xC3A5C85C97CB3127L, 0xB492B66FBE98F273L, 0x9AE16A3B2F90404FL
  };
  private static final long HALF_MASK = 0x7777_7777_7777_7777L;

  /** The counters; null while a deferred sketch is still recording (see the class notes). */
  private long[] table;

  /** Longs the table has, or will have when built. */
  private int length;

  /** Hashes counted while the table is deferred, oldest first; null if none or built. */
  private long[] pending;

  private int pendingCount;
  private final int countersPerEntry;
  private int sampleSize;
  private int additions;

  /**
   * Halvings of every count so far, plus {@link #FORGET_HALVINGS} for each resize that forgot them:
   * a measure of how much a count taken earlier has faded since. Written under the owner's
   * increments as racily as the counters; read racily.
   */
  private int halvings;

  /** Halvings that bring any 4-bit count to zero: what forgetting every count is worth. */
  static final int FORGET_HALVINGS = 4;

  /** Entries the sketch was last sized for. */
  private int expectedEntries;

  /** Increments per expected entry between halvings; see {@link #agingFactor(double)}. */
  private double agingFactor = INITIAL_AGING;

  /**
   * Increments per expected entry between halvings when a segment starts: TinyLFU's sample of ten
   * capacities, as Caffeine uses. The policy then moves it within {@link #MIN_AGING} and {@link
   * #MAX_AGING} (docs/design/eviction.md, "Adapting the sketch's history").
   */
  static final double INITIAL_AGING = 10;

  /**
   * The shortest and longest history the policy may choose. Fixed at 40 the longest lost 16 points
   * on P6 at 131k entries in the simulator (hot keys saturate their 4-bit counters and tie), at 5
   * the shortest lost 2-6 points on loops and scans; the adaptation keeps within 5-20.
   */
  static final double MIN_AGING = 5;

  static final double MAX_AGING = 20;

  /**
   * @param expectedEntries entries the sketch should describe
   * @param countersPerEntry 4-bit counters per expected entry (a multiple of 4): 16 as Caffeine
   *     uses where memory is not the bound, fewer where every byte an entry costs counts against a
   *     byte bound
   */
  FrequencySketch(int expectedEntries, int countersPerEntry) {
    this(expectedEntries, countersPerEntry, false);
  }

  /**
   * @param expectedEntries entries the sketch should describe
   * @param countersPerEntry as above
   * @param deferred whether to defer the table until it is needed (see the class notes)
   */
  FrequencySketch(int expectedEntries, int countersPerEntry, boolean deferred) {
    this.countersPerEntry = countersPerEntry;
    resize(expectedEntries);
    if (!deferred) {
      table = new long[length];
    }
  }

  /** Grows the sketch to suit {@code expectedEntries}; counts are forgotten if it grows. */
  void ensureCapacity(int expectedEntries) {
    if (longsFor(expectedEntries) > length * 2L) {
      resize(expectedEntries);
    }
  }

  /** Returns the bytes {@link #ensureCapacity} would add for {@code expectedEntries}. */
  long growthFor(int expectedEntries) {
    int longs = longsFor(expectedEntries);
    return longs > length * 2L ? 8L * (longs - length) : 0;
  }

  /** Returns bytes the sketch holds now: its table, or what a deferred sketch recorded. */
  long bytes() {
    long[] t = table;
    if (t != null) {
      return 16L + 8L * t.length;
    }
    long[] p = pending;
    return p == null ? 0 : 16L + 8L * p.length;
  }

  /** Returns bytes of the table, built or not: what it holds once built; for tests. */
  long tableBytes() {
    return 16L + 8L * length;
  }

  /** Returns whether the table has been built; for tests. */
  boolean built() {
    return table != null;
  }

  int frequency(long hash) {
    long[] t = table;
    if (t == null) {
      t = build();
    }
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
    if (t == null) {
      record(hash);
      return;
    }
    count(t, hash);
  }

  /** Counts {@code hash} in {@code t}: the increment itself, on the built table. */
  private void count(long[] t, long hash) {
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
    halvings++;
  }

  /**
   * Returns how many times every count has been halved so far (a forgetting resize counts as {@link
   * #FORGET_HALVINGS}), so that a threshold taken from a count can fade with it: a count {@code c}
   * read when this returned {@code h} is worth about {@code c >>> (halvings() - h)} now. A racy
   * read.
   */
  int halvings() {
    return halvings;
  }

  /**
   * Records a hash for a deferred table: appended at once if the record has room (as racy as an
   * increment), else under the monitor, which grows the record or, once it would pass a quarter of
   * the table's bytes, builds the table and counts the hash there.
   */
  private void record(long hash) {
    long[] p = pending;
    int n = pendingCount;
    if (p != null && n < p.length) {
      p[n] = hash;
      pendingCount = n + 1;
      return;
    }
    recordSlowly(hash);
  }

  private synchronized void recordSlowly(long hash) {
    long[] t = table;
    if (t == null) {
      long[] p = pending;
      int n = pendingCount;
      int most = Math.max(MIN_PENDING, length / 4);
      if (p == null || (n >= p.length && p.length < most)) {
        p = p == null ? new long[MIN_PENDING] : Arrays.copyOf(p, Math.min(most, p.length * 2));
        pending = p;
      }
      if (n < p.length) {
        p[n] = hash;
        pendingCount = n + 1;
        return;
      }
      t = build();
    }
    count(t, hash);
  }

  /** Longs a deferred sketch's record starts with. */
  private static final int MIN_PENDING = 8;

  /**
   * Builds a deferred table from the recorded hashes, replayed in order; returns the table if it is
   * built already.
   */
  private synchronized long[] build() {
    long[] t = table;
    if (t != null) {
      return t;
    }
    t = new long[length];
    long[] p = pending;
    for (int i = 0, n = p == null ? 0 : Math.min(pendingCount, p.length); i < n; i++) {
      count(t, p[i]);
    }
    table = t;
    pending = null;
    pendingCount = 0;
    return t;
  }

  /**
   * Sizes the sketch for {@code expectedEntries} with every count forgotten: a new table, or for a
   * deferred one an empty record.
   */
  private void resize(int expectedEntries) {
    length = longsFor(expectedEntries);
    if (table != null) {
      table = new long[length];
    } else {
      pending = null;
      pendingCount = 0;
    }
    this.expectedEntries = expectedEntries;
    sampleSize = sampleSizeFor(expectedEntries, agingFactor);
    additions = 0;
    halvings += FORGET_HALVINGS;
  }

  /** Returns the current increments per expected entry between halvings. */
  double agingFactor() {
    return agingFactor;
  }

  /**
   * Sets the history the sketch keeps: {@code factor} increments per expected entry between
   * halvings, clamped to {@link #MIN_AGING}-{@link #MAX_AGING}. Counts are kept; the next halving
   * comes when the new period is reached. Called under the segment's write lock; readers see the
   * new period racily, which only moves a halving by a few increments.
   */
  void agingFactor(double factor) {
    if (table == null) {
      build(); // the recorded hashes are counted with the history they were recorded under
    }
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
