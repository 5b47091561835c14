package dev.larder.bench.peer;

import java.util.OptionalLong;

/** The only cache of a family, which closes the family when it is closed. */
final class OwningCache<K, V> implements BenchCache<K, V> {

  private final BenchCache<K, V> cache;
  private final CacheFamily<K, V> family;

  OwningCache(BenchCache<K, V> cache, CacheFamily<K, V> family) {
    this.cache = cache;
    this.family = family;
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

  /** Closes the family, which closes every cache it made (this one included) exactly once. */
  @Override
  public void close() {
    family.close();
  }
}
