package dev.larder.jcache.internal;

import dev.larder.codec.CodecException;
import javax.cache.Cache;

/**
 * An {@link EntryStore} seen through JCache expiry: the entry operations every cache operation is
 * built from. An expired entry reads as absent (and is removed, with an EXPIRED event); creations
 * and updates ask the {@link ExpiryTimes} for the new expiry time; accesses may move it. Each
 * change adds its event to the caller's {@link EventBatch}.
 *
 * <p>Not synchronized: callers hold the key's lock around every method that changes an entry
 * ({@link #live} included, since it may remove one).
 */
final class ExpiringEntries<K, V> {

  private final Cache<K, V> source;
  private final EntryStore<K, V> store;
  private final ExpiryTimes expiry;
  private final ExpiryClock clock;

  ExpiringEntries(
      Cache<K, V> source, EntryStore<K, V> store, ExpiryTimes expiry, ExpiryClock clock) {
    this.source = source;
    this.store = store;
    this.expiry = expiry;
    this.clock = clock;
  }

  EntryStore<K, V> store() {
    return store;
  }

  ExpiryTimes expiry() {
    return expiry;
  }

  long now() {
    return clock.now();
  }

  /** Returns the entry as stored, expired or not, or null; takes no lock. */
  Expirable<V> peek(K key) {
    return store.get(key);
  }

  /** Returns the live entry, or null; an expired one is removed and reported as EXPIRED. */
  Expirable<V> live(K key, long now, EventBatch<K, V> events) {
    Expirable<V> entry = store.get(key);
    if (entry != null && entry.isExpiredAt(now)) {
      store.remove(key);
      events.add(JCacheEntryEvent.expired(source, key, entry.value()));
      return null;
    }
    return entry;
  }

  /** Records an access to a live entry: moves its expiry time if the policy says so. */
  void touch(K key, Expirable<V> entry, long now) {
    long at = expiry.onAccess(now);
    if (at != ExpiryTimes.UNCHANGED && at != entry.expireAt()) {
      store.put(key, entry.withExpireAt(at));
    }
  }

  /** Sets the expiry time of the key's entry to {@code at} if it is still live at {@code now}. */
  void moveExpiry(K key, long at, long now) {
    Expirable<V> current = store.get(key);
    if (current != null && !current.isExpiredAt(now) && current.expireAt() != at) {
      store.put(key, current.withExpireAt(at));
    }
  }

  /**
   * Stores {@code value} as a creation (current is null) or an update of {@code current}.
   *
   * @return false if a creation expired at once, so nothing was stored
   */
  boolean createOrUpdate(K key, V value, Expirable<V> current, long now, EventBatch<K, V> events) {
    if (current == null) {
      return create(key, value, now, events);
    }
    update(key, value, current, now, events);
    return true;
  }

  /** Returns false if the policy expires the entry at once, so nothing is stored. */
  boolean create(K key, V value, long now, EventBatch<K, V> events) {
    long at = expiry.onCreation(now);
    if (at != Expirable.NEVER && at <= now) {
      return false;
    }
    put(key, new Expirable<>(value, at));
    events.add(JCacheEntryEvent.created(source, key, value));
    return true;
  }

  void update(K key, V value, Expirable<V> current, long now, EventBatch<K, V> events) {
    long at = expiry.onUpdate(now);
    put(key, new Expirable<>(value, at == ExpiryTimes.UNCHANGED ? current.expireAt() : at));
    events.add(JCacheEntryEvent.updated(source, key, value, current.value()));
  }

  /** Removes a live entry, reporting REMOVED. */
  void remove(K key, Expirable<V> current, EventBatch<K, V> events) {
    store.remove(key);
    events.add(JCacheEntryEvent.removed(source, key, current.value()));
  }

  private void put(K key, Expirable<V> entry) {
    try {
      store.put(key, entry);
    } catch (CodecException e) {
      throw new IllegalArgumentException(
          "cache "
              + source.getName()
              + " cannot store the value of key "
              + key
              + ": "
              + e.getMessage(),
          e);
    }
  }
}
