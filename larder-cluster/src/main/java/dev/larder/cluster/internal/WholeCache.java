package dev.larder.cluster.internal;

import dev.larder.cluster.ClusterMode;
import dev.larder.cluster.ClusterTimeoutException;
import dev.larder.cluster.Replication;
import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jgroups.Address;

/**
 * Operations on the whole cache: clearing every member, counting and listing every entry.
 * Thread-safe.
 *
 * <p>Implementation notes. Each asks every other member out-of-band (their handlers run on workers)
 * and combines the answers with its own. An entry is counted and listed once, by the member that is
 * its primary and owns its segment in its view (OWNED or INCOMING); in invalidation mode a count is
 * this member's store alone, and a listing gathers every member's own entries. None is atomic with
 * concurrent writes or rebalances: a clear may miss a write racing it, and a count or listing is a
 * weakly consistent snapshot.
 */
final class WholeCache {

  private final ClusterMode mode;
  private final Replication replication;
  private final Membership membership;
  private final SegmentOwnership segments;
  private final LocalStore store;
  private final Messenger messenger;

  /** Copies of non-owned keys, or null. */
  private final NearCache near;

  /** A durable member's start and epochs, or null: told of every clear (its waits end). */
  private final Formation formation;

  WholeCache(
      ClusterMode mode,
      Replication replication,
      Membership membership,
      SegmentOwnership segments,
      LocalStore store,
      Messenger messenger,
      NearCache near,
      Formation formation) {
    this.mode = mode;
    this.replication = replication;
    this.membership = membership;
    this.segments = segments;
    this.store = store;
    this.messenger = messenger;
    this.near = near;
    this.formation = formation;
  }

  /**
   * Removes every entry on every member (not atomic with concurrent writes); with SYNC replication,
   * waits until every member cleared.
   *
   * @throws ClusterTimeoutException if a member did not answer within the timeout (SYNC)
   */
  void clear() {
    long deadline = messenger.deadline();
    while (true) {
      clearHere();
      long viewId = membership.topology().viewId();
      List<String> refused = new ArrayList<>();
      messenger
          .broadcast(
              Frame.of(Frame.T_CLEAR, 0, viewId), replication == Replication.SYNC, true, "clear")
          .forEach(
              (member, reply) -> {
                if (reply.op() != Frame.S_OK) {
                  refused.add(Messenger.name(member));
                }
              });
      if (refused.isEmpty()) {
        return;
      }
      // members already in a newer view refused: clear again in it
      if (System.nanoTime() >= deadline) {
        throw new ClusterTimeoutException("clear", refused);
      }
      membership.awaitNewerView(viewId, deadline);
    }
  }

  /**
   * A CLEAR from another member, on a worker. One sent in a view older than this member's is
   * refused, as a backup write is: it may come from a member that was cut off and merged back since
   * (its side's clear, retransmitted once the partition healed, must not empty this side), and a
   * sender still in the cluster clears again in the new view. So is one from a member this member's
   * view does not hold: with a cut of one link, views of the same number can overlap
   * (docs/design/cluster.md, "A cut made one link at a time"), and the other view's clear is not
   * this side's to apply.
   */
  void onClear(Address from, Frame f) {
    Topology t = membership.topology();
    long viewId = t.viewId();
    if (f.viewId() < viewId || !t.members().contains(from)) {
      messenger.reply(from, f.reqId(), Frame.reply(f.reqId(), viewId, Frame.S_RETRY, null));
      return;
    }
    clearHere();
    messenger.reply(from, f.reqId(), Frame.reply(f.reqId(), viewId, Frame.S_OK, null));
  }

  /**
   * Empties this member's store and near cache; a durable member stops waiting for the holders of
   * its pending segments ({@link Formation#cleared}): their records hold only what the clear
   * removed.
   */
  private void clearHere() {
    store.clear();
    if (near != null) {
      near.flush();
    }
    if (formation != null) {
      formation.cleared();
    }
  }

  /** Returns the number of entries in the cluster (each counted once, by its primary). */
  long count() {
    if (mode == ClusterMode.INVALIDATION) {
      return store.entries.estimatedSize();
    }
    Frame scan =
        new Frame(
            Frame.T_SCAN,
            0,
            0,
            0,
            Frame.F_COUNT_ONLY,
            null,
            null,
            null,
            Frame.NO_INTS,
            List.of(),
            List.of());
    long total = countOf(scan(scan));
    for (Frame r : messenger.broadcast(scan, true, true, "count").values()) {
      total += countOf(r);
    }
    return total;
  }

  /**
   * Returns every entry of the cluster, each once (from its primary), as alternating encoded keys
   * and values; a snapshot, weakly consistent with concurrent writes and rebalances.
   */
  List<byte[]> entries() {
    Frame scan = Frame.of(Frame.T_SCAN, 0, 0);
    List<byte[]> all = new ArrayList<>(scan(scan).entries());
    if (mode != ClusterMode.INVALIDATION) {
      for (Frame r : messenger.broadcast(scan, true, true, "scan").values()) {
        all.addAll(r.entries());
      }
    }
    if (!store.stamps()) {
      return all;
    }
    List<byte[]> live = new ArrayList<>(all.size());
    for (int i = 0; i + 1 < all.size(); i += 2) {
      byte[] v = store.live(all.get(i + 1));
      if (v != null) {
        live.add(all.get(i));
        live.add(v);
      }
    }
    return live;
  }

  /** A SCAN from another member, on a worker. */
  void onScan(Address from, Frame f) {
    messenger.reply(from, f.reqId(), scan(f));
  }

  /**
   * Counts, or lists, the entries this member is primary of (in invalidation mode: all its own).
   */
  private Frame scan(Frame f) {
    boolean countOnly = (f.flags() & Frame.F_COUNT_ONLY) != 0;
    Topology t = membership.topology();
    Address self = membership.self();
    boolean all = mode == ClusterMode.INVALIDATION;
    long count = 0;
    List<byte[]> entries = new ArrayList<>();
    for (Map.Entry<byte[], byte[]> e : store.entries.asMap().entrySet()) {
      int s = segments.segmentOf(e.getKey());
      if (all || (t.hash().primary(s).equals(self) && segments.ownedOrIncoming(s))) {
        count++;
        if (!countOnly) {
          entries.add(e.getKey());
          entries.add(e.getValue());
        }
      }
    }
    ByteSink out = new ByteSink(8);
    out.writeLong(count);
    return new Frame(
        Frame.T_REPLY,
        f.reqId(),
        t.viewId(),
        Frame.S_OK,
        0,
        null,
        out.toByteArray(),
        null,
        Frame.NO_INTS,
        List.of(),
        entries);
  }

  private static long countOf(Frame reply) {
    return reply.value() == null ? 0 : new ByteSource(reply.value()).readLong();
  }
}
