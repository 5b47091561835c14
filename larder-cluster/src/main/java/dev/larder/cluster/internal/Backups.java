package dev.larder.cluster.internal;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jgroups.Address;

/**
 * The copies of a primary's write: sending it to the key's backups (and its near invalidations to
 * every member that does not own the key), and applying it on a backup. Thread-safe.
 *
 * <p>Implementation notes. The primary sends while it holds the segment lock, after applying the
 * write locally, as a regular (per-sender FIFO) message: holding the lock gives the key one order
 * of writes, and FIFO delivery keeps that order on every backup, for SYNC and ASYNC alike. A backup
 * applies on the delivery thread and never blocks on another member. It refuses (asks to retry) a
 * write from a view older than its own, so a write acknowledged in a view was applied by every
 * owner of that view; and a write naming value-dictionary ids it cannot learn yet. Near
 * invalidations go out-of-band, after the primary applied the write, so a near copy read from the
 * primary after the invalidation is the new value.
 */
final class Backups {

  private final Membership membership;
  private final SegmentOwnership segments;
  private final LocalStore store;
  private final Messenger messenger;

  /** Copies of non-owned keys, or null. */
  private final NearCache near;

  /** Keeps the value dictionary identical across members, or null. */
  private final DictionarySync dictionary;

  private final Quorum quorum;

  Backups(
      Membership membership,
      SegmentOwnership segments,
      LocalStore store,
      Messenger messenger,
      NearCache near,
      DictionarySync dictionary,
      Quorum quorum) {
    this.quorum = quorum;
    this.membership = membership;
    this.segments = segments;
    this.store = store;
    this.messenger = messenger;
    this.near = near;
    this.dictionary = dictionary;
  }

  /**
   * Sends a write to the backups and, with near caches, its invalidation to every member that does
   * not own the key. Caller holds the segment lock (this is what orders writes) and has applied the
   * write locally.
   *
   * @param ack true if the caller will wait for every one of them to acknowledge
   * @return the call to await, or null if nothing is awaited
   */
  Calls.Call replicate(Topology t, int s, byte[] key, byte[] value, boolean ack) {
    List<Address> backups = t.hash().backups(s);
    List<Address> others = near == null ? List.of() : nonOwners(t, s);
    if (backups.isEmpty() && others.isEmpty()) {
      return null;
    }
    if (!ack) {
      // nothing awaited: queued per backup, possibly sent with other writes in one frame
      int[] ints = writeInts();
      for (Address b : backups) {
        messenger.sendBackup(b, t.viewId(), ints, key, value);
      }
      invalidateNearCaches(others, 0, t.viewId(), key);
      return null;
    }
    // awaited: every backup and near-invalidated member answers this call
    Set<Address> awaited = new HashSet<>(backups);
    awaited.addAll(others);
    Calls.Call call = messenger.open(awaited);
    long reqId = call.id;
    Frame backup =
        new Frame(
            Frame.T_BACKUP,
            reqId,
            t.viewId(),
            value == null ? Op.REMOVE.code() : Op.PUT.code(),
            0,
            key,
            value,
            null,
            writeInts(),
            List.of(),
            List.of());
    for (Address b : backups) {
      messenger.send(b, backup, false);
    }
    invalidateNearCaches(others, reqId, t.viewId(), key);
    return call;
  }

  /**
   * Tells the members holding near copies of {@code key} to drop them; {@code reqId} 0 when no
   * answer is awaited, else the call their acknowledgements answer.
   */
  private void invalidateNearCaches(List<Address> others, long reqId, long viewId, byte[] key) {
    if (others.isEmpty()) {
      return;
    }
    Frame inval =
        new Frame(
            Frame.T_NEAR_INVALIDATE,
            reqId,
            viewId,
            0,
            0,
            key,
            null,
            null,
            Frame.NO_INTS,
            List.of(),
            List.of());
    for (Address o : others) {
      messenger.send(o, inval, true);
    }
  }

  private static List<Address> nonOwners(Topology t, int s) {
    List<Address> out = new ArrayList<>();
    for (Address a : t.view().getMembers()) {
      if (!t.hash().isOwner(a, s)) {
        out.add(a);
      }
    }
    return out;
  }

  /**
   * Returns the ints of a WRITE or BACKUP this member sends: 0 hops, then, with a value dictionary,
   * its size of each space (docs/spec/cluster-wire.md).
   */
  int[] writeInts() {
    return dictionary == null ? ZERO_HOPS : dictionary.withSizes(0);
  }

  /**
   * The ints of a write without a dictionary, shared: a frame's ints are not changed once it is
   * made (a hop count is raised on a copy).
   */
  private static final int[] ZERO_HOPS = {0};

  /** Returns false if a WRITE or BACKUP may name dictionary ids this member cannot learn now. */
  boolean knowsDictionaryIdsOf(Frame f) {
    return dictionary == null || dictionary.knowsIdsOf(f.ints());
  }

  /** A backup write from a primary, on the delivery thread. */
  void onBackup(Address from, Frame f) {
    if (!accepts(from, f)) {
      // a backup on a minority side (quorum) acknowledges nothing: the primary retries. Nor does
      // one whose view does not hold the primary: views of a cut made one link at a time can
      // carry the same number on both sides, each holding this member (docs/design/cluster.md,
      // "A cut made one link at a time"), and only the side whose view it installed may count it
      messenger.reply(
          from,
          f.reqId(),
          Frame.reply(f.reqId(), membership.topology().viewId(), Frame.S_RETRY, null));
      return;
    }
    int s = segments.segmentOf(f.key());
    if (near != null) {
      // an owner in the write's view; this member may still be in a view where it was not
      near.invalidate(f.key());
    }
    membership.viewReadLock().lock();
    segments.lock(s);
    try {
      store.apply(s, new ByteKey(f.key()), f.op() == Op.REMOVE.code() ? null : f.value());
    } finally {
      segments.unlock(s);
      membership.viewReadLock().unlock();
    }
    messenger.reply(
        from, f.reqId(), Frame.reply(f.reqId(), membership.topology().viewId(), Frame.S_OK, null));
  }

  /**
   * Backup writes that want no answer, several in one frame, on the delivery thread: applied in
   * their order as {@link #onBackup} applies one, or dropped all together where it would refuse one
   * (an unacknowledged write is not retried: state transfer brings the segment's copy).
   */
  void onBackups(Address from, Frame f) {
    if (!accepts(from, f)) {
      return;
    }
    List<byte[]> entries = f.entries();
    membership.viewReadLock().lock();
    try {
      for (int i = 0; i + 1 < entries.size(); i += 2) {
        byte[] key = entries.get(i);
        int s = segments.segmentOf(key);
        if (near != null) {
          near.invalidate(key);
        }
        segments.lock(s);
        try {
          store.apply(s, new ByteKey(key), entries.get(i + 1));
        } finally {
          segments.unlock(s);
        }
      }
    } finally {
      membership.viewReadLock().unlock();
    }
  }

  /**
   * Whether this backup applies a primary's BACKUP or BACKUPS frame: it is of this member's view or
   * a newer one, from a member of that view, names dictionary ids this member knows, and this
   * member sees a majority (quorum).
   */
  private boolean accepts(Address from, Frame f) {
    Topology t = membership.topology();
    if (f.viewId() < t.viewId()
        || !t.members().contains(from)
        || !knowsDictionaryIdsOf(f)
        || !quorum.majorityInView()) {
      return false;
    }
    return true;
  }
}
