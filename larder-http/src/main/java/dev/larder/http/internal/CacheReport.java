package dev.larder.http.internal;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.larder.LatencySummary;
import dev.larder.http.CacheDirectory.Registration;
import dev.larder.http.CacheFigures;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One cache's figures as {@code /api/caches} reports them (the JSON field names are the component
 * names; docs/design/console.md lists them). Every figure is read from the cache's {@link
 * CacheFigures} when the report is made. A count the cache does not measure is left out of the JSON
 * (not written as null or 0), and so is the latency of an operation it does not time.
 *
 * @param name the cache's name in the directory
 * @param entries the number of entries
 * @param memoryUsed bytes
 * @param maximumMemory the byte bound, or null if there is none
 * @param maximumEntries the entry bound, or null if there is none
 * @param statistics whether the cache records statistics (the counts are 0 when not)
 * @param hitRatio hits over reads, or null when no read was recorded
 * @param hits reads that found a value
 * @param misses reads that found none
 * @param puts values stored; left out if not measured
 * @param evictions entries evicted to honour the bound
 * @param expirations entries removed because they expired
 * @param removals entries removed explicitly; left out if not measured
 * @param loadSuccesses loads that returned a value; left out if not measured
 * @param loadFailures loads that failed; left out if not measured
 * @param latency {@code get}, {@code put} and {@code load} latency percentiles, each only if
 *     measured
 * @param dictionary the value dictionary's size, or null if the cache has none
 * @param rest the media type of entries over REST, or null if the cache serves none
 */
record CacheReport(
    String name,
    long entries,
    long memoryUsed,
    Long maximumMemory,
    Long maximumEntries,
    boolean statistics,
    Double hitRatio,
    long hits,
    long misses,
    @JsonInclude(JsonInclude.Include.NON_NULL) Long puts,
    long evictions,
    long expirations,
    @JsonInclude(JsonInclude.Include.NON_NULL) Long removals,
    @JsonInclude(JsonInclude.Include.NON_NULL) Long loadSuccesses,
    @JsonInclude(JsonInclude.Include.NON_NULL) Long loadFailures,
    Map<String, Latency> latency,
    Dictionary dictionary,
    String rest) {

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
    CacheFigures f = registration.cache().figures();
    Map<String, Latency> latency = new LinkedHashMap<>();
    latency(latency, "get", f.getLatency());
    latency(latency, "put", f.putLatency());
    latency(latency, "load", f.loadLatency());
    Dictionary dictionary =
        f.dictionary().map(d -> new Dictionary(d.entries(), d.memoryUsed())).orElse(null);
    String rest = registration.values().map(v -> v.mediaType()).orElse(null);
    return new CacheReport(
        registration.name(),
        f.entries(),
        f.memoryUsed(),
        boxed(f.maximumMemory()),
        boxed(f.maximumEntries()),
        f.statistics(),
        f.hitRatio().orElse(null),
        f.hits(),
        f.misses(),
        boxed(f.puts()),
        f.evictions(),
        f.expirations(),
        boxed(f.removals()),
        boxed(f.loadSuccesses()),
        boxed(f.loadFailures()),
        latency,
        dictionary,
        rest);
  }

  private static void latency(
      Map<String, Latency> out, String operation, Optional<LatencySummary> summary) {
    summary.ifPresent(s -> out.put(operation, Latency.of(s)));
  }

  private static Long boxed(OptionalLong value) {
    return value.isPresent() ? value.getAsLong() : null;
  }
}
