package dev.larder.server.internal.pubsub;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Server-assisted client-side caching (CLIENT TRACKING), as Redis 7 does it: the tracking table of
 * keys read by tracking clients, the prefixes of clients in broadcast mode, and the invalidation
 * messages sent when a key changes, expires, is evicted or its database is flushed.
 *
 * <h2>Implementation notes</h2>
 *
 * <p><b>Keys, not databases.</b> As in Redis, the table is keyed by the key's name alone: a change
 * of {@code foo} in any database invalidates {@code foo} for every client that read it anywhere.
 *
 * <p><b>The table</b> maps a key to the ids of the clients that read it since it last changed; a
 * change removes the key's entry and tells each of those clients once. Every change of an entry is
 * a {@code ConcurrentHashMap} compute, so a read registering itself and a change removing the entry
 * are ordered: the id is in the set the change takes, or in a new entry after it. A read registers
 * its keys before it reads them (see RespDispatcher), so a change that races the read either is
 * seen by the read or invalidates what it read: a client never keeps a value older than a change it
 * was not told of. (Redis registers after the read, which is the same thing on one thread.)
 *
 * <p><b>Bound.</b> {@code tracking-table-max-keys} caps the keys in the table (0: no cap); past it,
 * a registration evicts other keys from the table first, telling their clients as if the keys had
 * changed, as Redis does.
 *
 * <p><b>Order.</b> Invalidations are queued to the client like pub/sub messages ({@link
 * Subscriber#deliver}), behind the replies already sent, so a client that changes a key it tracks
 * gets the invalidation after the reply of the command that changed it, as in Redis 7. The client
 * whose command made the change is given by {@link KeyEvents}, for NOLOOP.
 *
 * <p><b>Clusters.</b> A change made on this member is also handed to the other members ({@link
 * MemberRelay#changed}, after it was applied), which invalidate it for their own clients ({@link
 * #changedOnAnotherMember}); a flush alike. Whether anything is to be collected at all ({@link
 * #idle}) then also depends on whether another member may have tracking clients; a client turning
 * tracking on waits until every other member knows this member tracks ({@link
 * MemberRelay#tracking}) before it reads anything, so no member skips telling it of a change
 * applied after its read.
 *
 * <p>Thread-safe.
 */
public final class Tracking {
  /** Every RESP client by id, tracking or not: redirect targets. */
  private final Map<Long, Subscriber> connections = new ConcurrentHashMap<>();

  /** The tracking clients by id. */
  private final Map<Long, Tracked> tracking = new ConcurrentHashMap<>();

  /** Key name to the ids of the clients that read it. */
  private final Map<ByteBuffer, Set<Long>> table = new ConcurrentHashMap<>();

  private final AtomicLong tableKeys = new AtomicLong();

  /** Broadcast clients by prefix (the empty prefix matches every key). */
  private final Map<ByteBuffer, Set<Long>> prefixes = new ConcurrentHashMap<>();

  private volatile long maxKeys;
  private volatile MemberRelay relay = MemberRelay.NONE;

  /**
   * @param maxKeys tracking-table-max-keys: the most keys in the table, 0 for no bound
   */
  public Tracking(long maxKeys) {
    this.maxKeys = maxKeys;
  }

  /**
   * Sets what tells the other members of a cluster of this member's changes. Called once, before
   * serving.
   *
   * @param relay the relay
   */
  public void relay(MemberRelay relay) {
    this.relay = relay;
  }

  /**
   * Sets tracking-table-max-keys, evicting from the table when it holds more.
   *
   * @param maxKeys the new tracking-table-max-keys, 0 for no bound
   */
  public void maxKeys(long maxKeys) {
    this.maxKeys = maxKeys;
    if (maxKeys > 0 && tableKeys.get() > maxKeys) {
      evictFromTable();
    }
  }

  /** Returns tracking-table-max-keys. */
  public long maxKeys() {
    return maxKeys;
  }

  /**
   * A client's tracking mode (CLIENT TRACKING ON's options).
   *
   * @param bcast broadcast mode: told of every key under its prefixes, read or not
   * @param optin only keys read right after CLIENT CACHING yes are tracked
   * @param optout keys are tracked unless CLIENT CACHING no came right before the read
   * @param noloop not told of its own changes
   * @param redirect the id of the client invalidations go to, or 0 for this one
   * @param prefixes broadcast prefixes (none: every key)
   */
  public record Mode(
      boolean bcast,
      boolean optin,
      boolean optout,
      boolean noloop,
      long redirect,
      List<byte[]> prefixes) {}

  /** A tracking client: its connection, its mode and whether its redirect target has gone. */
  private static final class Tracked {
    final Subscriber subscriber;
    final Mode mode;
    volatile boolean brokenRedirect;

    Tracked(Subscriber subscriber, Mode mode) {
      this.subscriber = subscriber;
      this.mode = mode;
    }
  }

  /**
   * A RESP client connected: it may be a redirect target.
   *
   * @param s the client
   */
  public void connected(Subscriber s) {
    connections.put(s.id(), s);
  }

  /**
   * A RESP client left: its tracking ends.
   *
   * @param id its id
   */
  public void disconnected(long id) {
    connections.remove(id);
    off(id);
  }

  /**
   * Returns whether that client is connected.
   *
   * @param id a client id
   */
  public boolean exists(long id) {
    return connections.containsKey(id);
  }

  /**
   * Turns tracking on for a client, or changes its mode; broadcast prefixes are added to those it
   * had.
   *
   * @param s the client
   * @param mode its mode
   * @throws RuntimeException if the other members of a cluster could not all be told that this
   *     member tracks (tracking is then off for the client)
   */
  public void on(Subscriber s, Mode mode) {
    Tracked before = tracking.get(s.id());
    List<byte[]> all = new ArrayList<>();
    if (before != null && before.mode.bcast()) {
      all.addAll(before.mode.prefixes());
    }
    if (mode.bcast()) {
      List<byte[]> added = mode.prefixes().isEmpty() ? List.of(new byte[0]) : mode.prefixes();
      for (byte[] p : added) {
        if (all.stream().noneMatch(q -> ByteBuffer.wrap(q).equals(ByteBuffer.wrap(p)))) {
          all.add(p);
        }
        prefixes
            .computeIfAbsent(ByteBuffer.wrap(p.clone()), k -> ConcurrentHashMap.newKeySet())
            .add(s.id());
      }
    }
    Mode m =
        new Mode(
            mode.bcast(),
            mode.optin(),
            mode.optout(),
            mode.noloop(),
            mode.redirect(),
            List.copyOf(all));
    tracking.put(s.id(), new Tracked(s, m));
    try {
      relay.tracking();
    } catch (RuntimeException e) {
      off(s.id());
      throw e;
    }
  }

  /**
   * Turns tracking off for a client (its keys stay in the table until they change, and are then
   * ignored for it).
   *
   * @param id the client's id
   */
  public void off(long id) {
    Tracked t = tracking.remove(id);
    if (t != null) {
      for (byte[] p : t.mode.prefixes()) {
        prefixes.computeIfPresent(
            ByteBuffer.wrap(p), (k, ids) -> ids.remove(id) && ids.isEmpty() ? null : ids);
      }
    }
  }

  /**
   * Returns a client's mode, or null if it does not track.
   *
   * @param id the client's id
   */
  public Mode mode(long id) {
    Tracked t = tracking.get(id);
    return t == null ? null : t.mode;
  }

  /**
   * Returns whether a tracking client's redirect target was found gone.
   *
   * @param id the client's id
   */
  public boolean brokenRedirect(long id) {
    Tracked t = tracking.get(id);
    return t != null && t.brokenRedirect;
  }

  /**
   * Returns whether there is nothing to invalidate: no tracking client, an empty table (keys left
   * by clients that turned tracking off go when they next change, or at a flush) and no other
   * member of a cluster that may have tracking clients. A cheap test for every write.
   */
  public boolean idle() {
    return tracking.isEmpty() && tableKeys.get() == 0 && !relay.othersTrack();
  }

  /** Returns the keys in the tracking table (INFO's tracking_total_keys). */
  public long keys() {
    return tableKeys.get();
  }

  /** Returns the number of tracking clients (INFO's tracking_clients). */
  public int clients() {
    return tracking.size();
  }

  /** Returns the number of broadcast prefixes (INFO's tracking_total_prefixes). */
  public int prefixCount() {
    return prefixes.size();
  }

  /**
   * Records that a client read a key, so that it is told when the key changes. Called before the
   * read.
   *
   * @param id the client's id
   * @param key the key's name
   */
  public void remember(long id, byte[] key) {
    boolean[] added = new boolean[1];
    table.compute(
        ByteBuffer.wrap(key.clone()),
        (k, ids) -> {
          Set<Long> v = ids;
          if (v == null) {
            v = new HashSet<>();
            added[0] = true;
          }
          v.add(id);
          return v;
        });
    if (added[0] && tableKeys.incrementAndGet() > maxKeys && maxKeys > 0) {
      evictFromTable();
    }
  }

  /** Takes keys out of the table until it is within its bound, telling their readers. */
  private void evictFromTable() {
    Iterator<ByteBuffer> it = table.keySet().iterator();
    while (tableKeys.get() > maxKeys && it.hasNext()) {
      ByteBuffer k = it.next();
      invalidate(bytes(k), 0, false);
    }
  }

  /**
   * A key changed (or expired, or was evicted): tells the clients that read it and the broadcast
   * clients whose prefixes match it.
   *
   * @param key the key's name
   * @param current the id of the client whose command changed it, 0 for none (expiry, eviction)
   */
  public void changed(byte[] key, long current) {
    invalidate(key, current, true);
    if (relay.othersTrack()) {
      relay.changed(List.of(key));
    }
  }

  /**
   * Keys changed by one client's command (a transaction's, for EXEC): as {@link #changed} for the
   * clients that read them, but each broadcast client gets one message per prefix with every key of
   * the batch under it, as Redis sends one per prefix and event-loop round.
   *
   * @param keys the keys' names, in the order changed
   * @param current the id of the client whose command changed them
   */
  public void changed(List<byte[]> keys, long current) {
    changedHere(keys, current);
    if (relay.othersTrack()) {
      relay.changed(keys);
    }
  }

  /**
   * Keys changed on another member of the cluster: as {@link #changed(List, long)} for this
   * member's clients (none of them made the change, so NOLOOP skips nothing).
   *
   * @param keys the keys' names
   */
  public void changedOnAnotherMember(List<byte[]> keys) {
    changedHere(keys, 0);
  }

  private void changedHere(List<byte[]> keys, long current) {
    for (byte[] k : keys) {
      invalidate(k, current, false);
    }
    if (prefixes.isEmpty()) {
      return;
    }
    for (Map.Entry<ByteBuffer, Set<Long>> e : prefixes.entrySet()) {
      List<byte[]> under = new ArrayList<>();
      for (byte[] k : keys) {
        if (startsWith(k, e.getKey())
            && under.stream().noneMatch(u -> ByteBuffer.wrap(u).equals(ByteBuffer.wrap(k)))) {
          under.add(k);
        }
      }
      if (under.isEmpty()) {
        continue;
      }
      PushMessage m = new PushMessage.Invalidation(under.toArray(new byte[0][]));
      for (long id : e.getValue()) {
        Tracked t = tracking.get(id);
        if (t != null && !(t.mode.noloop() && id == current)) {
          send(t, m);
        }
      }
    }
  }

  private void invalidate(byte[] key, long current, boolean bcast) {
    if (bcast && !prefixes.isEmpty()) {
      for (Map.Entry<ByteBuffer, Set<Long>> e : prefixes.entrySet()) {
        if (startsWith(key, e.getKey())) {
          for (long id : e.getValue()) {
            Tracked t = tracking.get(id);
            if (t != null && !(t.mode.noloop() && id == current)) {
              send(t, new PushMessage.Invalidation(new byte[][] {key}));
            }
          }
        }
      }
    }
    Set<Long> ids = table.remove(ByteBuffer.wrap(key));
    if (ids == null) {
      return;
    }
    tableKeys.decrementAndGet();
    PushMessage m = null;
    for (long id : ids) {
      Tracked t = tracking.get(id);
      if (t == null || t.mode.bcast() || (t.mode.noloop() && id == current)) {
        continue;
      }
      if (m == null) {
        m = new PushMessage.Invalidation(new byte[][] {key});
      }
      send(t, m);
    }
  }

  /**
   * A flush: every tracking client is told that every key is invalid (a null invalidation), and the
   * table is emptied.
   */
  public void flushed() {
    flushHere();
    if (relay.othersTrack()) {
      relay.flushed();
    }
  }

  /**
   * Every key changed on another member (a flush there), or this member may have missed changes
   * made on others (a member left its view, or partitions merged): as {@link #flushed} for this
   * member's clients, which are told to drop everything they cached, as Redis does when it cannot
   * keep track.
   */
  public void flushedOnAnotherMember() {
    flushHere();
  }

  /**
   * Empties the table, then tells every tracking client. In that order: a client may read a key the
   * moment it has the null invalidation, on another thread while this one is still running, and
   * that read's registration must outlive the flush. Told first, such a client's fresh registration
   * could be taken out by the emptying that followed, and it kept what it read past the key's next
   * change, untold (a stale client cache). A read registered before the emptying is one the null
   * invalidation covers: it was taken before the client was told, so the client drops what it read
   * (the invalidation is queued behind the replies already on their way).
   */
  @SuppressWarnings("ModifyCollectionInEnhancedForLoop") // a ConcurrentHashMap's key set allows it
  private void flushHere() {
    for (ByteBuffer k : table.keySet()) {
      if (table.remove(k) != null) {
        tableKeys.decrementAndGet();
      }
    }
    PushMessage m = new PushMessage.Invalidation(null);
    for (Tracked t : tracking.values()) {
      send(t, m);
    }
  }

  /** Sends an invalidation to a client, or to the client it redirects to. */
  private void send(Tracked t, PushMessage m) {
    long redirect = t.mode.redirect();
    if (redirect == 0) {
      t.subscriber.deliver(m);
      return;
    }
    Subscriber target = connections.get(redirect);
    if (target == null) {
      t.brokenRedirect = true;
      if (t.subscriber.protocol() == 3) {
        t.subscriber.deliver(new PushMessage.RedirectBroken(redirect));
      }
      return;
    }
    target.deliver(m);
  }

  private static boolean startsWith(byte[] key, ByteBuffer prefix) {
    int n = prefix.remaining();
    if (n > key.length) {
      return false;
    }
    return ByteBuffer.wrap(key, 0, n).equals(prefix);
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }
}
