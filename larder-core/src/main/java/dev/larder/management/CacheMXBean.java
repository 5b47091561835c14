package dev.larder.management;

/**
 * The management view of one Larder cache, registered with the platform MBean server when the
 * cache is built with {@link dev.larder.CacheBuilder#managementName(String)}, under
 * {@code dev.larder:type=Cache,name="<name>"}, and unregistered by its close.
 *
 * <p>Every attribute is read when asked for, from the cache's own counters: statistics are those
 * of {@link dev.larder.Cache#stats()}, so they stay zero unless the cache records statistics
 * ({@link #isStatisticsEnabled()}). Latencies are in nanoseconds. Thread-safe, as the cache is.
 * A call that reaches a cache after it closed throws {@link IllegalStateException}, which JMX
 * clients see as a failed attribute read.
 */
public interface CacheMXBean {

  /** @return entries, exact at quiescence */
  long getEstimatedSize();

  /** @return bytes reserved by the cache, as {@link dev.larder.Cache#memoryUsed()} */
  long getMemoryUsed();

  /** @return the byte bound, or -1 if bounded by entries or unbounded */
  long getMaximumMemory();

  /** @return the entry bound, or -1 if there is none */
  long getMaximumEntries();

  /** @return whether statistics are recorded (every count below is zero otherwise) */
  boolean isStatisticsEnabled();

  /** @return reads that found a value */
  long getHitCount();

  /** @return reads that found none */
  long getMissCount();

  /** @return hits over reads, 1.0 when there were none */
  double getHitRatio();

  /** @return values stored by put, replace, compute and loads */
  long getPutCount();

  /** @return entries removed explicitly */
  long getRemovalCount();

  /** @return entries evicted to honour the bound */
  long getEvictionCount();

  /** @return entries removed because they expired */
  long getExpirationCount();

  /** @return loads that returned a value */
  long getLoadSuccessCount();

  /** @return loads that threw or returned null */
  long getLoadFailureCount();

  /** @return median read latency */
  long getGetLatencyP50Nanos();

  /** @return 99th percentile read latency */
  long getGetLatencyP99Nanos();

  /** @return median write latency */
  long getPutLatencyP50Nanos();

  /** @return 99th percentile write latency */
  long getPutLatencyP99Nanos();

  /** @return median load latency, the loader's time included */
  long getLoadLatencyP50Nanos();

  /** @return 99th percentile load latency */
  long getLoadLatencyP99Nanos();

  /** @return values interned in the cache's dictionary, or 0 without one */
  long getDictionaryEntries();

  /** @return bytes the dictionary uses, or 0 without one */
  long getDictionaryMemoryUsed();

  /** Removes every entry, as {@link dev.larder.Cache#invalidateAll()}. */
  void invalidateAll();

  /** Runs pending maintenance now, as {@link dev.larder.Cache#cleanUp()}. */
  void cleanUp();
}
