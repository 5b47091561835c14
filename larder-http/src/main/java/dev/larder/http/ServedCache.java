package dev.larder.http;

import dev.larder.Cache;

/**
 * What the HTTP endpoints need of a cache: its figures, and the three entry operations of REST.
 * {@link #of(Cache)} adapts any Larder {@link Cache}; a store that is not a {@code Cache} (such
 * as larder-server's keyspace) implements this directly, and says which figures it does not
 * measure instead of answering 0 for them.
 *
 * <p>Implementations must be thread-safe: the endpoints call them from network threads, and
 * must not block for long (they run on an event loop). Once the underlying store is closed,
 * every method may throw {@link IllegalStateException}; the endpoints then leave the cache out
 * of reports and answer 404 for its entries.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public interface ServedCache<K, V> {

  /**
   * @return the cache's figures now
   * @throws IllegalStateException if the cache is closed
   */
  CacheFigures figures();

  /**
   * Reads an entry without loading it.
   *
   * @param key a non-null key
   * @return its value, or null if absent
   * @throws IllegalArgumentException if the key holds something that is not a value of this
   *     cache's type (REST answers 409)
   * @throws IllegalStateException if the cache is closed
   */
  V getIfPresent(K key);

  /**
   * Stores an entry.
   *
   * @param key a non-null key
   * @param value a non-null value
   * @throws IllegalArgumentException if the cache refuses the value (REST answers 400)
   * @throws IllegalStateException if the cache is closed
   */
  void put(K key, V value);

  /**
   * Removes an entry.
   *
   * @param key a non-null key
   * @return whether an entry was removed
   * @throws IllegalStateException if the cache is closed
   */
  boolean remove(K key);

  /**
   * Adapts a Larder cache: its figures are those of {@link Cache#stats()}, sizes and bounds,
   * every one measured (counts read 0 when the cache does not record statistics, as
   * {@link CacheFigures#statistics()} then says).
   *
   * @param cache the cache
   * @param <K> the key type
   * @param <V> the value type
   * @return a served cache that reads and writes through to {@code cache}
   */
  static <K, V> ServedCache<K, V> of(Cache<K, V> cache) {
    return new CacheAdapter<>(cache);
  }
}
