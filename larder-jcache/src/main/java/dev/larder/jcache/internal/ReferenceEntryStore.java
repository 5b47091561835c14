package dev.larder.jcache.internal;

import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Store-by-reference: the caller's key and value objects in a {@link ConcurrentHashMap}, keyed by
 * {@code equals}/{@code hashCode} as JCache specifies for that mode. There is nothing to encode, so
 * there is no byte accounting and no bound: this mode trades Larder's compactness for identity
 * semantics, and is meant for small caches of objects that must not be copied.
 */
final class ReferenceEntryStore<K, V> implements EntryStore<K, V> {

  private final ConcurrentHashMap<K, Expirable<V>> map = new ConcurrentHashMap<>();

  @Override
  public Expirable<V> get(K key) {
    return map.get(key);
  }

  @Override
  public void put(K key, Expirable<V> entry) {
    map.put(key, entry);
  }

  @Override
  public void remove(K key) {
    map.remove(key);
  }

  @Override
  public Iterator<Map.Entry<K, Expirable<V>>> iterator() {
    return map.entrySet().iterator();
  }

  @Override
  public void clear() {
    map.clear();
  }

  @Override
  public long size() {
    return map.size();
  }

  @Override
  public boolean sameValue(V stored, V expected) {
    return Objects.equals(stored, expected);
  }

  @Override
  public long memoryUsed() {
    return -1;
  }

  @Override
  public void close() {
    map.clear();
  }

  @Override
  public <T> T unwrap(Class<T> type) {
    return type.isInstance(map) ? type.cast(map) : null;
  }
}
