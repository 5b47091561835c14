package dev.larder.cluster.internal.tx;

import dev.larder.tx.internal.StoredValue;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * One key on one member: its committed versions, the transactions pending on it, and (on the key's
 * primary) its transaction locks.
 *
 * <h2>Implementation notes</h2>
 *
 * <p><b>Versions</b> are kept in timestamp order, newest last; each is the stored bytes ({@link
 * StoredValue}: the commit timestamp as a varint, then the value) or null for a removal. Commits
 * reach a member out of timestamp order only for different keys' transactions that conflict on
 * nothing; for one key they arrive in order at its primary, and anywhere else may be inserted below
 * a newer one, so insertion keeps the order rather than appending. When a version is added, the
 * versions older than the newest one at or below the horizon are dropped: no open snapshot on this
 * member, nor any later one, can read them.
 *
 * <p><b>Pending</b> transactions (prepared here, not yet applied or aborted) carry this member's
 * proposal; a read at snapshot {@code s} waits while one with a proposal at or below {@code s} is
 * pending, since it may commit at a timestamp at or below {@code s} (the cross-member snapshot rule
 * of docs/design/cluster-transactions.md).
 *
 * <p><b>Locks</b>: one exclusive holder, or shared holders, never both. No-wait: a request that
 * conflicts fails at once.
 *
 * <p>Thread safety: every method holds this object's monitor; a waiting read releases it.
 */
final class KeyState {

  private long[] ts = new long[0];
  private byte[][] stored = new byte[0][];
  private final List<Pending> pending = new ArrayList<>(1);
  private TxId exclusive;
  private Set<TxId> shared;

  /**
   * True once versions older than the oldest kept one may have existed (dropped by the horizon,
   * replaced by an adoption, or not in a checkpoint): a read below the oldest kept version cannot
   * then answer "absent".
   */
  private boolean trimmed;

  /** A pending write: its transaction, this member's proposal, the value (null: removal). */
  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  private record Pending(TxId txid, long proposal, byte[] value) {}

  /** Returns the newest committed version's timestamp, 0 if none. */
  synchronized long newestTs() {
    return ts.length == 0 ? 0 : ts[ts.length - 1];
  }

