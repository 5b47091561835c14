package dev.larder.cluster.internal;

import dev.larder.cluster.Replication;
import java.util.List;
import java.util.function.BiPredicate;
import org.jgroups.Address;

/**
 * Single-key access in invalidation mode: each member keeps its own entries (typically loaded from
 * a shared database), and a write here tells every other member to drop its copy of the key.
 * Thread-safe.
 *
 * <p>Implementation notes. A write applies to the local store under the segment lock (so that a
 * conditional write sees one current value), then broadcasts the invalidation: with SYNC
 * replication it waits until every other member dropped the key, with ASYNC it does not. A
 * conditional write that changed nothing invalidates nothing. Receivers drop the key on the
 * delivery thread and acknowledge; a frame without a key drops every entry.
 */
final class InvalidationAccess implements KeyAccess {

  private final Replication replication;
  private final Membership membership;
  private final SegmentOwnership segments;
  private final LocalStore store;
  private final Messenger messenger;
  private final BiPredicate<byte[], byte[]> sameValue;

  InvalidationAccess(
      Replication replication,
      Membership membership,
      SegmentOwnership segments,
      LocalStore store,
      Messenger messenger,
      BiPredicate<byte[], byte[]> sameValue) {
    this.replication = replication;
    this.membership = membership;
    this.segments = segments;
    this.store = store;
    this.messenger = messenger;
    this.sameValue = sameValue;
  }

  @Override
  public byte[] get(byte[] key) {
    return store.stored(key);
  }

  @Override
  public byte[] write(Op op, byte[] key, byte[] value, byte[] expected, boolean mayReturnEarly) {
    boolean async = mayReturnEarly && replication == Replication.ASYNC;
    int s = segments.segmentOf(key);
    Outcome outcome;
    segments.lock(s);
    try {
      outcome = Outcome.of(op, store.stored(key), value, expected, sameValue);
      if (outcome.changes()) {
        store.apply(s, new ByteKey(key), outcome.newValue());
      }
    } finally {
      segments.unlock(s);
    }
    if (outcome.changes() || !op.conditional()) {
      messenger.broadcast(
          new Frame(
              Frame.T_INVALIDATE,
              0,
              membership.topology().viewId(),
              0,
              0,
              key,
              null,
              null,
              Frame.NO_INTS,
              List.of(),
              List.of()),
          !async,
          false,
          "invalidation");
    }
    return outcome.result();
  }

  /** An INVALIDATE from another member, on the delivery thread. */
  void onInvalidate(Address from, Frame f) {
    if (f.key() == null) {
      store.clear();
    } else {
      store.drop(f.key());
    }
    messenger.reply(
        from, f.reqId(), Frame.reply(f.reqId(), membership.topology().viewId(), Frame.S_OK, null));
  }
}
