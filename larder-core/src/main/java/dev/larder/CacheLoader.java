package dev.larder;

/**
 * Computes the value for a key on a miss (read-through). Runs outside any cache lock, once per
 * key at a time however many callers miss concurrently.
 *
 * @param <K> key type
 * @param <V> value type
 */
@FunctionalInterface
public interface CacheLoader<K, V> {

  /**
   * @param key the missing key
   * @return its value, or null if there is none (nothing is stored)
   * @throws Exception any failure; checked exceptions reach callers wrapped in
   *     {@link CacheLoadingException}, unchecked ones as they are
   */
  V load(K key) throws Exception;
}
