package dev.larder.internal;

import dev.larder.internal.store.HotTable;
import dev.larder.internal.store.HotTierShare;
import dev.larder.internal.store.Segment;
import dev.larder.internal.store.StoreSettings;
import dev.larder.internal.store.WriteResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The segments of a cache, and which one holds a key hash. Thread-safe.
 *
 * <p>Implementation notes. A cache whose bound calls for several segments (lock stripes, each with
 * its own index, pages and policy tables) starts with one, the first, which every hash routes to: a
 * bound is a ceiling, and a cache that holds a few entries should not pay sixteen segments' fixed
 * costs and partly filled pages. The first segment has the settings of one stripe (its share of the
 * bound, so it refuses exactly the entries a stripe would). Once it holds {@link
 * StoreSizing#splitBytes} or {@link StoreSizing#splitEntries} (at most a quarter of that share, so
 * it has evicted nothing and its successors take every entry without evicting), the next write
 * splits it into all the stripes at once ({@link Segment#splitInto}); routes are then {@code hash &
 * (count - 1)}, as in a cache that starts split.
 *
 * <p>No segment exists until the cache is first used: the first read or write (a read counts the
 * key in the policy's sketch, so it needs the segment as much as a write) makes the first segment,
 * or the stripes. A cache built and never used holds its configuration and this table, nothing
 * sized by its bound; an application that declares many caches (a region or a cache name each) pays
 * for the ones it uses.
 *
 * <p>Concurrency: the routes are an array never changed once published through a volatile field,
 * null until the first use; a caller that reads null routes takes this object's monitor to make
 * them (or find them made). A caller that read the routes before a split reaches the first segment,
 * which forwards every call to the successor of its key once it has retired; its lock-free reads
 * retry when it retires (see Segment). Making the segments, splitting and closing are serialized on
 * the monitor, and a split happens at most once. A cache closed before its first use never makes a
 * segment; a later use throws.
 */
final class SegmentTable implements Iterable<Segment> {

  private static final Segment[] NONE = new Segment[0];

  private final int mask;

  /** The cache's settings, from which the segments' are derived when they are made. */
  private final CacheConfig<?, ?> config;

  private final long splitBytes;
  private final long splitEntries;

  /**
   * The first segment, if the cache starts with one for all its stripes; else null, and null until
   * the cache is first used. Written under the monitor before {@link #routes}.
   */
  private Segment first;

  /**
   * Segment for each route, {@code hash & mask}; the first segment in every one until split; null
   * until the cache is first used.
   */
  private volatile Segment[] routes;

  /** The distinct segments that hold entries; none until the cache is first used. */
  private volatile Segment[] segments = NONE;

  /** True until the first segment has split (or the cache closed first). */
  private volatile boolean merged;

  private boolean closed;

  /** Whether the segments count their keys by first byte; set under the monitor, before any is. */
  private volatile boolean countFirstBytes;

  /** The value mark the segments count ({@link Segment#countKeysByFirstByte}). */
  private int valueMark;

  /** The hot tier's entries by key object, shared by every segment; null without a tier. */
  private final HotTable hotTable;

  /** Each segment's share of the hot tier, or null. */
  private final HotTierShare hotShare;

  SegmentTable(CacheConfig<?, ?> config) {
    int count = StoreSizing.segments(config);
    this.mask = count - 1;
    this.splitBytes = StoreSizing.splitBytes(config, count);
    this.splitEntries = StoreSizing.splitEntries(config, count);
    // A cache sized for more entries than its first segment holds before it splits starts split.
    this.merged = count > 1 && splitEntries > 0 && config.initialCapacity() <= splitEntries;
    this.config = config;
    this.hotTable = config.hotTier() ? new HotTable(config.expires()) : null;
    this.hotShare = StoreSizing.hotShare(config, count, hotTable);
  }

  /** Returns the hot tier's table of entries by key object, or null if there is no tier. */
  HotTable hotTable() {
    return hotTable;
  }

  /**
   * Returns the segment that holds keys of {@code hash}, made now if the cache has not been used
   * before.
   *
   * @throws IllegalStateException if the cache was closed before it was ever used
   */
  Segment route(long hash) {
    Segment[] r = routes;
    if (r == null) {
      r = open();
    }
    return r[(int) hash & mask];
  }

  /** Makes the segments at the cache's first use; returns the routes. */
  private synchronized Segment[] open() {
    Segment[] r = routes;
    if (r != null) {
      return r;
    }
    if (closed) {
      throw new IllegalStateException("cache is closed");
    }
    int count = mask + 1;
    long initial = config.initialCapacity();
    if (merged) {
      first = newSegment(StoreSizing.settings(config, count, 0));
      first.presize(initial);
      r = new Segment[count];
      Arrays.fill(r, first);
      segments = new Segment[] {first};
    } else {
      r = newStripes();
      for (Segment stripe : r) {
        stripe.presize(Math.ceilDiv(initial, count));
      }
      segments = r;
    }
    routes = r;
    return r;
  }

  /** Returns the number of routes: the stripes the bound calls for, split yet or not. */
  int routeCount() {
    return mask + 1;
  }

  /**
   * Keys of route {@code index}, for the map views' iterators: their routes stay the same across a
   * split, so an iteration that straddles one visits every key present throughout.
   *
   * @throws IllegalStateException if the cache is closed (a used one's segments throw it)
   */
  List<byte[]> keys(int index) {
    Segment[] r = routes;
    if (r == null) {
      return keysBeforeFirstUse();
    }
    Segment segment = r[index];
    List<byte[]> keys = segment.keys();
    if (segment == first) {
      keys.removeIf(key -> ((int) Segment.hash(key, key.length) & mask) != index);
    }
    return keys;
  }

  /** No keys in a cache not yet used; but a closed one refuses, as its segments would. */
  private synchronized List<byte[]> keysBeforeFirstUse() {
    if (closed) {
      throw new IllegalStateException("cache is closed");
    }
    return new ArrayList<>();
  }

  /**
   * Adds up a figure of the distinct segments as they stood at one moment. A split publishes the
   * stripes (holding copies of every entry) before the first segment retires and its figures drop
   * to zero, so a sum that read the first segment after it retired is taken again, over the
   * stripes; without this a cache's size could read 0 for an instant mid-split.
   */
  @SuppressWarnings("ReferenceEquality") // the array summed is still the table's (no resize)
  long sum(ToLongFunction<Segment> figure) {
    for (; ; ) {
      Segment[] now = segments;
      long total = 0;
      for (Segment segment : now) {
        total += figure.applyAsLong(segment);
      }
      if (segments == now) {
        return total;
      }
    }
  }

  /** Returns the distinct segments at this moment. */
  @Override
  public Iterator<Segment> iterator() {
    return Arrays.asList(segments).iterator();
  }

  /**
   * Splits the first segment if a write of {@code bytes} more would take it to its split point.
   *
   * @return what the split evicted (normally nothing), or null if there was no split
   */
  WriteResult splitIfDue(int bytes) {
    return splitIfDue(bytes, 1);
  }

  /**
   * Splits the first segment if {@code entries} more entries of {@code bytes} in all would take it
   * to its split point (a bulk restore's batch).
   *
   * @return what the split evicted (normally nothing), or null if there was no split
   */
  WriteResult splitIfDue(long bytes, int entries) {
    if (!merged || routes == null) {
      return null; // not yet used: the write that follows makes the first segment
    }
    Segment segment = first; // written before the routes just read
    if (segment.size() + (entries - 1L) < splitEntries
        && segment.memoryUsed() + bytes < splitBytes) {
      return null;
    }
    return split();
  }

  private synchronized WriteResult split() {
    if (!merged || closed) {
      return null;
    }
    WriteResult result = first.splitInto(this::newStripes, this::publish);
    merged = false;
    return result;
  }

  private Segment[] newStripes() {
    StoreSettings[] stripes = StoreSizing.settings(config, mask + 1);
    Segment[] all = new Segment[stripes.length];
    for (int i = 0; i < all.length; i++) {
      all[i] = newSegment(stripes[i]);
    }
    return all;
  }

  private Segment newSegment(StoreSettings settings) {
    Segment segment = new Segment(settings, hotShare);
    if (countFirstBytes) {
      segment.countKeysByFirstByte(valueMark);
    }
    return segment;
  }

  /**
   * Makes every segment count its keys by their first byte, and those whose value is marked ({@link
   * Segment#countKeysByFirstByte}).
   *
   * @throws IllegalStateException if the cache was used (or closed) already: its segments exist
   */
  synchronized void countKeysByFirstByte(int valueMark) {
    if (routes != null || closed) {
      throw new IllegalStateException("keys are counted by first byte only from a cache's start");
    }
    this.valueMark = valueMark;
    countFirstBytes = true;
  }

  /** Returns whether the segments count their keys by first byte. */
  boolean countsKeysByFirstByte() {
    return countFirstBytes;
  }

  private void publish(Segment[] stripesMade) {
    segments = stripesMade;
    routes = stripesMade;
  }

  /** Closes every segment (a split first segment closes its successors); later calls do nothing. */
  synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (Segment segment : segments) {
      segment.close();
    }
  }
}
