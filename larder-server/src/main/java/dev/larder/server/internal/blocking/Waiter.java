package dev.larder.server.internal.blocking;

import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.ValueType;
import java.util.ArrayList;
import java.util.List;

/**
 * One blocked command waiting in {@link BlockedClients} for one of its keys to hold something it
 * can take: BLPOP, BLMOVE, BLMPOP and the like implement {@link #serve}.
 *
 * <p>A waiter is served, timed out or cancelled at most once: {@link BlockedClients} removes it
 * from every key it waits on as it ends it, under its own monitor.
 */
public abstract class Waiter {
  private final long client;
  private final int db;
  private final List<byte[]> keys;

  /** Whether it still waits; guarded by the registry's monitor. */
  boolean registered;

  /**
   * @param client the id of the client it blocks (CLIENT UNBLOCK's argument)
   * @param db the database of its keys
   * @param keys the keys it waits on, in the command's order (repeats are waited on once)
   */
  protected Waiter(long client, int db, List<byte[]> keys) {
    this.client = client;
    this.db = db;
    this.keys = new ArrayList<>(keys);
  }

  /** Returns the id of the client it blocks. */
  public long client() {
    return client;
  }

  /** Returns the database of its keys. */
  public int db() {
    return db;
  }

  /** Returns the keys it waits on, in the command's order. */
  public List<byte[]> keys() {
    return keys;
  }

  /** Returns the stored keys it waits on. */
  List<byte[]> storedKeys() {
    List<byte[]> stored = new ArrayList<>(keys.size());
    for (byte[] k : keys) {
      stored.add(Keyspace.storedKey(db, k));
    }
    return stored;
  }

  /** Returns the type of value that can serve it (a list for BLPOP, a sorted set for BZPOPMIN). */
  public abstract ValueType type();

  /**
   * Tries to take what it waits for from {@code key}, which was just written. Called under the
   * keyspace's exclusive lock, on the thread of the command that wrote it; hands its reply to its
   * own connection, never writes it here.
   *
   * @param key the key (without its database byte)
   * @return what happened
   */
  protected abstract Outcome serve(byte[] key);

  /** What {@link #serve} did. */
  public enum Outcome {
    /** It took what it waited for (or failed for good, its error reply sent): it waits no more. */
    DONE,
    /** The key holds nothing of its type: it goes on waiting, and so do later waiters like it. */
    EMPTY
  }
}
