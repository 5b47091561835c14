package dev.larder.client.internal;

import redis.clients.jedis.csc.CacheStats;

/**
 * Jedis's statistics object, with the counters that Jedis leaves to the cache (loads, evictions,
 * flushes, invalidations) reachable from this package. Jedis counts hits, misses and uncacheable
 * commands itself. Thread-safe: the counters are atomics.
 */
public final class NearCacheStats extends CacheStats {

  /** Counts a reply stored. */
  public void countLoad() {
    load();
  }

  /** Counts an entry evicted for the byte bound. */
  public void countEviction() {
    evict();
  }

  /** Counts a flush. */
  public void countFlush() {
    flush();
  }

  /** Counts an invalidation message for one Redis key. */
  public void countInvalidationMessage() {
    invalidationMessages();
  }

  /** Counts entries found retired by an invalidation and removed. */
  public void countInvalidatedEntries(int entries) {
    invalidationByServer(entries);
  }
}
