package dev.larder.server.internal.keyspace;

/**
 * Told of every value a command stores through {@link Keyspace#update} or {@link Keyspace#put}, on
 * the writing thread, after the cache holds it: how clients blocked on a key learn that it may now
 * serve them.
 *
 * <p>Implementations must be thread-safe and quick: they run inside every such write.
 */
@FunctionalInterface
public interface WriteObserver {
  /** Observes nothing. */
  WriteObserver NONE = (storedKey, type) -> {};

  /**
   * A value was stored.
   *
   * @param storedKey the stored key (database byte, then the key); not to be modified
   * @param type the type of the value stored
   */
  void written(byte[] storedKey, ValueType type);
}
