package dev.larder.http;

import dev.larder.LatencySummary;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A cache's figures as the HTTP endpoints show them ({@code /api/caches}, {@code /metrics}, the
 * console), read when a report is made. A figure the cache does not measure is empty, and the
 * endpoints leave it out rather than show 0 (docs/design/console.md lists what is left out where).
 *
 * @param entries the number of entries (an estimate, as {@code Cache.estimatedSize()})
 * @param memoryUsed bytes the cache reserves
 * @param maximumMemory the byte bound, or empty if there is none
 * @param maximumEntries the entry bound, or empty if there is none
 * @param statistics whether the cache records its counts (when not, they read 0)
 * @param hits reads that found a value
 * @param misses reads that found none
 * @param puts values stored, or empty if not measured
 * @param evictions entries evicted to honour the bound
 * @param expirations entries removed because they expired
 * @param removals entries removed explicitly, or empty if not measured
 * @param loadSuccesses loads that returned a value, or empty if not measured
 * @param loadFailures loads that failed, or empty if not measured
 * @param getLatency latency of reads, or empty if not measured
 * @param putLatency latency of writes, or empty if not measured
 * @param loadLatency latency of loads, or empty if not measured
 * @param dictionary the value dictionary's figures, or empty if the cache has none
 */
public record CacheFigures(
    long entries,
    long memoryUsed,
    OptionalLong maximumMemory,
    OptionalLong maximumEntries,
    boolean statistics,
    long hits,
    long misses,
    OptionalLong puts,
    long evictions,
    long expirations,
    OptionalLong removals,
    OptionalLong loadSuccesses,
    OptionalLong loadFailures,
    Optional<LatencySummary> getLatency,
    Optional<LatencySummary> putLatency,
    Optional<LatencySummary> loadLatency,
    Optional<Dictionary> dictionary) {

  /**
   * A value dictionary's figures.
   *
   * @param entries values interned
   * @param memoryUsed bytes it uses
   */
  public record Dictionary(long entries, long memoryUsed) {}

  /** Checks that no component is null (an unmeasured figure is empty, not null). */
  public CacheFigures {
    Objects.requireNonNull(maximumMemory, "maximumMemory");
    Objects.requireNonNull(maximumEntries, "maximumEntries");
    Objects.requireNonNull(puts, "puts");
    Objects.requireNonNull(removals, "removals");
    Objects.requireNonNull(loadSuccesses, "loadSuccesses");
    Objects.requireNonNull(loadFailures, "loadFailures");
    Objects.requireNonNull(getLatency, "getLatency");
    Objects.requireNonNull(putLatency, "putLatency");
    Objects.requireNonNull(loadLatency, "loadLatency");
    Objects.requireNonNull(dictionary, "dictionary");
  }

  /** Returns hits over reads, or empty when no read was counted. */
  public Optional<Double> hitRatio() {
    long reads = hits + misses;
    return reads == 0 ? Optional.empty() : Optional.of((double) hits / reads);
  }
}
