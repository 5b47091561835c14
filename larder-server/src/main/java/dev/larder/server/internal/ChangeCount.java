package dev.larder.server.internal;

import dev.larder.server.internal.keyspace.KeyObserver;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the keyspace's changes (each write or removal of a key by a command) for INFO's {@code
 * rdb_changes_since_last_save} on a server without {@code dir}, which never saves: Redis counts its
 * changes whether or not it saves, and tools and tests read the count to see whether a command
 * changed anything. Expired and evicted keys are not counted, as Redis does not count them.
 *
 * <p>Thread-safe.
 */
public final class ChangeCount implements KeyObserver {
  private final LongAdder changes = new LongAdder();

  /** Returns the changes counted since the server started. */
  public long changes() {
    return changes.sum();
  }

  @Override
  public void changed(byte[] storedKey, int how) {
    changes.increment();
  }

  @Override
  public void expired(byte[] storedKey) {}

  @Override
  public void evicted(byte[] storedKey) {}

  @Override
  public void flushed(int db) {}
}
