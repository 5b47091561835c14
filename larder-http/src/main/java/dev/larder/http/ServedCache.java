package dev.larder.http;

import dev.larder.Cache;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What the HTTP endpoints need of a cache: its figures, the three entry operations of REST, and for
 * the console's key browser a walk over its keys, entries' time to live and clearing. {@link
 * #of(Cache)} adapts any Larder {@link Cache}; a store that is not a {@code Cache} (such as
 * larder-server's keyspace) implements this directly, and says which figures it does not measure
 * instead of answering 0 for them.
 *
 * <p>Implementations must be thread-safe: the endpoints call them from network threads, and must
 * not block for long (they run on an event loop). Once the underlying store is closed, every method
 * may throw {@link IllegalStateException}; the endpoints then leave the cache out of reports and
 * answer 404 for its entries.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public interface ServedCache<K, V> {

  /**
   * Returns the cache's figures now.
   *
   * @throws IllegalStateException if the cache is closed
   */
  CacheFigures figures();

  /**
   * Reads an entry without loading it.
   *
   * @param key a non-null key
   * @return its value, or null if absent
   * @throws IllegalArgumentException if the key holds something that is not a value of this cache's
   *     type (REST answers 409)
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
   * Gives {@code action} every key present, once each, in no particular order: weakly consistent,
   * as a concurrent map's iteration (keys added or removed during the walk may or may not be
   * given). The key browser's scan ({@code GET /api/caches/{name}/keys}) walks every key for each
   * page it answers, on a network thread: a cache of millions of keys costs that many steps per
   * page.
   *
   * @param action called with each key, never null
   * @throws IllegalStateException if the cache is closed
   */
  void forEachKey(Consumer<? super K> action);

  /**
   * Removes every entry (the console's "clear").
   *
   * @throws IllegalStateException if the cache is closed
   */
  void clear();

  /**
   * Returns whether {@link #timeToLive} tells entries' expiry; false (the default) when the cache
   * does not track it per entry, and the console then shows no time to live.
   */
  default boolean reportsTimeToLive() {
    return false;
  }

  /**
   * An entry's remaining time to live, for a cache that {@linkplain #reportsTimeToLive reports it}.
   *
   * @param key a non-null key
   * @return the time left before the entry expires; empty if it never expires, is absent, or the
   *     cache does not report expiry
   * @throws IllegalStateException if the cache is closed
   */
  default Optional<Duration> timeToLive(K key) {
    return Optional.empty();
  }

  /**
   * Adapts a Larder cache: its figures are those of {@link Cache#stats()}, sizes and bounds, every
   * one measured (counts read 0 when the cache does not record statistics, as {@link
   * CacheFigures#statistics()} then says).
   *
   * @param cache the cache
   * @param <K> the key type
   * @param <V> the value type
   * @return a served cache that reads and writes through to {@code cache}; it walks keys through
   *     {@link Cache#asMap()} and does not report time to live (a Larder cache keeps its expiry per
   *     entry but offers no way to read it)
   */
  static <K, V> ServedCache<K, V> of(Cache<K, V> cache) {
    return new CacheAdapter<>(cache);
  }
}
