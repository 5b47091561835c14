package dev.larder.server.internal;

/**
 * INFO's {@code instantaneous_ops_per_sec}, as Redis computes it: the mean of the last 16 rates,
 * each measured over one sampling period (the server samples every 100 ms, with its expiry sweep).
 *
 * <p>Thread-safe: {@link #sample} is called by one thread at a time, {@link #perSecond} by any.
 */
public final class OpsMeter {
  private static final int SAMPLES = 16;
  private final long[] rates = new long[SAMPLES];
  private int next;
  private long lastCount = -1;
  private long lastNanos;

  /**
   * Records a sample.
   *
   * @param count the total of commands so far (it may have been reset to a lower value)
   * @param nanos the time of the sample, from {@link System#nanoTime()}
   */
  public synchronized void sample(long count, long nanos) {
    if (lastCount >= 0 && nanos > lastNanos) {
      long done = Math.max(0, count - lastCount);
      rates[next] = done * 1_000_000_000L / (nanos - lastNanos);
      next = (next + 1) % SAMPLES;
    }
    lastCount = count;
    lastNanos = nanos;
  }

  /** Returns the mean of the last 16 rates, in operations per second. */
  public synchronized long perSecond() {
    long sum = 0;
    for (long r : rates) {
      sum += r;
    }
    return sum / SAMPLES;
  }
}
