package dev.larder.cluster.internal;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentMap;

/**
 * {@link ClusteredLarderCache#asMap()}: single-key operations go to the cluster like the
 * cache's own; {@link #entrySet()} iterates a snapshot gathered from every member when the
 * iterator is created (weakly consistent: writes made after that are not seen), and its
 * {@code remove} removes from the cluster. Thread-safe as the cache is.
 */
final class ClusterMapView<K, V> extends AbstractMap<K, V> implements ConcurrentMap<K, V> {

  private final ClusteredLarderCache<K, V> cache;

  ClusterMapView(ClusteredLarderCache<K, V> cache) {
    this.cache = cache;
  }

  @SuppressWarnings("unchecked")
  @Override
  public V get(Object key) {
    return key == null ? null : cache.getIfPresent((K) key);
  }

  @SuppressWarnings("unchecked")
  @Override
  public boolean containsKey(Object key) {
    return key != null && cache.containsKey((K) key);
  }

  @Override
  public V put(K key, V value) {
    V previous = cache.getIfPresent(key);
    cache.put(key, value);
    return previous;
  }

  @SuppressWarnings("unchecked")
  @Override
  public V remove(Object key) {
    return key == null ? null : cache.remove((K) key);
  }

  @Override
  public void clear() {
    cache.invalidateAll();
  }

  @Override
  public int size() {
    return (int) Math.min(Integer.MAX_VALUE, cache.estimatedSize());
  }

  @Override
  public V putIfAbsent(K key, V value) {
    return cache.putIfAbsent(key, value);
  }

  @SuppressWarnings("unchecked")
  @Override
  public boolean remove(Object key, Object value) {
    return key != null && value != null && cache.remove((K) key, (V) value);
  }

  @Override
  public boolean replace(K key, V oldValue, V newValue) {
    return cache.replace(key, oldValue, newValue);
  }

  @Override
  public V replace(K key, V value) {
    return cache.replace(key, value);
  }

  @Override
  public Set<Entry<K, V>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public Iterator<Entry<K, V>> iterator() {
        List<byte[]> encoded = cache.encodedEntries();
        List<Entry<K, V>> entries = new ArrayList<>(encoded.size() / 2);
        for (int i = 0; i + 1 < encoded.size(); i += 2) {
          entries.add(Map.entry(cache.decodeKey(encoded.get(i)),
              cache.decodeValue(encoded.get(i + 1))));
        }
        Iterator<Entry<K, V>> it = entries.iterator();
        return new Iterator<>() {
          private Entry<K, V> last;

          @Override
          public boolean hasNext() {
            return it.hasNext();
          }

          @Override
          public Entry<K, V> next() {
            last = it.next();
            return last;
          }

          @Override
          public void remove() {
            if (last == null) {
              throw new IllegalStateException("next() was not called");
            }
            cache.remove(last.getKey(), last.getValue());
            last = null;
          }
        };
      }

      @Override
      public int size() {
        return ClusterMapView.this.size();
      }
    };
  }
}
