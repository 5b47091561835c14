package dev.larder;

/**
 * Computes the value for a key on a miss (read-through). Runs outside any cache lock, once per key
 * at a time however many callers miss concurrently; the other callers wait for it, without a time
 * limit and without reacting to interrupts.
 *
 * <p>A loader may read other keys of the cache. One that asks for its own key gets an {@link
 * IllegalStateException}; two loads that wait for each other's keys on two threads (the loader of
 * k1 reads k2 while the loader of k2 reads k1) wait for ever, as two {@code
 * ConcurrentHashMap.computeIfAbsent} calls would.
 *
 * @param <K> key type
 * @param <V> value type
 */
@FunctionalInterface
public interface CacheLoader<K, V> {

  /**
   * Returns its value, or null if there is none (nothing is stored).
   *
   * @param key the missing key
   * @throws Exception any failure; checked exceptions reach callers wrapped in {@link
   *     CacheLoadingException}, unchecked ones as they are
   */
  V load(K key) throws Exception;
}
