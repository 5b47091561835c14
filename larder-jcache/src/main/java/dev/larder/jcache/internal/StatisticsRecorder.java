package dev.larder.jcache.internal;

/**
 * Counts a cache's JCache statistics while they are enabled, and nothing (not even a clock read)
 * while they are not. Each method takes the operation's start time from {@link #start()} where it
 * records a duration. Thread-safe.
 */
final class StatisticsRecorder {

  private final JCacheStatistics statistics = new JCacheStatistics();
  private volatile boolean enabled;

  JCacheStatistics mxBean() {
    return statistics;
  }

  void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  /** Returns now in nanoseconds, or 0 when disabled. */
  long start() {
    return enabled ? System.nanoTime() : 0;
  }

  void hit() {
    if (enabled) {
      statistics.hit();
    }
  }

  void miss() {
    if (enabled) {
      statistics.miss();
    }
  }

  /** Counts a read that hit or missed, and its time. */
  void get(boolean hit, long start) {
    if (enabled) {
      if (hit) {
        statistics.hit();
      } else {
        statistics.miss();
      }
      statistics.getTime(System.nanoTime() - start);
    }
  }

  /** Records a read's time; the read counted its hit or miss itself. */
  void getTime(long start) {
    if (enabled) {
      statistics.getTime(System.nanoTime() - start);
    }
  }

  void put(long start) {
    if (enabled) {
      statistics.put();
      statistics.putTime(System.nanoTime() - start);
    }
  }

  void removal(long start) {
    if (enabled) {
      statistics.removal();
      statistics.removeTime(System.nanoTime() - start);
    }
  }

  void eviction() {
    if (enabled) {
      statistics.eviction();
    }
  }
}