  /**
   * The stored bytes visible at {@code snapshot}, waiting first for pending transactions that may
   * commit at or below it.
   *
   * @return the stored bytes (null if absent at the snapshot)
   * @throws PendingTimeoutException if they are still pending at the deadline
   * @throws SnapshotLostException if the versions the snapshot needs are no longer kept (a reader
   *     on another member, whose snapshot this member's horizon does not hold back)
   */
  synchronized byte[] readAt(long snapshot, long deadlineNanos) throws InterruptedException {
    while (blocks(snapshot)) {
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        throw new PendingTimeoutException(pending.getFirst().txid());
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    for (int i = ts.length - 1; i >= 0; i--) {
      if (ts[i] <= snapshot) {
        return stored[i];
      }
    }
    if (trimmed) {
      throw new SnapshotLostException(snapshot);
    }
    return null;
  }

  private boolean blocks(long snapshot) {
    for (Pending p : pending) {
      if (p.proposal() <= snapshot) {
        return true;
      }
    }
    return false;
  }

  /** Returns the newest version's stored bytes if it is present (null if absent or removed). */
  synchronized byte[] newest() {
    return stored.length == 0 ? null : stored[stored.length - 1];
  }

  /**
   * Takes a lock for {@code txid}: exclusive to write, shared to read only.
   *
   * @return true if taken (or already held by it)
   */
  synchronized boolean lock(TxId txid, boolean write) {
    if (write) {
      if ((exclusive != null && !exclusive.equals(txid))
          || (shared != null && !(shared.size() == 1 && shared.contains(txid)))) {
        return false;
      }
      exclusive = txid;
      shared = null;
      return true;
    }
    if (exclusive != null) {
      return exclusive.equals(txid);
    }
    if (shared == null) {
      shared = new HashSet<>(2);
    }
    shared.add(txid);
    return true;
  }

  /** Returns true if a transaction other than {@code txid} holds a lock. */
  synchronized boolean lockedByOther(TxId txid) {
    return (exclusive != null && !exclusive.equals(txid))
        || (shared != null && !(shared.size() == 1 && shared.contains(txid)));
  }

  /** Returns the transaction holding the exclusive lock, or null. */
  synchronized TxId exclusiveHolder() {
    return exclusive;
  }

  synchronized void unlock(TxId txid) {
    if (txid.equals(exclusive)) {
      exclusive = null;
    }
    if (shared != null && shared.remove(txid) && shared.isEmpty()) {
      shared = null;
    }
  }

  synchronized void addPending(TxId txid, long proposal, byte[] value) {
    pending.add(new Pending(txid, proposal, value));
  }

  /**
   * Installs {@code txid}'s pending write at {@code commitTs}, releases its lock and wakes readers.
   *
   * @param horizon the oldest snapshot this member may still read at (see class notes)
   * @return true if the transaction was pending here
   */
  synchronized boolean apply(TxId txid, long commitTs, long horizon) {
    Pending p = removePending(txid);
    unlock(txid);
    if (p != null) {
      insert(commitTs, p.value() == null ? null : StoredValue.wrap(commitTs, p.value()));
      trim(horizon);
    }
    notifyAll();
    return p != null;
  }

  /** Drops {@code txid}'s pending write and lock, and wakes readers. */
  synchronized void abort(TxId txid) {
    removePending(txid);
    unlock(txid);
    notifyAll();
  }

  /** Replaces everything with one committed version (adoption), or nothing if null. */
  synchronized void reset(long commitTs, byte[] value) {
    pending.clear();
    exclusive = null;
    shared = null;
    ts = new long[0];
    stored = new byte[0][];
    trimmed = commitTs > 0;
    if (commitTs > 0) {
      insert(commitTs, value == null ? null : StoredValue.wrap(commitTs, value));
    }
    notifyAll();
  }

  /** Adds a committed version read back from a checkpoint or a log. */
  synchronized void restore(long commitTs, byte[] value) {
    trimmed = true;
    insert(commitTs, value == null ? null : StoredValue.wrap(commitTs, value));
  }

  /**
   * Returns true if a version committed after {@code after} and at or before {@code upTo} is kept
   * here, or a transaction other than {@code self} is pending here (it may yet commit at or before
   * {@code upTo}): what a walk of every key at snapshot {@code after} may have missed, for a
   * transaction committing at {@code upTo}.
   */
  synchronized boolean changedBetween(long after, long upTo, TxId self) {
    for (long t : ts) {
      if (t > after && t <= upTo) {
        return true;
      }
    }
    for (Pending p : pending) {
      if (!p.txid().equals(self)) {
        return true;
      }
    }
    return false;
  }

  synchronized boolean hasPending() {
    return !pending.isEmpty();
  }

  /** Returns the bytes this key holds, roughly (versions and pending values). */
  synchronized long bytes() {
    long n = 64;
    for (byte[] b : stored) {
      n += 16 + (b == null ? 0 : b.length);
    }
    for (Pending p : pending) {
      n += 32 + (p.value() == null ? 0 : p.value().length);
    }
    return n;
  }

  private Pending removePending(TxId txid) {
    for (int i = 0; i < pending.size(); i++) {
      if (pending.get(i).txid().equals(txid)) {
        return pending.remove(i);
      }
    }
    return null;
  }

  private void insert(long commitTs, byte[] bytes) {
    int at = ts.length;
    while (at > 0 && ts[at - 1] > commitTs) {
      at--;
    }
    if (at > 0 && ts[at - 1] == commitTs) {
      stored[at - 1] = bytes; // the same commit again (a replay): idempotent
      return;
    }
    long[] nts = new long[ts.length + 1];
    byte[][] nst = new byte[stored.length + 1][];
    System.arraycopy(ts, 0, nts, 0, at);
    System.arraycopy(stored, 0, nst, 0, at);
    nts[at] = commitTs;
    nst[at] = bytes;
    System.arraycopy(ts, at, nts, at + 1, ts.length - at);
    System.arraycopy(stored, at, nst, at + 1, stored.length - at);
    ts = nts;
    stored = nst;
  }

  /** Drops versions older than the newest one at or below {@code horizon}. */
  private void trim(long horizon) {
    int keepFrom = 0;
    for (int i = ts.length - 1; i >= 0; i--) {
      if (ts[i] <= horizon) {
        keepFrom = i;
        break;
      }
    }
    if (keepFrom > 0) {
      trimmed = true;
      long[] nts = new long[ts.length - keepFrom];
      byte[][] nst = new byte[stored.length - keepFrom][];
      System.arraycopy(ts, keepFrom, nts, 0, nts.length);
      System.arraycopy(stored, keepFrom, nst, 0, nst.length);
      ts = nts;
      stored = nst;
    }
  }
}
