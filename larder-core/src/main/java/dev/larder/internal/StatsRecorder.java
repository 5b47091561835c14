package dev.larder.internal;

import dev.larder.CacheStats;
import dev.larder.LatencySummary;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Counters and latency histograms of one cache. Counters are striped ({@link LongAdder}) so
 * that recording does not contend; histograms are HdrHistogram's concurrent variant, whose
 * writers never wait. A disabled recorder does nothing and reports zeros.
 */
final class StatsRecorder {

  private final boolean enabled;
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder loadSuccesses = new LongAdder();
  private final LongAdder loadFailures = new LongAdder();
  private final LongAdder evictions = new LongAdder();
  private final LongAdder expirations = new LongAdder();
  private final LongAdder puts = new LongAdder();
  private final LongAdder removals = new LongAdder();
  private final Histogram getLatency;
  private final Histogram putLatency;
  private final Histogram loadLatency;

  StatsRecorder(boolean enabled) {
    this.enabled = enabled;
    this.getLatency = enabled ? new ConcurrentHistogram(2) : null;
    this.putLatency = enabled ? new ConcurrentHistogram(2) : null;
    this.loadLatency = enabled ? new ConcurrentHistogram(2) : null;
  }

  boolean enabled() {
    return enabled;
  }

  void recordGet(boolean hit, long nanos) {
    if (enabled) {
      (hit ? hits : misses).increment();
      getLatency.recordValue(Math.max(0, nanos));
    }
  }

  void recordPut(long nanos) {
    if (enabled) {
      puts.increment();
      putLatency.recordValue(Math.max(0, nanos));
    }
  }

  void recordLoad(boolean success, long nanos) {
    if (enabled) {
      (success ? loadSuccesses : loadFailures).increment();
      loadLatency.recordValue(Math.max(0, nanos));
    }
  }

  void recordRemoval() {
    if (enabled) {
      removals.increment();
    }
  }

  void recordRemovals(int count) {
    if (enabled && count > 0) {
      removals.add(count);
    }
  }

  void recordEvictions(int evicted, int expired) {
    if (enabled) {
      if (evicted > 0) {
        evictions.add(evicted);
      }
      if (expired > 0) {
        expirations.add(expired);
      }
    }
  }

  CacheStats snapshot() {
    if (!enabled) {
      return new CacheStats(0, 0, 0, 0, 0, 0, 0, 0,
          LatencySummary.EMPTY, LatencySummary.EMPTY, LatencySummary.EMPTY);
    }
    return new CacheStats(hits.sum(), misses.sum(), loadSuccesses.sum(), loadFailures.sum(),
        evictions.sum(), expirations.sum(), puts.sum(), removals.sum(),
        summary(getLatency), summary(putLatency), summary(loadLatency));
  }

  private static LatencySummary summary(Histogram histogram) {
    Histogram copy = histogram.copy();
    if (copy.getTotalCount() == 0) {
      return LatencySummary.EMPTY;
    }
    return new LatencySummary(copy.getTotalCount(), copy.getValueAtPercentile(50),
        copy.getValueAtPercentile(90), copy.getValueAtPercentile(99),
        copy.getValueAtPercentile(99.9), copy.getMaxValue());
  }
}
