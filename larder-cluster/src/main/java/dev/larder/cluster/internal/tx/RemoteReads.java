package dev.larder.cluster.internal.tx;

import dev.larder.cluster.ClusterTimeoutException;
import dev.larder.tx.TransactionConflictException;
import dev.larder.tx.internal.KeyRef;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import org.jgroups.Address;

/**
 * Reads of keys this member does not hold (DISTRIBUTED mode, or a segment it is still adopting):
 * READ to an owner of the key in the snapshot's epoch, primary first, and the owner's side of it
 * (docs/design/cluster-transactions.md, "Reads of keys held elsewhere"). Thread-safe.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>An owner serves a READ only if it installed the snapshot's epoch, owns the key's segment in it
 * and holds the segment at it. It first raises its clock to the snapshot under its member's monitor
 * (as PREPARE takes its proposal), so every transaction that may commit at or below the snapshot is
 * applied or pending there, and the read waits for pending ones, as a local read does. All remote
 * reads of one transaction go to owners in one epoch: every commit of that epoch passes through
 * each of them, and the epoch holds every earlier one. The owner checks again after reading that it
 * still serves the epoch (an INSTALL meanwhile may have dropped the segment).
 *
 * <p><b>Commits above the snapshot.</b> A reader that owns none of a transaction's keys took no
 * part in its commit, so its clock may be below the commit's timestamp although the commit was
 * acknowledged (to another client, or to this reader's own client through another member) before
 * its snapshot was taken. An owner that knows of a commit of the key above the snapshot, by at most
 * {@value #UNCERTAIN_MILLIS} ms of the hybrid clock (the members' clocks must agree that closely),
 * answers NEWER with its clock instead of the older value; the reader observes that clock and fails
 * the read with a conflict, so that {@code inTransaction} runs it again at a snapshot above the
 * commit. Every owner of the key took part in the commit and answered its DECIDE before it was
 * acknowledged, so it knows of it (applied, or decided and pending). A commit made after the
 * snapshot was taken may cost a needless retry; never a stale answer.
 */
final class RemoteReads {

  /** How far above a snapshot an owner looks for commits its reader should see (see notes). */
  static final long UNCERTAIN_MILLIS = 1000;

  private static final long UNCERTAIN_TICKS = UNCERTAIN_MILLIS << 20;

  private final MemberState member;
  private final TxChannel channel;

  RemoteReads(MemberState member, TxChannel channel) {
    this.member = member;
    this.channel = channel;
  }

  /**
   * Returns the key's stored bytes at the snapshot (null: absent), read from an owner in {@code
   * epoch}.
   *
   * @throws TransactionConflictException if this member left that epoch, or the owner's read waited
   *     on a pending transaction until its timeout or lost the snapshot to an adoption
   * @throws ClusterTimeoutException if no owner served the read by the deadline
   */
  byte[] read(KeyRef key, long snapshot, long epoch, long deadlineNanos)
      throws InterruptedException {
    while (true) {
      Epoch e = member.epoch();
      if (e.number != epoch) {
        throw new TransactionConflictException(
            "this member's epoch changed from "
                + epoch
                + " to "
                + e.number
                + " since the snapshot "
                + snapshot
                + " was taken: its reads of keys held elsewhere cannot go on (run it again)",
            List.of());
      }
      for (long id : e.ownersOf(e.segmentOf(key))) {
        Address a = id == member.memberId() ? null : e.addressOf(id);
        if (a == null) {
          continue;
        }
        TxFrame.Value v = ask(a, new TxFrame.Read(0, epoch, snapshot, key), deadlineNanos);
        if (v != null && v.status() == TxFrame.R_OK) {
          return v.stored();
        }
        if (v != null && v.status() == TxFrame.R_NEWER) {
          member.observeRead(TxFrame.clockOf(v.stored()));
          throw new TransactionConflictException(
              "an owner of a key read at snapshot "
                  + snapshot
                  + " holds a commit of it above the snapshot, which may have been acknowledged"
                  + " before the snapshot was taken: run it again",
              List.of());
        }
        if (v != null && v.status() == TxFrame.R_CONFLICT) {
          throw new TransactionConflictException(
              "an owner of a key read at snapshot "
                  + snapshot
                  + " could not serve it (a transaction pending there until the timeout, or its"
                  + " state adopted since the snapshot): run it again",
              List.of());
        }
      }
      if (System.nanoTime() > deadlineNanos) {
        throw new ClusterTimeoutException(
            "no owner of a key served a read in epoch " + epoch + " within the timeout", List.of());
      }
      // the owners have not installed the epoch or hold the segment yet
      LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(1_000_000, 10_000_000));
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }
  }

  private TxFrame.Value ask(Address owner, TxFrame.Read read, long deadlineNanos)
      throws InterruptedException {
    TxChannel.Call call = channel.open(List.of(owner));
    try {
      channel.send(
          owner, new TxFrame.Read(call.id, read.epoch(), read.snapshot(), read.key()), true);
      call.await(c -> false, deadlineNanos);
      return call.replies().get(owner) instanceof TxFrame.Value v ? v : null;
    } finally {
      channel.close(call);
    }
  }

  /** On an owner: answers a READ (on a worker thread: the read may wait for pending writes). */
  TxFrame.Value serve(TxFrame.Read r, long timeoutNanos) {
    if (!member.servesReads(r.key(), r.epoch())) {
      return new TxFrame.Value(r.reqId(), TxFrame.R_RETRY, null);
    }
    member.observeRead(r.snapshot());
    byte[] stored;
    try {
      stored = member.store.read(r.key(), r.snapshot(), System.nanoTime() + timeoutNanos);
    } catch (PendingTimeoutException | SnapshotLostException e) {
      return new TxFrame.Value(r.reqId(), TxFrame.R_CONFLICT, null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new TxFrame.Value(r.reqId(), TxFrame.R_RETRY, null);
    }
    if (!member.servesReads(r.key(), r.epoch())) {
      return new TxFrame.Value(r.reqId(), TxFrame.R_RETRY, null);
    }
    long above = member.commitAbove(r.key(), r.snapshot());
    if (above != 0 && above - r.snapshot() <= UNCERTAIN_TICKS) {
      return new TxFrame.Value(r.reqId(), TxFrame.R_NEWER, TxFrame.clockBytes(member.clock()));
    }
    return new TxFrame.Value(r.reqId(), TxFrame.R_OK, stored);
  }
}
