package dev.larder.bench.peer;

import java.util.Map;

/**
 * A cache over a {@link Map}: ConcurrentHashMap, Caffeine's map view, a synchronized LinkedHashMap.
 *
 * @param <K> key type
 * @param <V> value type
 */
class MapCache<K, V> implements BenchCache<K, V> {

  private final Map<K, V> map;

  MapCache(Map<K, V> map) {
    this.map = map;
  }

  @Override
  public V get(K key) {
    return map.get(key);
  }

  @Override
  public void put(K key, V value) {
    map.put(key, value);
  }

  @Override
  public long size() {
    return map.size();
  }

  @Override
  public void close() {
    map.clear();
  }
}
