package dev.larder;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

/**
 * A {@link ConcurrentMap} over a {@link Cache} that has no map view of its own: what {@link
 * Cache#asMap()} returns for caches implemented outside this module (clustered caches, adapters
 * over other stores).
 *
 * <p>Single-key operations are the cache's own ({@code putIfAbsent}, the conditional {@code remove}
 * and {@code replace} are as atomic as the cache makes them). {@link #put} returns the value read
 * just before it writes, not atomically with the write. {@link #entrySet()} iterates a snapshot
 * that {@code snapshot} supplies when the iterator is created: weakly consistent, so writes made
 * after that are not seen; its {@code remove} removes the entry only if it still holds the value
 * iterated. {@link #size()} is the cache's {@link Cache#estimatedSize()}. Null keys are absent and
 * null values refused, as the cache refuses them.
 *
 * <p>Thread-safe as the cache is.
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class SnapshotMapView<K, V> extends AbstractMap<K, V> implements ConcurrentMap<K, V> {

  private final Cache<K, V> cache;
  private final Supplier<List<Map.Entry<K, V>>> snapshot;

  /**
   * @param cache the cache the map reads and writes
   * @param snapshot gives the cache's entries at the moment it is called
   * @throws NullPointerException if either is null
   */
  public SnapshotMapView(Cache<K, V> cache, Supplier<List<Map.Entry<K, V>>> snapshot) {
    this.cache = Objects.requireNonNull(cache, "cache");
    this.snapshot = Objects.requireNonNull(snapshot, "snapshot");
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
        Iterator<Entry<K, V>> it = snapshot.get().iterator();
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
        return SnapshotMapView.this.size();
      }
    };
  }
}
