package dev.larder.client.internal;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import redis.clients.jedis.csc.CacheConnection;

/**
 * Numbers the connections whose replies the near cache holds, so that an entry, stored as bytes,
 * can name the connection that read it: Jedis reads that connection's pending invalidation messages
 * before it serves the entry, and drops the entry once that connection is closed or broken.
 *
 * <p>Implementation notes. Ids count up from 1 and are never reused: an entry whose connection is
 * gone keeps naming no connection rather than another one, which never tracked its key. The table
 * holds connections weakly (a pool's connection that is dropped without being closed is not kept
 * alive by its entries); a lost connection's id is removed from the table when the next connection
 * is numbered. Lookups by id take no lock; numbering a connection (once per connection, on its
 * first stored reply, then a scan of the few live connections) locks the table. Thread-safe.
 */
public final class ConnectionIds {
  private final ConcurrentHashMap<Integer, WeakReference<CacheConnection>> byId =
      new ConcurrentHashMap<>();
  private final List<Numbered> numbered = new ArrayList<>();
  private int lastId;

  private record Numbered(int id, WeakReference<CacheConnection> connection) {}

  /**
   * Returns the connection's id, numbering it on first sight.
   *
   * @param connection a live connection
   */
  @SuppressWarnings("ReferenceEquality") // a connection is numbered as the object it is
  public synchronized int idOf(CacheConnection connection) {
    for (Numbered n : numbered) {
      if (n.connection().get() == connection) {
        return n.id();
      }
    }
    numbered.removeIf(n -> n.connection().get() == null);
    byId.values().removeIf(ref -> ref.get() == null);
    Numbered n = new Numbered(++lastId, new WeakReference<>(connection));
    numbered.add(n);
    byId.put(n.id(), n.connection());
    return n.id();
  }

  /** Returns the connection with this id, or null if it is gone or was never numbered. */
  public CacheConnection connection(int id) {
    WeakReference<CacheConnection> ref = byId.get(id);
    return ref == null ? null : ref.get();
  }
}
