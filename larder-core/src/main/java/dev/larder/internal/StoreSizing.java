package dev.larder.internal;

import dev.larder.internal.store.HotTable;
import dev.larder.internal.store.HotTierShare;
import dev.larder.internal.store.Segment;
import dev.larder.internal.store.StoreSettings;

/**
 * Derives the number of segments, the page size and each segment's share of the bound from a
 * cache's configuration.
 *
 * <p>Why these numbers: a segment must be large enough that its own policy sees a representative
 * sample of the keys (about 4096 entries or 16 MiB), so small caches get one segment and behave
 * exactly like a single policy; large caches get 16 stripes, plenty for two to a few dozen cores,
 * and more only where a segment's index (about 3.5 million entries) could not hold its share of the
 * bound. Pages are about 1/256 of a segment's budget: small enough that the partly filled head
 * pages cost little, large enough that the space lost at page ends (half an entry a page on
 * average) stays small. That is the size a segment's pages grow to as it fills; a segment of a
 * large byte bound starts with small pages ({@code StoreSettings.firstPageSize}), so that a large
 * bound reserves little up front.
 */
final class StoreSizing {

  /** The most segments derived from a bound (more only where the indexes need them). */
  static final int MAX_SEGMENTS = 16;

  /** The most segments a cache may have: what the builder accepts. */
  static final int MOST_SEGMENTS = 256;

  /**
   * The least share of a byte bound a segment gets: the smallest bound a whole cache accepts. A
   * segment needs room for its index, its policy's tables and a page before it can hold an entry;
   * with less, every write to it would be refused.
   */
  static final long MIN_SEGMENT_BUDGET = 64 * 1024;

  /**
   * Bytes of a byte bound per segment above which small entries would fill a segment's index
   * ({@link Segment#MAX_ENTRIES}, about 3.5 million) before its budget: 128 MiB is entries of 38
   * bytes with their index slot, about the smallest there are (8-byte key and value).
   */
  static final long MAX_SEGMENT_BYTES = 128L << 20;

  static final int MIN_PAGE = 4 * 1024;
  static final int MAX_PAGE = 1024 * 1024;

  /**
   * Bytes a cache's first segment reserves at most before it splits into the segments its bound
   * calls for: enough entries (about 6,000 of 150 B) that a single policy sees a representative
   * sample, little enough that copying them is a short pause once in a cache's life.
   */
  static final long SPLIT_BYTES = 1L << 20;

  /** Entries a cache's first segment holds at most before it splits. */
  static final long SPLIT_ENTRIES = 4096;

  /** The smallest split point an entry bound may give: below it the cache starts split. */
  static final long MIN_SPLIT_ENTRIES = 16;

  /** Bytes of the cache's own objects outside the segments. */
  static final long CACHE_OVERHEAD = 1024;

  private StoreSizing() {}

  /**
   * Returns the segment count: the configured one, or one derived from the bound; in both cases no
   * fewer than the segments' indexes need to hold the bound, and no more than the bound can give
   * each its least share (one entry, or {@link #MIN_SEGMENT_BUDGET} bytes), so that the bound holds
   * and every segment can store.
   */
  static int segments(CacheConfig<?, ?> config) {
    int wanted = config.segments() > 0 ? config.segments() : derivedSegments(config);
    return Math.min(Math.max(wanted, leastSegments(config)), mostSegments(config));
  }

  /**
   * Returns the fewest segments whose indexes can hold the bound (entries, or small entries filling
   * a byte bound), rounded up to a power of two; more than were asked for or derived if need be, so
   * that the index never stops a cache short of its bound.
   */
  private static int leastSegments(CacheConfig<?, ?> config) {
    long needed;
    if (config.memoryBounded()) {
      needed = Math.ceilDiv(config.maximumMemory(), MAX_SEGMENT_BYTES);
    } else if (config.entryBounded()) {
      needed = Math.ceilDiv(config.maximumEntries(), Segment.MAX_ENTRIES);
    } else {
      return 1;
    }
    int capped = (int) Math.max(1, Math.min(MOST_SEGMENTS, needed));
    int power = Integer.highestOneBit(capped);
    return power == capped ? power : power << 1;
  }

