package dev.larder.cluster.internal;

import dev.larder.cluster.ClusterTimeoutException;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jgroups.Address;

/**
 * Reads of single keys in the owner modes (replicated, distributed), on the asking member and on
 * the owners it asks, with the near cache of non-owned keys. Thread-safe.
 *
 * <p>Implementation notes.
 *
 * <ul>
 *   <li>A member reads locally when its value is current: its segment is OWNED, or INCOMING and the
 *       key live ({@link SegmentOwnership#authoritative}). Otherwise it asks each other owner in
 *       turn; an owner answers only if it is in the same view and its own value is current, else
 *       says it is not authoritative. With no answer it waits a little for a newer view and tries
 *       again, until the cluster timeout.
 *   <li>Near cache: a member that does not own the key first looks in its near cache, then asks the
 *       primary alone, because the primary applies a write before it sends that write's near
 *       invalidations; so a copy read from the primary after an invalidation is the new value. A
 *       copy is kept only if no invalidation of its stripe came while it was read ({@link
 *       NearCache}) and the view is unchanged and not older than the newest view an invalidation
 *       came from ({@link #nearBlockedBelow}): a write of that view happened, and an owner of an
 *       older view could answer with the value it replaced.
 *   <li>Reads hold no lock across a message: the segment lock is held only for the local check.
 * </ul>
 */
final class Reads {

  private final Membership membership;
  private final SegmentOwnership segments;
  private final LocalStore store;
  private final Messenger messenger;

  /** Copies of non-owned keys, or null. */
  private final NearCache near;

  /**
   * The newest view a near invalidation came from: a write of that view happened, so until this
   * member installs it, an owner of its older view may answer with a value that write replaced, and
   * no reply is kept.
   */
  private final AtomicLong nearBlockedBelow = new AtomicLong();

  /** Reads this member took as caller and asked of other members (its copy was not current). */
  private final LongAdder remote = new LongAdder();

  Reads(
      Membership membership,
      SegmentOwnership segments,
      LocalStore store,
      Messenger messenger,
      NearCache near) {
    this.membership = membership;
    this.segments = segments;
    this.store = store;
    this.messenger = messenger;
    this.near = near;
  }

  /**
   * Reads a key: locally when this member's value is current, otherwise from an owner.
   *
   * @return the value, or null if absent
   * @throws ClusterTimeoutException if no owner could answer within the timeout
   */
  @SuppressWarnings("ReferenceEquality") // the topology captured earlier is still the installed one
  byte[] get(byte[] key) {
    long deadline = messenger.deadline();
    int s = segments.segmentOf(key);
    ByteKey bk = new ByteKey(key);
    while (true) {
      Topology t = membership.topology();
      segments.lock(s);
      try {
        if (segments.authoritative(s, bk)) {
          return store.live(store.stored(key));
        }
      } finally {
        segments.unlock(s);
      }
      remote.increment();
      if (near != null && !t.hash().isOwner(membership.self(), s)) {
        byte[] copy = store.live(near.get(key));
        if (copy != null) {
          return copy;
        }
        long version = near.version(key);
        Frame p = readPrimary(t, s, key, deadline);
        if (p != null) {
          if (p.value() != null) {
            near.offer(
                key,
                p.value(),
                version,
                () -> membership.topology() == t && t.viewId() >= nearBlockedBelow.get());
          }
          return store.live(p.value());
        }
      }
      Frame r = readRemote(t, s, key, deadline);
      if (r != null) {
        return store.live(r.value());
      }
      if (System.nanoTime() >= deadline) {
        throw new ClusterTimeoutException("read", Messenger.names(t.hash().owners(s)));
      }
      membership.awaitNewerView(t.viewId(), deadline);
    }
  }

  /**
   * Asks each other owner in turn (a primary fetching the current value of a key it does not hold
   * yet asks the same way).
   *
   * @return the first authoritative reply, or null
   */
  Frame readRemote(Topology t, int s, byte[] key, long deadline) {
    Frame request = readRequest(t, key);
    for (Address owner : t.hash().owners(s)) {
      if (owner.equals(membership.self())) {
        continue;
      }
      Frame r = messenger.call(owner, request, deadline);
      if (r != null && r.op() == Frame.S_OK) {
        return r;
      }
    }
    return null;
  }

  /**
   * Asks the key's primary alone: only its answer may be kept in the near cache, because the
   * primary applies a write before it sends the write's near invalidations.
   */
  private Frame readPrimary(Topology t, int s, byte[] key, long deadline) {
    Address primary = t.hash().primary(s);
    if (primary.equals(membership.self())) {
      return null;
    }
    Frame r = messenger.call(primary, readRequest(t, key), deadline);
    return r != null && r.op() == Frame.S_OK ? r : null;
  }

  private static Frame readRequest(Topology t, byte[] key) {
    return new Frame(
        Frame.T_READ, 0, t.viewId(), 0, 0, key, null, null, Frame.NO_INTS, List.of(), List.of());
  }

  /**
   * Returns the reads this member took as caller and could not answer from its own copy (each
   * attempt): what routing the clients to an owner saves.
   */
  long remote() {
    return remote.sum();
  }

  /** A READ from another member, on a worker: answer if this member's value is current. */
  void onRead(Address from, Frame f) {
    messenger.reply(from, f.reqId(), answer(f));
  }

  private Frame answer(Frame f) {
    Topology t = membership.topology();
    if (f.viewId() != t.viewId()) {
      return Frame.reply(f.reqId(), t.viewId(), Frame.S_NOT_AUTHORITATIVE, null);
    }
    int s = segments.segmentOf(f.key());
    segments.lock(s);
    try {
      if (!segments.authoritative(s, new ByteKey(f.key()))) {
        return Frame.reply(f.reqId(), t.viewId(), Frame.S_NOT_AUTHORITATIVE, null);
      }
      return Frame.reply(f.reqId(), t.viewId(), Frame.S_OK, store.stored(f.key()));
    } finally {
      segments.unlock(s);
    }
  }

  /** A primary wrote a key this member does not own (delivery thread): drop its copy. */
  void onNearInvalidate(Address from, Frame f) {
    if (near != null) {
      near.invalidate(f.key());
      if (f.viewId() > membership.topology().viewId()) {
        nearBlockedBelow.accumulateAndGet(f.viewId(), Math::max);
      }
    }
    messenger.reply(
        from, f.reqId(), Frame.reply(f.reqId(), membership.topology().viewId(), Frame.S_OK, null));
  }

  /** A near invalidation before this member's first view: nothing is cached yet. */
  void onNearInvalidateBeforeFirstView(Address from, Frame f) {
    messenger.reply(from, f.reqId(), Frame.reply(f.reqId(), 0, Frame.S_OK, null));
  }
}
