package dev.larder.jcache.internal;

import java.util.function.Supplier;
import javax.cache.expiry.Duration;
import javax.cache.expiry.ExpiryPolicy;

/**
 * Asks the cache's {@link ExpiryPolicy} for the expiry time of a created, accessed or updated
 * entry. As the JCache specification asks, a policy that throws is treated as if it had answered
 * ETERNAL for a creation and "unchanged" for an access or update; the operation proceeds.
 */
final class ExpiryTimes {

  /** Returned by {@link #onAccess} and {@link #onUpdate} when the expiry time stays as it is. */
  static final long UNCHANGED = Long.MIN_VALUE;

  private final ExpiryPolicy policy;

  ExpiryTimes(ExpiryPolicy policy) {
    this.policy = policy;
  }

  ExpiryPolicy policy() {
    return policy;
  }

  /** Returns when a new entry created at {@code now} expires; now or earlier means at once. */
  long onCreation(long now) {
    Duration duration = ask(policy::getExpiryForCreation);
    return ExpiryClock.expireAt(now, duration == null ? Duration.ETERNAL : duration);
  }

  /** Returns the new expiry time after a read at {@code now}, or {@link #UNCHANGED}. */
  long onAccess(long now) {
    return changed(now, ask(policy::getExpiryForAccess));
  }

  /** Returns the new expiry time after an update at {@code now}, or {@link #UNCHANGED}. */
  long onUpdate(long now) {
    return changed(now, ask(policy::getExpiryForUpdate));
  }

  private static long changed(long now, Duration duration) {
    return duration == null ? UNCHANGED : ExpiryClock.expireAt(now, duration);
  }

  private static Duration ask(Supplier<Duration> question) {
    try {
      return question.get();
    } catch (RuntimeException e) {
      return null;
    }
  }
}
