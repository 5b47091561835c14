package dev.larder.server.internal.net;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * What replies waiting for forces of the log cost under {@code appendfsync always}: how many rounds
 * of replies waited and how many were sent at once, the forces the reply path asked for, the forces
 * held back to gather more writes and for how long (mean), and where a waiting round's time went
 * (behind an earlier force, in its own force, from the force's end to its replies written on the
 * event loop), as means and as a distribution of the whole wait. INFO persistence shows them.
 *
 * <p>Thread-safe: event loops and the syncer record concurrently; a reading taken while they record
 * may mix counts of a moment apart.
 */
final class ReplyWaits {
  /** Buckets of powers of two microseconds: bucket b holds waits below 2^b µs (the last, more). */
  private static final int BUCKETS = 32;

  private final LongAdder atOnce = new LongAdder();
  private final LongAdder waited = new LongAdder();
  private final LongAdder forces = new LongAdder();
  private final LongAdder forceNanos = new LongAdder();
  private final LongAdder gathers = new LongAdder();
  private final LongAdder gatherNanos = new LongAdder();
  private final LongAdder queuedNanos = new LongAdder();
  private final LongAdder postedNanos = new LongAdder();
  private final AtomicLongArray waits = new AtomicLongArray(BUCKETS);

  /** A round whose records were already covered: written without waiting. */
  void sentAtOnce() {
    atOnce.increment();
  }

  /** One force the syncer ran, of {@code nanos}. */
  void forced(long nanos) {
    forces.increment();
    forceNanos.add(nanos);
  }

  /** The syncer held a force back for {@code nanos} to gather more writes into it. */
  void gathered(long nanos) {
    gathers.increment();
    gatherNanos.add(nanos);
  }

  /**
   * A round that waited, written now.
   *
   * @param drained when its loop handed it over ({@link System#nanoTime()})
   * @param started when the force that covered it started (or when the syncer found it covered)
   * @param ended when that force ended
   * @param written now, as its replies are written
   */
  void waited(long drained, long started, long ended, long written) {
    waited.increment();
    queuedNanos.add(Math.max(0, started - drained));
    postedNanos.add(Math.max(0, written - ended));
    long micros = Math.max(0, written - drained) / 1_000;
    int bucket = Math.min(BUCKETS - 1, 64 - Long.numberOfLeadingZeros(micros));
    waits.incrementAndGet(bucket);
  }

  /** Returns INFO's fields (microseconds; percentiles are a power of two bounding them). */
  Map<String, Object> info() {
    Map<String, Object> f = new LinkedHashMap<>();
    long w = waited.sum();
    long n = forces.sum();
    f.put("larder_reply_rounds_at_once", atOnce.sum());
    f.put("larder_reply_rounds_waited", w);
    f.put("larder_reply_forces", n);
    f.put("larder_reply_force_us", n == 0 ? 0 : forceNanos.sum() / n / 1_000);
    long g = gathers.sum();
    f.put("larder_reply_gathers", g);
    f.put("larder_reply_gather_us", g == 0 ? 0 : gatherNanos.sum() / g / 1_000);
    f.put("larder_reply_queued_us", w == 0 ? 0 : queuedNanos.sum() / w / 1_000);
    f.put("larder_reply_posted_us", w == 0 ? 0 : postedNanos.sum() / w / 1_000);
    f.put("larder_reply_wait_p50_us", percentile(0.5));
    f.put("larder_reply_wait_p99_us", percentile(0.99));
    return f;
  }

  /** The upper bound of the bucket holding the fraction {@code q} of waits; 0 with none. */
  private long percentile(double q) {
    long[] counts = new long[BUCKETS];
    long total = 0;
    for (int b = 0; b < BUCKETS; b++) {
      counts[b] = waits.get(b);
      total += counts[b];
    }
    if (total == 0) {
      return 0;
    }
    long rank = (long) Math.ceil(q * total);
    long seen = 0;
    for (int b = 0; b < BUCKETS; b++) {
      seen += counts[b];
      if (seen >= rank) {
        return 1L << b;
      }
    }
    return 1L << (BUCKETS - 1);
  }
}
