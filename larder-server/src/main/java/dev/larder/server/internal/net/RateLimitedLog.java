package dev.larder.server.internal.net;

/**
 * Lets one message through per interval and counts the ones it holds back, so that a client
 * repeating what earns a warning cannot fill the log.
 *
 * <p>Thread-safe.
 */
final class RateLimitedLog {
  private final long intervalNanos;
  private long nextAllowed;
  private boolean started;
  private long suppressed;

  /**
   * @param intervalNanos the least time between two messages
   */
  RateLimitedLog(long intervalNanos) {
    this.intervalNanos = intervalNanos;
  }

  /**
   * Returns -1 if a message must not be logged now; otherwise how many were held back since the
   * last one logged.
   */
  synchronized long permit() {
    long now = System.nanoTime();
    if (started && now - nextAllowed < 0) {
      suppressed++;
      return -1;
    }
    started = true;
    nextAllowed = now + intervalNanos;
    long held = suppressed;
    suppressed = 0;
    return held;
  }
}
