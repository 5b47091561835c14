package dev.larder.internal;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentMap;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The {@link ConcurrentMap} view of a cache. Every operation goes to the cache, so the view is
 * exactly as thread-safe as the cache. Iteration is weakly consistent, like {@code
 * ConcurrentHashMap}'s: it walks the segments one at a time, taking a snapshot of one segment's
 * keys and reading each value when it is reached, so it never throws {@code
 * ConcurrentModificationException}, returns each entry present throughout at most once, and skips
 * keys removed meanwhile. Values are decoded copies: {@code Entry.setValue} writes through to the
 * cache. {@code size} and {@code isEmpty} agree with iteration: where entries expire, they reclaim
 * expired entries first.
 */
final class CacheMapView<K, V> extends AbstractMap<K, V> implements ConcurrentMap<K, V> {

  private final LarderCache<K, V> cache;

  CacheMapView(LarderCache<K, V> cache) {
    this.cache = cache;
  }

  @Override
  @SuppressWarnings("unchecked")
  public V get(Object key) {
    return cache.getIfPresent((K) Objects.requireNonNull(key, "key"));
  }

  @Override
  @SuppressWarnings("unchecked")
  public boolean containsKey(Object key) {
    return cache.containsKey((K) Objects.requireNonNull(key, "key"));
  }

  @Override
  public V put(K key, V value) {
    return cache.putAndGetPrevious(key, value);
  }

  @Override
  @SuppressWarnings("unchecked")
  public V remove(Object key) {
    return cache.remove((K) Objects.requireNonNull(key, "key"));
  }

  @Override
  public V putIfAbsent(K key, V value) {
    return cache.putIfAbsent(key, value);
  }

  @Override
  @SuppressWarnings("unchecked")
  public boolean remove(Object key, Object value) {
    if (key == null || value == null) {
      return false;
    }
    return cache.remove((K) key, (V) value);
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
  public V compute(K key, BiFunction<? super K, ? super V, ? extends V> remappingFunction) {
    return cache.compute(key, remappingFunction);
  }

  /**
   * The cache's {@code get(key, function)}: concurrent calls for one absent key run the function
   * once (ConcurrentMap's default would run it in each caller and keep the first result).
   */
  @Override
  public V computeIfAbsent(K key, Function<? super K, ? extends V> mappingFunction) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(mappingFunction, "mappingFunction");
    return cache.get(key, mappingFunction);
  }

  // ConcurrentMap's defaults for the next three retry replace(key, old, new) with the value the
  // function was given; a function that changes that value in place (a byte[] counter) would make
  // the retries fail for ever. The cache's compute keeps its own copy of the expected bytes.

  @Override
  public V computeIfPresent(
      K key, BiFunction<? super K, ? super V, ? extends V> remappingFunction) {
    Objects.requireNonNull(remappingFunction, "remappingFunction");
    return cache.compute(key, (k, v) -> v == null ? null : remappingFunction.apply(k, v));
  }

  @Override
  public V merge(K key, V value, BiFunction<? super V, ? super V, ? extends V> remappingFunction) {
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(remappingFunction, "remappingFunction");
    return cache.compute(key, (k, v) -> v == null ? value : remappingFunction.apply(v, value));
  }

  @Override
  public void replaceAll(BiFunction<? super K, ? super V, ? extends V> function) {
    Objects.requireNonNull(function, "function");
    for (K key : keySet()) {
      cache.compute(
          key,
          (k, v) ->
              v == null
                  ? null
                  : Objects.requireNonNull(function.apply(k, v), "function returned null"));
    }
  }

  @Override
  public int size() {
    return (int) Math.min(Integer.MAX_VALUE, cache.liveSize());
  }

  @Override
  public boolean isEmpty() {
    return cache.liveSize() == 0;
  }

  @Override
  public void clear() {
    cache.invalidateAll();
  }

  @Override
  public Set<Entry<K, V>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public Iterator<Entry<K, V>> iterator() {
        return new EntryIterator();
      }

      @Override
      public int size() {
        return CacheMapView.this.size();
      }

      @Override
      public void clear() {
        cache.invalidateAll();
      }
    };
  }

  /** Walks one segment's key snapshot at a time, reading values as it goes. */
  private final class EntryIterator implements Iterator<Entry<K, V>> {
    private int segment = -1;
    private List<byte[]> keys = List.of();
    private int position;
    private Entry<K, V> next;
    private K lastKey;

    @Override
    public boolean hasNext() {
      while (next == null) {
        if (position < keys.size()) {
          K key = cache.decodeKey(keys.get(position++));
          V value = cache.getIfPresentQuietly(key);
          if (value != null) {
            next = new WriteThroughEntry(key, value);
          }
        } else if (segment + 1 < cache.segmentCount()) {
          keys = cache.keySnapshot(++segment);
          position = 0;
        } else {
          return false;
        }
      }
      return true;
    }

    @Override
    public Entry<K, V> next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      Entry<K, V> result = next;
      next = null;
      lastKey = result.getKey();
      return result;
    }

    @Override
    public void remove() {
      if (lastKey == null) {
        throw new IllegalStateException("next() has not been called");
      }
      cache.invalidate(lastKey);
      lastKey = null;
    }
  }

  private final class WriteThroughEntry extends SimpleEntry<K, V> {
    private static final long serialVersionUID = 1L;

    WriteThroughEntry(K key, V value) {
      super(key, value);
    }

    @Override
    public V setValue(V value) {
      cache.put(getKey(), value);
      return super.setValue(value);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Map<?, ?> && super.equals(o);
  }

  @Override
  public int hashCode() {
    return super.hashCode();
  }
}
