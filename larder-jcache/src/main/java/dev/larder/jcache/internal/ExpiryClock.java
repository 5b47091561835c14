package dev.larder.jcache.internal;

import dev.larder.Ticker;
import javax.cache.expiry.Duration;

/**
 * Milliseconds since the cache was created, the unit of stored expiry times. Counting from the
 * cache's birth keeps stored times small; they never outlive the cache's store.
 */
final class ExpiryClock {

  private final Ticker ticker;
  private final long originNanos;

  ExpiryClock(Ticker ticker) {
    this.ticker = ticker;
    this.originNanos = ticker.read();
  }

  /** Returns milliseconds since creation, never negative. */
  long now() {
    return Math.max(0, (ticker.read() - originNanos) / 1_000_000);
  }

  /**
   * Returns the expiry time, or {@link Expirable#NEVER}.
   *
   * @param now the current time
   * @param duration a JCache duration; ZERO means already expired
   */
  static long expireAt(long now, Duration duration) {
    if (duration.isEternal()) {
      return Expirable.NEVER;
    }
    long millis = duration.getTimeUnit().toMillis(duration.getDurationAmount());
    long at = now + millis;
    return (at < 0 || at >= Expirable.NEVER) ? Expirable.NEVER - 1 : at;
  }
}
