package dev.larder.jcache.internal;

import javax.cache.Cache;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.EventType;

/**
 * An entry event. For REMOVED and EXPIRED events the value is the entry's last value, as JCache 1.1
 * specifies; {@link #forListener} hides old values from listeners that did not ask for them.
 *
 * @param <K> key type
 * @param <V> value type
 */
final class JCacheEntryEvent<K, V> extends CacheEntryEvent<K, V> {

  private static final long serialVersionUID = 1L;

  private final K key;
  private final transient V value;
  private final transient V oldValue;
  private final boolean oldValueAvailable;

  JCacheEntryEvent(
      Cache<K, V> source, EventType type, K key, V value, V oldValue, boolean oldValueAvailable) {
    super(source, type);
    this.key = key;
    this.value = value;
    this.oldValue = oldValue;
    this.oldValueAvailable = oldValueAvailable;
  }

  static <K, V> JCacheEntryEvent<K, V> created(Cache<K, V> source, K key, V value) {
    return new JCacheEntryEvent<>(source, EventType.CREATED, key, value, null, false);
  }

  static <K, V> JCacheEntryEvent<K, V> updated(Cache<K, V> source, K key, V value, V oldValue) {
    return new JCacheEntryEvent<>(source, EventType.UPDATED, key, value, oldValue, true);
  }

  static <K, V> JCacheEntryEvent<K, V> removed(Cache<K, V> source, K key, V oldValue) {
    return new JCacheEntryEvent<>(source, EventType.REMOVED, key, oldValue, oldValue, true);
  }

  static <K, V> JCacheEntryEvent<K, V> expired(Cache<K, V> source, K key, V oldValue) {
    return new JCacheEntryEvent<>(source, EventType.EXPIRED, key, oldValue, oldValue, true);
  }

  /**
   * Returns this event, or a copy without the old value (and for REMOVED and EXPIRED events,
   * without any value) when the listener did not ask for old values.
   *
   * @param oldValueRequired the listener's setting
   */
  @SuppressWarnings("unchecked")
  JCacheEntryEvent<K, V> forListener(boolean oldValueRequired) {
    if (oldValueRequired || !oldValueAvailable) {
      return this;
    }
    EventType type = getEventType();
    V visible = (type == EventType.REMOVED || type == EventType.EXPIRED) ? null : value;
    return new JCacheEntryEvent<>((Cache<K, V>) getSource(), type, key, visible, null, false);
  }

  @Override
  public K getKey() {
    return key;
  }

  @Override
  public V getValue() {
    return value;
  }

  @Override
  public V getOldValue() {
    return oldValue;
  }

  @Override
  public boolean isOldValueAvailable() {
    return oldValueAvailable;
  }

  @Override
  public <T> T unwrap(Class<T> type) {
    if (type.isInstance(this)) {
      return type.cast(this);
    }
    throw new IllegalArgumentException("cannot unwrap an event to " + type.getName());
  }

  @Override
  public String toString() {
    return "JCacheEntryEvent[" + getEventType() + " " + key + "]";
  }
}
