package dev.larder.bench.measure;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * Collections and collection time summed over the JVM's collectors, at one moment.
 *
 * @param count collections so far
 * @param millis accumulated collection time so far
 */
public record GcCounters(long count, long millis) {

  /** Returns the counters now. */
  public static GcCounters now() {
    long count = 0;
    long millis = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      count += Math.max(0, gc.getCollectionCount());
      millis += Math.max(0, gc.getCollectionTime());
    }
    return new GcCounters(count, millis);
  }

  /**
   * Returns the collections and time since {@code earlier}.
   *
   * @param earlier counters taken before
   */
  public GcCounters since(GcCounters earlier) {
    return new GcCounters(count - earlier.count, millis - earlier.millis);
  }
}
