package dev.larder.jcache.internal;

import javax.cache.Cache;

/**
 * A key and value handed out by the cache (iteration) or to a {@code CacheWriter}.
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class EntryView<K, V> implements Cache.Entry<K, V> {

  private final K key;
  private final V value;

  EntryView(K key, V value) {
    this.key = key;
    this.value = value;
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
  public <T> T unwrap(Class<T> type) {
    if (type.isInstance(this)) {
      return type.cast(this);
    }
    throw new IllegalArgumentException("cannot unwrap a cache entry to " + type.getName());
  }

  @Override
  public String toString() {
    return key + "=" + value;
  }
}
