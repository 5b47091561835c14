package dev.larder.jcache.internal;

import java.util.Objects;
import javax.cache.processor.MutableEntry;

/**
 * The {@link MutableEntry} an entry processor works on. It records what the processor did as one
 * net {@link Operation}, which {@link LarderJCache#invoke} then applies under the key's lock:
 * reading a present value is an ACCESS, setting one is a CREATE or UPDATE depending on whether the
 * entry existed, a read-through load is a LOAD, and removing what the processor itself created or
 * loaded cancels it.
 */
final class ProcessorEntry<K, V> implements MutableEntry<K, V> {

  /** The net effect of a processor on its entry. */
  enum Operation {
    NONE,
    ACCESS,
    CREATE,
    LOAD,
    UPDATE,
    REMOVE
  }

  /** Loads a missing value for read-through processors. */
  @FunctionalInterface
  interface Loader<K, V> {
    V load(K key);
  }

  private final K key;
  private final V original;
  private final Loader<K, V> loader;
  private V value;
  private Operation operation = Operation.NONE;

  /**
   * @param key the key
   * @param original the live value when the processor started, or null if absent or expired
   * @param loader loads a missing value, or null when the cache is not read-through
   */
  ProcessorEntry(K key, V original, Loader<K, V> loader) {
    this.key = key;
    this.original = original;
    this.loader = loader;
  }

  @Override
  public K getKey() {
    return key;
  }

  @Override
  public V getValue() {
    if (operation == Operation.NONE) {
      value = original;
      if (value != null) {
        operation = Operation.ACCESS;
      }
    }
    if (value == null && loader != null && operation != Operation.REMOVE) {
      value = loader.load(key);
      if (value != null) {
        operation = Operation.LOAD;
      }
    }
    return value;
  }

  @Override
  public boolean exists() {
    return operation == Operation.NONE ? original != null : value != null;
  }

  @Override
  public void remove() {
    operation =
        (operation == Operation.CREATE || operation == Operation.LOAD)
            ? (original == null ? Operation.NONE : Operation.REMOVE)
            : Operation.REMOVE;
    value = null;
  }

  @Override
  public void setValue(V newValue) {
    Objects.requireNonNull(newValue, "value");
    operation = original == null ? Operation.CREATE : Operation.UPDATE;
    value = newValue;
  }

  Operation operation() {
    return operation;
  }

  V value() {
    return value;
  }

  @Override
  public <T> T unwrap(Class<T> type) {
    if (type.isInstance(this)) {
      return type.cast(this);
    }
    throw new IllegalArgumentException("cannot unwrap a mutable entry to " + type.getName());
  }
}
