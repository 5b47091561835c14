package dev.larder.jcache.internal;

/**
 * A stored value with its expiry time.
 *
 * @param value the value, never null
 * @param expireAt the {@link ExpiryClock} millisecond at which the entry expires, or {@link
 *     #NEVER}; the entry is expired from that millisecond on
 * @param <V> value type
 */
record Expirable<V>(V value, long expireAt) {

  /** The expiry time of an entry that never expires. */
  static final long NEVER = Long.MAX_VALUE;

  boolean isExpiredAt(long now) {
    return expireAt != NEVER && now >= expireAt;
  }

  Expirable<V> withExpireAt(long newExpireAt) {
    return new Expirable<>(value, newExpireAt);
  }
}
