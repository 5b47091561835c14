package dev.larder.bench.peer;

import java.util.OptionalLong;

/**
 * A cache that passes every call to another; subclasses decide what closing means.
 *
 * @param <K> key type
 * @param <V> value type
 */
abstract class ForwardingCache<K, V> implements BenchCache<K, V> {

  /** The cache every call but {@link #close} goes to. */
  final BenchCache<K, V> cache;

  ForwardingCache(BenchCache<K, V> cache) {
    this.cache = cache;
  }

  @Override
  public V get(K key) {
    return cache.get(key);
  }

  @Override
  public void put(K key, V value) {
    cache.put(key, value);
  }

  @Override
  public long size() {
    return cache.size();
  }

  @Override
  public OptionalLong reportedBytes() {
    return cache.reportedBytes();
  }
}
