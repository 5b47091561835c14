package dev.larder.tx;

import java.util.Objects;
import java.util.function.BiFunction;

/**
 * A cache of a {@link TxStore}. Use it inside transactions ({@link Transaction#get} and the rest),
 * or directly: each method here is a transaction of one operation. {@link #get} and {@link
 * #compute} run at the store's default isolation, retried on conflict (up to {@link
 * TxStore#SINGLE_OPERATION_ATTEMPTS} times); {@link #put} and {@link #remove} read nothing, so they
 * are blind writes applied at the commit point, which never conflict (each is the serial
 * transaction "write this key" at its commit sequence; open transactions that read or wrote the key
 * still conflict with it).
 *
 * <p>Thread-safe.
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class TxCache<K, V> {

  private final TxStore store;
  private final TxCacheSpec<K, V> spec;
  private final int index;

  TxCache(TxStore store, TxCacheSpec<K, V> spec, int index) {
    this.store = store;
    this.spec = spec;
    this.index = index;
  }

  /** Returns the cache's name. */
  public String name() {
    return spec.name();
  }

  TxCacheSpec<K, V> spec() {
    return spec;
  }

  int index() {
    return index;
  }

  TxStore store() {
    return store;
  }

  /**
   * Returns the latest committed value, or null.
   *
   * @param key the key
   */
  public V get(K key) {
    return store.inTransaction(TxStore.SINGLE_OPERATION_ATTEMPTS, tx -> tx.get(this, key));
  }

  /**
   * Commits {@code key = value}.
   *
   * @param key the key
   * @param value the value
   */
  public void put(K key, V value) {
    store.commitBlind(this, key, Objects.requireNonNull(value, "value"));
  }

  /**
   * Commits the removal of {@code key}.
   *
   * @param key the key
   */
  public void remove(K key) {
    store.commitBlind(this, key, null);
  }

  /**
   * Atomically recomputes a value; the function may run more than once on conflict.
   *
   * @param key the key
   * @param function given the key and current value (or null); null removes
   * @return the new value, or null
   */
  public V compute(K key, BiFunction<? super K, ? super V, ? extends V> function) {
    return store.inTransaction(
        TxStore.SINGLE_OPERATION_ATTEMPTS, tx -> tx.compute(this, key, function));
  }

  /** Returns the underlying cache's entry count, approximate under concurrent writes. */
  public long estimatedSize() {
    return store.engine().estimatedSize(index);
  }

  /** Returns bytes the underlying cache reserved. */
  public long memoryUsed() {
    return store.engine().memoryUsed(index);
  }

  @Override
  public String toString() {
    return "TxCache[" + spec.name() + "]";
  }
}
