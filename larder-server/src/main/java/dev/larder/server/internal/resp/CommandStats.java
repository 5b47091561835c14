package dev.larder.server.internal.resp;

import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;

/**
 * One command's counts for INFO commandstats, Redis 7.0's figures: calls that ran, their time,
 * calls refused before running (arity, ACL, OOM, redirections: {@code rejected_calls}) and calls
 * that ran and answered an error ({@code failed_calls}). A failed call is also a call, as in Redis.
 *
 * <p>Thread-safe: every figure is a {@link LongAdder}, so connections on different event loops do
 * not contend on one counter.
 */
public final class CommandStats {
  private final LongAdder calls = new LongAdder();
  private final LongAdder nanos = new LongAdder();
  private final LongAdder rejected = new LongAdder();
  private final LongAdder failed = new LongAdder();

  /**
   * Counts a call that ran.
   *
   * @param elapsedNanos how long it ran
   * @param error whether it answered an error
   */
  void ran(long elapsedNanos, boolean error) {
    calls.increment();
    nanos.add(elapsedNanos);
    if (error) {
      failed.increment();
    }
  }

  /** Counts a call refused before it ran. */
  void rejected() {
    rejected.increment();
  }

  /** Forgets every count (CONFIG RESETSTAT). */
  void reset() {
    calls.reset();
    nanos.reset();
    rejected.reset();
    failed.reset();
  }

  /** Returns whether any call was counted. */
  boolean used() {
    return calls.sum() + rejected.sum() > 0;
  }

  /** Returns the value of the command's {@code cmdstat_<name>} line. */
  String line() {
    long n = calls.sum();
    long usec = nanos.sum() / 1000;
    return "calls="
        + n
        + ",usec="
        + usec
        + ",usec_per_call="
        + String.format(Locale.ROOT, "%.2f", n == 0 ? 0.0 : (double) usec / n)
        + ",rejected_calls="
        + rejected.sum()
        + ",failed_calls="
        + failed.sum();
  }
}
