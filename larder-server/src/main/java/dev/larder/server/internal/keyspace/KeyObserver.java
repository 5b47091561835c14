package dev.larder.server.internal.keyspace;

/**
 * Hears of every change to the keyspace's keys: changes made by commands, expired keys removed
 * (found by a read or by the sweep), keys evicted, databases flushed. The keyspace has one observer
 * ({@link Keyspace#observe}); a server's fans out ({@link KeyObservers}) to the clients blocked on
 * keys, keyspace notifications and client-side caching invalidation.
 *
 * <p>Called on the thread that made the change, after the cache applied it (an eviction: from the
 * cache's listener, inside the write that caused it), possibly while the keyspace's locks are held:
 * implementations must be quick, must not block and must not call back into the keyspace.
 * Thread-safe.
 */
public interface KeyObserver {
  /** {@link #changed}'s flag: the key was removed. */
  int REMOVED = 1;

  /** {@link #changed}'s flag: the key's value now has an expiry it did not have before. */
  int EXPIRY_SET = 2;

  /** {@link #changed}'s flag: the key's expiry was taken off. */
  int EXPIRY_CLEARED = 4;

  /**
   * {@link #changed}'s flag: the write made the key, which did not exist (or had expired) before
   * it. A change read-modify-written through the keyspace always says so; a blind overwrite (a
   * plain SET) looks first only while {@link #wantsCreations} is true, and two writers racing to
   * make the same key may then both say so.
   */
  int CREATED = 8;

  /** An observer that ignores everything. */
  KeyObserver NONE =
      new KeyObserver() {
        @Override
        public void changed(byte[] storedKey, int how) {}

        @Override
        public void expired(byte[] storedKey) {}

        @Override
        public void evicted(byte[] storedKey) {}

        @Override
        public void flushed(int db) {}
      };

  /**
   * Returns whether a blind overwrite should look whether its key existed, to report {@link
   * #CREATED} (a read it otherwise does not need). Called before each such write; must be cheap.
   */
  default boolean wantsCreations() {
    return false;
  }

  /**
   * A key's value was written or removed. Not called for a write that left the key as it was.
   *
   * @param storedKey the database byte, then the key (do not change it)
   * @param how {@link #REMOVED}, {@link #EXPIRY_SET}, {@link #EXPIRY_CLEARED}, {@link #CREATED}
   *     or'ed, or 0
   */
  void changed(byte[] storedKey, int how);

  /**
   * An expired key was removed.
   *
   * @param storedKey the database byte, then the key
   */
  void expired(byte[] storedKey);

  /**
   * A key was evicted for memory.
   *
   * @param storedKey the database byte, then the key
   */
  void evicted(byte[] storedKey);

  /**
   * Every key of a database, or of all, was removed.
   *
   * @param db the database, or -1 for all
   */
  void flushed(int db);
}
