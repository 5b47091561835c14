package dev.larder.cluster.internal;

import dev.larder.Cache;
import dev.larder.cluster.NearCacheStats;
import dev.larder.codec.Codecs;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

/**
 * A member's bounded copies of keys it does not own (distributed mode), as stored bytes.
 * Thread-safe.
 *
 * <p>Implementation notes. The danger is a reply that was read before a write and arrives after
 * that write's invalidation: inserting it would keep a stale copy. Keys hash to stripes, each with
 * a lock and a version; an invalidation bumps its stripe's version under the lock, and a reader
 * notes the version before it asks the owner and inserts the reply only if the version is unchanged
 * (checked and inserted under the same lock). A flush (view change) bumps every stripe, then clears
 * the store.
 */
final class NearCache implements AutoCloseable {

  private static final int STRIPES = 64;

  private final Cache<byte[], byte[]> store;
  private final Object[] locks = new Object[STRIPES];
  private final long[] versions = new long[STRIPES];
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder invalidations = new LongAdder();

  NearCache(long entries) {
    store = Cache.builder(Codecs.bytes(), Codecs.bytes()).maximumEntries(entries).build();
    for (int i = 0; i < STRIPES; i++) {
      locks[i] = new Object();
    }
  }

  private static int stripe(byte[] key) {
    return ConsistentHash.segmentOf(key, 1 << 20) & (STRIPES - 1);
  }

  /** Returns the stored copy, or null; counts a hit or a miss. */
  byte[] get(byte[] key) {
    byte[] v = store.getIfPresent(key);
    (v == null ? misses : hits).increment();
    return v;
  }

  /** Returns the key's stripe version, to pass to {@link #offer}. */
  long version(byte[] key) {
    int i = stripe(key);
    synchronized (locks[i]) {
      return versions[i];
    }
  }

  /**
   * Keeps a copy read from an owner unless an invalidation of its stripe came since {@code version}
   * was taken, or {@code valid} says no (checked under the stripe lock).
   */
  void offer(byte[] key, byte[] stored, long version, BooleanSupplier valid) {
    int i = stripe(key);
    synchronized (locks[i]) {
      if (versions[i] == version && valid.getAsBoolean()) {
        store.put(key, stored);
      }
    }
  }

  /** Drops a key's copy, and any reply for its stripe still in flight. */
  void invalidate(byte[] key) {
    int i = stripe(key);
    synchronized (locks[i]) {
      versions[i]++;
      store.invalidate(key);
    }
    invalidations.increment();
  }

  /** Drops every copy and every reply in flight. */
  void flush() {
    for (int i = 0; i < STRIPES; i++) {
      synchronized (locks[i]) {
        versions[i]++;
      }
    }
    store.invalidateAll();
  }

  NearCacheStats stats() {
    return new NearCacheStats(
        hits.sum(), misses.sum(), invalidations.sum(), store.estimatedSize(), store.memoryUsed());
  }

  @Override
  public void close() {
    store.close();
  }
}
