package dev.larder.bench.peer;

import java.util.OptionalLong;

/**
 * The few operations the scenarios need, over Larder and each peer. Implementations are thread-safe
 * when the cache they wrap is.
 *
 * @param <K> key type
 * @param <V> value type
 */
public interface BenchCache<K, V> extends AutoCloseable {

  /**
   * Returns the value, or null on a miss.
   *
   * @param key the key
   */
  V get(K key);

  /**
   * Stores a value, without asking the cache for the previous one where the API allows.
   *
   * @param key the key
   * @param value the value
   */
  void put(K key, V value);

  /** Returns the number of entries. */
  long size();

  /**
   * Returns the memory the library itself says it uses (Larder's memoryUsed, OHC's memUsed,
   * Chronicle's offHeapMemoryUsed), or empty if it has no such figure.
   */
  default OptionalLong reportedBytes() {
    return OptionalLong.empty();
  }

  /** Releases the cache and any manager it needed. */
  @Override
  void close();
}
