package dev.larder;

/**
 * Percentiles of an operation's latency, in nanoseconds, since the cache was built.
 *
 * @param count operations recorded
 * @param p50Nanos median
 * @param p90Nanos 90th percentile
 * @param p99Nanos 99th percentile
 * @param p999Nanos 99.9th percentile
 * @param maxNanos the largest
 */
public record LatencySummary(
    long count, long p50Nanos, long p90Nanos, long p99Nanos, long p999Nanos, long maxNanos) {

  /** No operations recorded. */
  public static final LatencySummary EMPTY = new LatencySummary(0, 0, 0, 0, 0, 0);
}
