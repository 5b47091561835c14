package dev.larder.bench.peer;

/**
 * Creates caches of one configuration, sharing whatever manager the library uses.
 *
 * @param <K> key type
 * @param <V> value type
 */
public interface CacheFamily<K, V> extends AutoCloseable {

  /**
   * Returns a new, empty cache.
   *
   * @param name a name unique within the family
   * @throws Exception if the library fails to create it
   */
  BenchCache<K, V> newCache(String name) throws Exception;

  /** Closes the manager and every cache of the family. */
  @Override
  void close();
}
