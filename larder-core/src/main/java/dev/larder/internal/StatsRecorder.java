package dev.larder.internal;

import dev.larder.CacheStats;
import dev.larder.LatencySummary;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Counters and latency histograms of one cache. Counters are striped ({@link LongAdder}) so that
 * recording does not contend; histograms are HdrHistogram's concurrent variant, whose writers never
 * wait. A disabled recorder does nothing and reports zeros; there is one for the whole JVM ({@link
 * #of}), holding nothing, so a cache without statistics pays nothing for them.
 */
final class StatsRecorder {

  private static final StatsRecorder DISABLED = new StatsRecorder(false);

  private final boolean enabled;
  // all null when disabled
  private final LongAdder hits;
  private final LongAdder misses;
  private final LongAdder loadSuccesses;
  private final LongAdder loadFailures;
  private final LongAdder evictions;
  private final LongAdder expirations;
  private final LongAdder puts;
  private final LongAdder removals;
  private final Histogram getLatency;
  private final Histogram putLatency;
  private final Histogram loadLatency;

  private StatsRecorder(boolean enabled) {
    this.enabled = enabled;
    this.hits = enabled ? new LongAdder() : null;
    this.misses = enabled ? new LongAdder() : null;
    this.loadSuccesses = enabled ? new LongAdder() : null;
    this.loadFailures = enabled ? new LongAdder() : null;
    this.evictions = enabled ? new LongAdder() : null;
    this.expirations = enabled ? new LongAdder() : null;
    this.puts = enabled ? new LongAdder() : null;
    this.removals = enabled ? new LongAdder() : null;
    this.getLatency = enabled ? new ConcurrentHistogram(2) : null;
    this.putLatency = enabled ? new ConcurrentHistogram(2) : null;
    this.loadLatency = enabled ? new ConcurrentHistogram(2) : null;
  }

  /**
   * Returns a new recorder for one cache, or the shared one that records nothing.
   *
   * @param enabled whether to record
   */
  static StatsRecorder of(boolean enabled) {
    return enabled ? new StatsRecorder(true) : DISABLED;
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
      return new CacheStats(
          0, 0, 0, 0, 0, 0, 0, 0, LatencySummary.EMPTY, LatencySummary.EMPTY, LatencySummary.EMPTY);
    }
    return new CacheStats(
        hits.sum(),
        misses.sum(),
        loadSuccesses.sum(),
        loadFailures.sum(),
        evictions.sum(),
        expirations.sum(),
        puts.sum(),
        removals.sum(),
        summary(getLatency),
        summary(putLatency),
        summary(loadLatency));
  }

  private static LatencySummary summary(Histogram histogram) {
    Histogram copy = histogram.copy();
    if (copy.getTotalCount() == 0) {
      return LatencySummary.EMPTY;
    }
    return new LatencySummary(
        copy.getTotalCount(),
        copy.getValueAtPercentile(50),
        copy.getValueAtPercentile(90),
        copy.getValueAtPercentile(99),
        copy.getValueAtPercentile(99.9),
        copy.getMaxValue());
  }
}
