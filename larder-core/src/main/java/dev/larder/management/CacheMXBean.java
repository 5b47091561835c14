package dev.larder.management;

/**
 * The management view of one Larder cache, registered with the platform MBean server when the cache
 * is built with {@link dev.larder.CacheBuilder#managementName(String)}, under {@code
 * dev.larder:type=Cache,name="<name>"}, and unregistered by its close.
 *
 * <p>Every attribute is read when asked for, from the cache's own counters: statistics are those of
 * {@link dev.larder.Cache#stats()}, so they stay zero unless the cache records statistics ({@link
 * #isStatisticsEnabled()}). Latencies are in nanoseconds. Thread-safe, as the cache is. A call that
 * reaches a cache after it closed throws {@link IllegalStateException}, which JMX clients see as a
 * failed attribute read.
 */
public interface CacheMXBean {

  /** Returns entries, exact at quiescence. */
  long getEstimatedSize();

  /** Returns bytes reserved by the cache, as {@link dev.larder.Cache#memoryUsed()}. */
  long getMemoryUsed();

  /** Returns the byte bound, or -1 if bounded by entries or unbounded. */
  long getMaximumMemory();

  /** Returns the entry bound, or -1 if there is none. */
  long getMaximumEntries();

  /** Returns whether statistics are recorded (every count below is zero otherwise). */
  boolean isStatisticsEnabled();

  /** Returns reads that found a value. */
  long getHitCount();

  /** Returns reads that found none. */
  long getMissCount();

  /** Returns hits over reads, 1.0 when there were none. */
  double getHitRatio();

  /** Returns values stored by put, replace, compute and loads. */
  long getPutCount();

  /** Returns entries removed explicitly. */
  long getRemovalCount();

  /** Returns entries evicted to honour the bound. */
  long getEvictionCount();

  /** Returns entries removed because they expired. */
  long getExpirationCount();

  /** Returns loads that returned a value. */
  long getLoadSuccessCount();

  /** Returns loads that threw or returned null. */
  long getLoadFailureCount();

  /** Returns median read latency. */
  long getGetLatencyP50Nanos();

  /** Returns 99th percentile read latency. */
  long getGetLatencyP99Nanos();

  /** Returns median write latency. */
  long getPutLatencyP50Nanos();

  /** Returns 99th percentile write latency. */
  long getPutLatencyP99Nanos();

  /** Returns median load latency, the loader's time included. */
  long getLoadLatencyP50Nanos();

  /** Returns 99th percentile load latency. */
  long getLoadLatencyP99Nanos();

  /** Returns values interned in the cache's dictionary, or 0 without one. */
  long getDictionaryEntries();

  /** Returns bytes the dictionary uses, or 0 without one. */
  long getDictionaryMemoryUsed();

  /** Removes every entry, as {@link dev.larder.Cache#invalidateAll()}. */
  void invalidateAll();

  /** Runs pending maintenance now, as {@link dev.larder.Cache#cleanUp()}. */
  void cleanUp();
}
