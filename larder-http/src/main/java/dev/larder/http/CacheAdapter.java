package dev.larder.http;

import dev.larder.Cache;
import dev.larder.CacheStats;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;

/** A Larder {@link Cache} as the endpoints serve it ({@link ServedCache#of}). Thread-safe. */
final class CacheAdapter<K, V> implements ServedCache<K, V> {

  private final Cache<K, V> cache;

  CacheAdapter(Cache<K, V> cache) {
    this.cache = Objects.requireNonNull(cache, "cache");
  }

  @Override
  public CacheFigures figures() {
    CacheStats stats = cache.stats();
    return new CacheFigures(
        cache.estimatedSize(),
        cache.memoryUsed(),
        cache.maximumMemory(),
        cache.maximumEntries(),
        cache.recordsStats(),
        stats.hitCount(),
        stats.missCount(),
        OptionalLong.of(stats.putCount()),
        stats.evictionCount(),
        stats.expirationCount(),
        OptionalLong.of(stats.removalCount()),
        OptionalLong.of(stats.loadSuccessCount()),
        OptionalLong.of(stats.loadFailureCount()),
        Optional.of(stats.getLatency()),
        Optional.of(stats.putLatency()),
        Optional.of(stats.loadLatency()),
        cache.dictionary().map(d -> new CacheFigures.Dictionary(d.size(), d.memoryUsed())));
  }

  @Override
  public V getIfPresent(K key) {
    return cache.getIfPresent(key);
  }

  @Override
  public void put(K key, V value) {
    cache.put(key, value);
  }

  @Override
  public boolean remove(K key) {
    return cache.remove(key) != null;
  }

  @Override
  public void forEachKey(Consumer<? super K> action) {
    // Walking asMap() is not an access: eviction and expire-after-access see nothing of it.
    for (K key : cache.asMap().keySet()) {
      action.accept(key);
    }
  }

  @Override
  public void clear() {
    cache.invalidateAll();
  }

  @Override
  public String toString() {
    return "ServedCache[" + cache + "]";
  }
}
