package dev.larder;

/**
 * A snapshot of a cache's statistics. Counters are exact at quiescence; under concurrent activity
 * each is individually up to date but they are not read atomically together.
 *
 * @param hitCount reads that found a value
 * @param missCount reads that found none
 * @param loadSuccessCount loads that returned a value
 * @param loadFailureCount loads that threw or returned null
 * @param evictionCount entries evicted to honour the bound
 * @param expirationCount entries removed because they expired
 * @param putCount values stored by put, replace, compute and loads
 * @param removalCount entries removed explicitly
 * @param getLatency latency of reads
 * @param putLatency latency of writes
 * @param loadLatency latency of loads (the loader's time included)
 */
public record CacheStats(
    long hitCount,
    long missCount,
    long loadSuccessCount,
    long loadFailureCount,
    long evictionCount,
    long expirationCount,
    long putCount,
    long removalCount,
    LatencySummary getLatency,
    LatencySummary putLatency,
    LatencySummary loadLatency) {

  /** Returns hits over requests, or 1.0 when there were no requests (as Caffeine reports). */
  public double hitRatio() {
    long requests = hitCount + missCount;
    return requests == 0 ? 1.0 : (double) hitCount / requests;
  }

  /** Returns hits plus misses. */
  public long requestCount() {
    return hitCount + missCount;
  }
}
