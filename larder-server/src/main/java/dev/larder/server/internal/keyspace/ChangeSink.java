package dev.larder.server.internal.keyspace;

/**
 * Where a {@link Keyspace} reports its changes, as the bytes it stores, so that they can be made
 * durable (the server's log). Without a log the keyspace reports to {@link #NONE}.
 *
 * <p>The keyspace calls {@link #begin()} before a change and {@link #end()} after it, on the thread
 * that makes it, and brackets a whole exclusive section the same way: the changes reported between
 * the outermost {@code begin} and its {@code end} (evictions they caused included) form one atomic
 * group. Within a group the keyspace reports a key's changes in the order it applied them; see
 * {@code docs/design/server.md}, Persistence.
 *
 * <p>Implementations are called from many threads at once and must be thread-safe; the arrays
 * passed in are the keyspace's own and must not be changed.
 */
public interface ChangeSink {
  /** Reports nothing: a keyspace in memory only. */
  ChangeSink NONE =
      new ChangeSink() {
        @Override
        public void begin() {}

        @Override
        public void end() {}

        @Override
        public void put(byte[] storedKey, byte[] storedValue) {}

        @Override
        public void delete(byte[] storedKey) {}

        @Override
        public void evict(byte[] storedKey, long version) {}

        @Override
        public void flush(int db) {}
      };

  /** Opens a group on this thread (groups nest; only the outermost counts). */
  void begin();

  /** Closes this thread's group; the outermost {@code end} hands the group on. */
  void end();

  /**
   * Reports a value stored under a key.
   *
   * @param storedKey the stored key (database byte, then the key)
   * @param storedValue the value's stored bytes ({@link ValueLayout})
   */
  void put(byte[] storedKey, byte[] storedValue);

  /**
   * Reports a key removed.
   *
   * @param storedKey a stored key that was removed
   */
  void delete(byte[] storedKey);

  /**
   * Reports a key the cache evicted.
   *
   * @param storedKey a stored key the cache evicted
   * @param version the version of the value it evicted
   */
  void evict(byte[] storedKey, long version);

  /**
   * Reports a database, or every database, emptied.
   *
   * @param db the database emptied, or -1 for every database
   */
  void flush(int db);

  /**
   * Waits until every change reported so far may be acknowledged (forced, or written, as the log's
   * policy says): for callers that answer without the network handlers' reply gate.
   */
  default void awaitDurable() {}
}