  /** Returns the most segments that each get their least share of the bound, a power of two. */
  private static int mostSegments(CacheConfig<?, ?> config) {
    long most = MOST_SEGMENTS;
    if (config.memoryBounded()) {
      most = (config.maximumMemory() - CACHE_OVERHEAD) / MIN_SEGMENT_BUDGET;
    } else if (config.entryBounded()) {
      most = config.maximumEntries();
    }
    return Integer.highestOneBit((int) Math.max(1, Math.min(MOST_SEGMENTS, most)));
  }

  private static int derivedSegments(CacheConfig<?, ?> config) {
    long units;
    if (config.memoryBounded()) {
      units = config.maximumMemory() / (16L << 20);
    } else if (config.entryBounded()) {
      units = config.maximumEntries() / 4096;
    } else {
      units = MAX_SEGMENTS;
    }
    return Integer.highestOneBit((int) Math.max(1, Math.min(MAX_SEGMENTS, units)));
  }

  /**
   * Bytes a cache's first segment may reserve before it splits into {@code segments} (see {@code
   * SegmentTable}): {@value #SPLIT_BYTES}, or a quarter of one segment's share of a byte bound if
   * less, so that the first segment never evicts and each successor takes its part without
   * evicting.
   */
  static long splitBytes(CacheConfig<?, ?> config, int segments) {
    if (!config.memoryBounded()) {
      return SPLIT_BYTES;
    }
    return Math.min(SPLIT_BYTES, (config.maximumMemory() - CACHE_OVERHEAD) / segments / 4);
  }

  /**
   * Entries a cache's first segment may hold before it splits into {@code segments}: {@value
   * #SPLIT_ENTRIES}, or a sixteenth of one segment's share of an entry bound if less; 0 where that
   * is under {@value #MIN_SPLIT_ENTRIES} (then the cache starts split). A sixteenth, not a quarter
   * as for bytes: an entry-bounded cache pays for its policy tables by its bound from the start, so
   * one segment saves less, and a shorter first phase moved the hit ratios of the entry-bounded
   * traces less (docs/design/small-caches.md).
   */
  static long splitEntries(CacheConfig<?, ?> config, int segments) {
    if (!config.entryBounded()) {
      return SPLIT_ENTRIES;
    }
    long sixteenth = config.maximumEntries() / segments / 16;
    return sixteenth < MIN_SPLIT_ENTRIES ? 0 : Math.min(SPLIT_ENTRIES, sixteenth);
  }

  /**
   * Returns each of {@code segments} segments' share of the hot tier, or null if there is none.
   *
   * @param table the cache's table of hot entries
   */
  static HotTierShare hotShare(CacheConfig<?, ?> config, int segments, HotTable table) {
    if (table == null) {
      return null;
    }
    long bytes =
        config.hotTierBytes() == Long.MAX_VALUE ? Long.MAX_VALUE : config.hotTierBytes() / segments;
    long entries =
        config.hotTierEntries() == Long.MAX_VALUE
            ? Long.MAX_VALUE
            : Math.max(1, Math.ceilDiv(config.hotTierEntries(), segments));
    return new HotTierShare(table, bytes, entries);
  }

  /** Returns the settings of each of {@code segments} segments. */
  static StoreSettings[] settings(CacheConfig<?, ?> config, int segments) {
    StoreSettings[] settings = new StoreSettings[segments];
    for (int i = 0; i < segments; i++) {
      settings[i] = settings(config, segments, i);
    }
    return settings;
  }

  /** Returns the settings of segment {@code index} of {@code segments}. */
  static StoreSettings settings(CacheConfig<?, ?> config, int segments, int index) {
    long budget = Long.MAX_VALUE;
    long entries = Long.MAX_VALUE;
    int pageSize;
    if (config.memoryBounded()) {
      budget = (config.maximumMemory() - CACHE_OVERHEAD) / segments;
      pageSize = clampPage(Long.highestOneBit(Math.max(1, budget / 256)));
    } else if (config.entryBounded()) {
      entries =
          config.maximumEntries() / segments + (index < config.maximumEntries() % segments ? 1 : 0);
      pageSize = entries < 1024 ? 16 * 1024 : 64 * 1024;
    } else {
      pageSize = 64 * 1024;
    }
    return new StoreSettings(
        config.storage(),
        pageSize,
        budget,
        entries,
        config.expireAfterWriteNanos(),
        config.expireAfterAccessNanos(),
        config.removalListener() != null,
        config.evictionListener() != null);
  }

  private static int clampPage(long size) {
    return (int) Math.max(MIN_PAGE, Math.min(MAX_PAGE, size));
  }
}
