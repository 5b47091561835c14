package dev.larder;

/**
 * Told when an entry leaves the cache. Called on the cache's executor, after the change is visible,
 * never while a cache lock is held; an exception it throws is logged and swallowed.
 *
 * @param <K> key type
 * @param <V> value type
 */
@FunctionalInterface
public interface RemovalListener<K, V> {

  /**
   * Called once for each entry the cache removes.
   *
   * @param key the removed key, decoded from the stored bytes
   * @param value the removed value, decoded from the stored bytes
   * @param cause why it was removed
   */
  void onRemoval(K key, V value, RemovalCause cause);
}
