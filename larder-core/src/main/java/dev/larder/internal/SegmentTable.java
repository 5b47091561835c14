package dev.larder.internal;

import dev.larder.internal.store.Segment;
import dev.larder.internal.store.StoreSettings;
import dev.larder.internal.store.WriteResult;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The segments of a cache, and which one holds a key hash. Thread-safe.
 *
 * <p>Implementation notes. A cache whose bound calls for several segments (lock stripes, each
 * with its own index, pages and policy tables) starts with one, the first, which every hash
 * routes to: a bound is a ceiling, and a cache that holds a few entries should not pay sixteen
 * segments' fixed costs and partly filled pages. The first segment has the settings of one
 * stripe (its share of the bound, so it refuses exactly the entries a stripe would). Once it
 * holds {@link StoreSizing#splitBytes} or {@link StoreSizing#splitEntries} (at most a quarter
 * of that share, so it has evicted nothing and its successors take every entry without
 * evicting), the next write splits it into all the stripes at once ({@link Segment#splitInto});
 * routes are then {@code hash & (count - 1)}, as in a cache that starts split.
 *
 * <p>Concurrency: the routes are an array never changed once published through a volatile
 * field. A caller that read the routes before a split reaches the first segment, which forwards
 * every call to the successor of its key once it has retired; its lock-free reads retry when
 * it retires (see Segment). Splitting and closing are serialized on this object's monitor, and
 * a split happens at most once.
 */
final class SegmentTable implements Iterable<Segment> {

  private final int mask;
  /** The first segment, if the cache started with one for all its stripes; else null. */
  private final Segment first;
  /** The cache's settings, from which the stripes' are derived when they are made. */
  private final CacheConfig<?, ?> config;
  private final long splitBytes;
  private final long splitEntries;
  /** Segment for each route, {@code hash & mask}; the first segment in every one until split. */
  private volatile Segment[] routes;
  /** The distinct segments that hold entries. */
  private volatile Segment[] segments;
  /** True until the first segment has split (or the cache closed first). */
  private volatile boolean merged;
  private boolean closed;

  SegmentTable(CacheConfig<?, ?> config) {
    int count = StoreSizing.segments(config);
    this.mask = count - 1;
    this.splitBytes = StoreSizing.splitBytes(config, count);
    this.splitEntries = StoreSizing.splitEntries(config, count);
    this.merged = count > 1 && splitEntries > 0;
    this.config = config;
    if (merged) {
      first = new Segment(StoreSizing.settings(config, count, 0));
      Segment[] all = new Segment[count];
      Arrays.fill(all, first);
      routes = all;
      segments = new Segment[] {first};
    } else {
      first = null;
      routes = newStripes();
      segments = routes;
    }
  }

  /** @return the segment that holds keys of {@code hash} */
  Segment route(long hash) {
    return routes[(int) hash & mask];
  }

  /** @return the number of routes: the stripes the bound calls for, split yet or not */
  int routeCount() {
    return mask + 1;
  }

  /**
   * Keys of route {@code index}, for the map views' iterators: their routes stay the same
   * across a split, so an iteration that straddles one visits every key present throughout.
   */
  List<byte[]> keys(int index) {
    Segment segment = routes[index];
    List<byte[]> keys = segment.keys();
    if (segment == first) {
      keys.removeIf(key -> ((int) Segment.hash(key, key.length) & mask) != index);
    }
    return keys;
  }

  /**
   * Adds up a figure of the distinct segments as they stood at one moment. A split publishes
   * the stripes (holding copies of every entry) before the first segment retires and its
   * figures drop to zero, so a sum that read the first segment after it retired is taken again,
   * over the stripes; without this a cache's size could read 0 for an instant mid-split.
   */
  long sum(ToLongFunction<Segment> figure) {
    for (;;) {
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

  /** @return the distinct segments at this moment */
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
    if (!merged) {
      return null;
    }
    Segment segment = first;
    if (segment.size() < splitEntries && segment.memoryUsed() + bytes < splitBytes) {
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
      all[i] = new Segment(stripes[i]);
    }
    return all;
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
