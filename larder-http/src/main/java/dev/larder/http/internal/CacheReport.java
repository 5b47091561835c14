package dev.larder.http.internal;

import dev.larder.Cache;
import dev.larder.CacheStats;
import dev.larder.LatencySummary;
import dev.larder.http.CacheDirectory.Registration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One cache's figures as {@code /api/caches} reports them (the JSON field names are the
 * component names; docs/design/console.md lists them). Every figure is read from the cache when
 * the report is made: {@link Cache#stats()}, {@link Cache#estimatedSize()},
 * {@link Cache#memoryUsed()} and the bounds.
 *
 * @param name the cache's name in the directory
 * @param entries {@link Cache#estimatedSize()}
 * @param memoryUsed {@link Cache#memoryUsed()}, bytes
 * @param maximumMemory the byte bound, or null if there is none
 * @param maximumEntries the entry bound, or null if there is none
 * @param statistics whether the cache records statistics (the counts are 0 when not)
 * @param hitRatio hits over reads, or null when no read was recorded
 * @param hits reads that found a value
 * @param misses reads that found none
 * @param puts values stored
 * @param evictions entries evicted to honour the bound
 * @param expirations entries removed because they expired
 * @param removals entries removed explicitly
 * @param loadSuccesses loads that returned a value
 * @param loadFailures loads that failed
 * @param latency {@code get}, {@code put} and {@code load} latency percentiles
 * @param dictionary the value dictionary's size, or null if the cache has none
 * @param rest the media type of entries over REST, or null if the cache serves none
 */
record CacheReport(
    String name, long entries, long memoryUsed, Long maximumMemory, Long maximumEntries,
    boolean statistics, Double hitRatio, long hits, long misses, long puts, long evictions,
    long expirations, long removals, long loadSuccesses, long loadFailures,
    Map<String, Latency> latency, Dictionary dictionary, String rest) {

  /**
   * @param count operations recorded
   * @param p50Nanos median, nanoseconds
   * @param p99Nanos 99th percentile, nanoseconds
   */
  record Latency(long count, long p50Nanos, long p99Nanos) {
    static Latency of(LatencySummary summary) {
      return new Latency(summary.count(), summary.p50Nanos(), summary.p99Nanos());
    }
  }

  /**
   * @param entries values interned
   * @param memoryUsed bytes it uses
   */
  record Dictionary(long entries, long memoryUsed) {}

  /**
   * Reads a cache's figures.
   *
   * @throws IllegalStateException if the cache is closed
   */
  static CacheReport of(Registration<?, ?> registration) {
    Cache<?, ?> cache = registration.cache();
    CacheStats stats = cache.stats();
    Map<String, Latency> latency = new LinkedHashMap<>();
    latency.put("get", Latency.of(stats.getLatency()));
    latency.put("put", Latency.of(stats.putLatency()));
    latency.put("load", Latency.of(stats.loadLatency()));
    Dictionary dictionary = cache.dictionary()
        .map(d -> new Dictionary(d.size(), d.memoryUsed()))
        .orElse(null);
    Double hitRatio = stats.requestCount() == 0 ? null : stats.hitRatio();
    String rest = registration.values().map(v -> v.mediaType()).orElse(null);
    return new CacheReport(registration.name(), cache.estimatedSize(), cache.memoryUsed(),
        boxed(cache.maximumMemory()), boxed(cache.maximumEntries()), cache.recordsStats(),
        hitRatio, stats.hitCount(), stats.missCount(), stats.putCount(), stats.evictionCount(),
        stats.expirationCount(), stats.removalCount(), stats.loadSuccessCount(),
        stats.loadFailureCount(), latency, dictionary, rest);
  }

  private static Long boxed(java.util.OptionalLong value) {
    return value.isPresent() ? value.getAsLong() : null;
  }
}
