package dev.larder.bench.scenarios;

/**
 * A cache in front of a slow store, as the concurrency scenario uses it: reads load on a miss,
 * writes go to the store and then to the cache. Thread-safe.
 */
interface ReadThrough extends AutoCloseable {

  /**
   * Returns its value, loaded from the store on a miss.
   *
   * @param key a node path
   */
  byte[] read(String key);

  /**
   * Stores a new value: the store first (with its latency), then the cache.
   *
   * @param key a node path
   * @param value the new value
   */
  void write(String key, byte[] value);

  @Override
  void close();
}
