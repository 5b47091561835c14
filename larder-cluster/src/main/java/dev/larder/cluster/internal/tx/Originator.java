package dev.larder.cluster.internal.tx;

import dev.larder.cluster.ClusterDegradedException;
import dev.larder.cluster.ClusterTimeoutException;
import dev.larder.tx.Isolation;
import dev.larder.tx.TransactionConflictException;
import dev.larder.tx.internal.KeyRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.jgroups.Address;

/**
 * Commits a transaction from the member it ran on: PREPARE to its participants, DECIDE until a
 * majority of the configured members logged it, then APPLY to the participants (docs/design/
 * cluster-transactions.md, "Commit"). Thread-safe; each call runs on the caller's thread.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>The local member takes part through direct calls on {@link MemberState}, never through the
 * channel. Before DECIDE any failure aborts: the originator sends ABORT (nobody can have been told
 * to commit). After DECIDE it never aborts on its own: if a majority did not log the decision
 * (members refused because a reconfiguration began, or left), the decision is the next epoch's, and
 * the originator waits for it ({@link MemberState#expectOutcome}).
 *
 * <p><b>Reading one's own writes.</b> A decision is chosen once a majority logged it, but the
 * originator waits for every participant's answer to DECIDE (or for it to leave, or the deadline)
 * before it acknowledges: a member observes the commit timestamp when it gets the DECIDE, so every
 * snapshot an owner of the written keys hands out after the acknowledgement is above the commit,
 * and its reads wait for the APPLY if it has not arrived. Readers that own none of the keys read
 * them from an owner, which tells them of a commit above their snapshot ({@link RemoteReads}).
 *
 * <p>Who is asked ({@link Participants}): PREPARE, APPLY and ABORT go to the participants (the
 * originator, the owners of the written keys, the primaries of the keys validated), DECIDE to them
 * and as many other members of the epoch as a majority of the configured members needs.
 */
final class Originator {

  /** Thrown inside the commit loop for a refusal that a blind write waits out. */
  private static final class LockedOnly extends Exception {
    private static final long serialVersionUID = 1L;

    LockedOnly() {
      super(null, null, false, false);
    }
  }

  private final MemberState member;
  private final TxChannel channel;
  private final int majority;
  private final Function<TxFrame.Conflict, TransactionConflictException.ConflictingKey> describe;

  Originator(
      MemberState member,
      TxChannel channel,
      int majority,
      Function<TxFrame.Conflict, TransactionConflictException.ConflictingKey> describe) {
    this.member = member;
    this.channel = channel;
    this.majority = majority;
    this.describe = describe;
  }

  /** The snapshot epoch of a write that read nothing (a blind write): any epoch will do. */
  static final long ANY_EPOCH = Long.MIN_VALUE;

  /**
   * Returns the commit timestamp.
   *
   * @param snapshotEpoch the epoch this member was READY in when the snapshot was taken, -1 if it
   *     was not READY, or {@link #ANY_EPOCH}: the commit is refused unless it runs in that epoch (a
   *     snapshot is complete only on a member READY in the epoch that commits: elsewhere, on a
   *     minority side say, commits with lower timestamps may be missing from what it read)
   * @param writes encoded values, null for a removal
   * @param walked whether the transaction walked every key at its snapshot: it commits only if no
   *     other commit created, changed or removed a key since (checked here after the votes, before
   *     DECIDE: {@link MemberState#changedSince}; REPLICATED)
   * @throws TransactionConflictException if refused (nothing applied)
   * @throws ClusterDegradedException if this member is not READY and its view holds fewer than a
   *     majority of the members (nothing applied)
   * @throws ClusterTimeoutException if no epoch could be used, or the outcome is not known by the
   *     deadline
   */
  long commit(
      long snapshot,
      long snapshotEpoch,
      Isolation isolation,
      List<KeyRef> reads,
      List<TxFrame.Write> writes,
      boolean blind,
      boolean walked,
      long deadlineNanos) {
    while (true) {
      try {
        return attempt(
            snapshot, snapshotEpoch, isolation, reads, writes, blind, walked, deadlineNanos);
      } catch (LockedOnly e) {
        if (System.nanoTime() > deadlineNanos) {
          throw new ClusterTimeoutException(
              "a write outside a transaction waited until its"
                  + " timeout for a key locked by a prepared transaction",
              List.of());
        }
        java.util.concurrent.locks.LockSupport.parkNanos(
            java.util.concurrent.ThreadLocalRandom.current().nextLong(200_000, 2_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ClusterTimeoutException("interrupted while committing", List.of());
      }
    }
  }

  private long attempt(
      long snapshot,
      long snapshotEpoch,
      Isolation isolation,
      List<KeyRef> reads,
      List<TxFrame.Write> writes,
      boolean blind,
      boolean walked,
      long deadlineNanos)
      throws LockedOnly, InterruptedException {
    Epoch e = member.awaitReady(deadlineNanos, majority);
    if (e == null) {
      if (member.inMinorityView(majority)) {
        // no epoch can be established from this view: refuse now, as the quorum path does,
        // rather than wait out the timeout (nothing was sent, so nothing is in doubt)
        throw new ClusterDegradedException(
            String.valueOf(channel.self()),
            "commit",
            names(member.view()),
            names(member.epochAddresses()));
      }
      throw new ClusterTimeoutException(
          "no epoch with a majority of the members was established"
              + " on this member in time: it cannot commit (a minority side of a partition, or the"
              + " cluster is reconfiguring)",
          List.of());
    }
    if (snapshotEpoch != ANY_EPOCH && snapshotEpoch != e.number) {
      throw new TransactionConflictException(
          "transaction with snapshot "
              + snapshot
              + " began"
              + (snapshotEpoch < 0
                  ? " while this member was not READY"
                  : " in epoch " + snapshotEpoch)
              + " and would commit in epoch "
              + e.number
              + ": what it read may miss commits made"
              + " meanwhile, so it is refused (run it again)",
          List.of());
    }
    TxId id = member.nextTxId();
    // registered before any member can hold the transaction pending: a reconfiguration that
    // installs an epoch from here on decides it (or aborts it) and completes this future; one
    // registered later, at DECIDE, could miss that install and wait out the timeout for an
    // outcome already chosen (its DECIDE refused under the newer ballot)
    CompletableFuture<Long> outcome = member.expectOutcome(id);
    try {
      int flags =
          (isolation == Isolation.SNAPSHOT ? TxFrame.F_SNAPSHOT : 0)
              | (blind ? TxFrame.F_BLIND : 0);
      List<KeyRef> checkedReads = isolation == Isolation.SERIALIZABLE && !blind ? reads : List.of();
      Participants who =
          Participants.of(e, member.memberId(), writes, checkedReads, majority, id.counter());
      List<Address> others = who.participants();
      TxChannel.Call call = channel.open(others);
      TxFrame.Prepare prepare;
      TxFrame.Vote own;
      boolean complete;
      try {
        // regular, like APPLY: a member handles this originator's APPLY of an earlier transaction
        // before this PREPARE, so a client's next transaction on a key it just wrote finds the
        // key unlocked
        for (Address a : others) {
          channel.send(
              a,
              new TxFrame.Prepare(
                  call.id, e.number, e.ballot, id, snapshot, flags, checkedReads, writes),
              false);
        }
        prepare =
            new TxFrame.Prepare(0, e.number, e.ballot, id, snapshot, flags, checkedReads, writes);
        own = member.prepare(prepare);
        complete = call.await(c -> false, deadlineNanos);
      } finally {
        channel.close(call);
      }
      List<TxFrame.Vote> votes = new ArrayList<>();
      votes.add(own);
      for (TxFrame f : call.replies().values()) {
        votes.add((TxFrame.Vote) f);
      }
      long commitTs = 0;
      boolean allYes = complete && !call.anyLeftOrMissing();
      List<TxFrame.Conflict> conflicts = new ArrayList<>();
      for (TxFrame.Vote v : votes) {
        allYes &= v.status() == TxFrame.V_YES;
        commitTs = Math.max(commitTs, v.proposal());
        conflicts.addAll(v.conflicts());
      }
      if (!allYes) {
        abortEverywhere(id, others);
        throw refusal(snapshot, votes, conflicts, complete, blind);
      }
      if (walked && member.changedSince(snapshot, commitTs, id)) {
        abortEverywhere(id, others);
        throw new TransactionConflictException(
            "transaction with snapshot "
                + snapshot
                + " walked every key, and another commit created, changed or removed a key since"
                + " (or is still pending): run it again",
            List.of());
      }
      return decide(e, id, outcome, commitTs, who, deadlineNanos);
    } finally {
      member.forgetOutcome(id);
    }
  }

  private RuntimeException refusal(
      long snapshot,
      List<TxFrame.Vote> votes,
      List<TxFrame.Conflict> conflicts,
      boolean complete,
      boolean blind)
      throws LockedOnly {
    boolean no = votes.stream().anyMatch(v -> v.status() == TxFrame.V_NO);
    if (blind && no && conflicts.stream().allMatch(c -> c.committedAt() == 0)) {
      throw new LockedOnly();
    }
    if (!conflicts.isEmpty()) {
      return new TransactionConflictException(conflicts.stream().map(describe).toList(), snapshot);
    }
    String why =
        !complete
            ? "a member did not vote within the timeout"
            : no
                ? "a member refused it (it had been aborted there)"
                : "the cluster is changing its configuration";
    return new TransactionConflictException(
        "transaction with snapshot "
            + snapshot
            + " was aborted before any member was told to commit it: "
            + why,
        List.of());
  }

  private long decide(
      Epoch e,
      TxId id,
      CompletableFuture<Long> outcome,
      long commitTs,
      Participants who,
      long deadlineNanos)
      throws InterruptedException {
    List<Address> deciders = who.deciders();
    TxChannel.Call call = channel.open(deciders);
    int ok;
    try {
      for (Address a : deciders) {
        channel.send(a, new TxFrame.Decide(call.id, e.ballot, id, commitTs), true);
      }
      TxFrame.Ack own = member.decide(new TxFrame.Decide(0, e.ballot, id, commitTs));
      int mine = own.status() == TxFrame.A_OK ? 1 : 0;
      // chosen once a majority logged it; acknowledged only once every participant has also
      // answered (its clock then passed the commit: reads through it see the commit) or left;
      // or an epoch installed meanwhile decided it (a participant that stays in this member's
      // view need not answer a DECIDE it never got, after the reconfiguration that ended it)
      List<Address> participants = who.participants();
      // the callback's own future: it only wakes the wait below, and fails with nothing
      CompletableFuture<Long> _ = outcome.whenComplete((_, _) -> call.wake());
      call.await(
          c -> outcome.isDone() || (mine + oks(c.replies()) >= majority && c.settled(participants)),
          deadlineNanos);
      ok = mine + oks(call.replies());
    } finally {
      channel.close(call);
    }
    if (ok >= majority) {
      member.apply(id, commitTs);
      for (Address a : who.participants()) {
        channel.send(a, new TxFrame.Apply(0, id, commitTs), false);
      }
      return commitTs;
    }
    return awaitOutcome(id, outcome, deadlineNanos);
  }

  /** The decision was not chosen in time: the next epoch's reconfiguration decides. */
  private long awaitOutcome(TxId id, CompletableFuture<Long> outcome, long deadlineNanos)
      throws InterruptedException {
    long result;
    try {
      result = outcome.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new ClusterTimeoutException(
          "transaction "
              + id
              + " is in doubt: its decision did"
              + " not reach a majority of the members and no new epoch decided it within the"
              + " timeout",
          List.of());
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
    if (result == MemberState.OUTCOME_UNKNOWN) {
      throw new ClusterTimeoutException(
          "transaction "
              + id
              + " is in doubt: this member was cut off while its decision was being chosen, and"
              + " the reconfiguration that decided it is no longer remembered by the members",
          List.of());
    }
    if (result < 0) {
      throw new TransactionConflictException(
          "transaction "
              + id
              + " was aborted by a"
              + " reconfiguration of the cluster before its decision was chosen",
          List.of());
    }
    return result;
  }

  private static List<String> names(List<Address> members) {
    return members.stream().map(String::valueOf).toList();
  }

  private static int oks(Map<Address, TxFrame> replies) {
    int n = 0;
    for (TxFrame f : replies.values()) {
      if (f instanceof TxFrame.Ack a && a.status() == TxFrame.A_OK) {
        n++;
      }
    }
    return n;
  }

  private void abortEverywhere(TxId id, List<Address> others) {
    member.abort(id);
    for (Address a : others) {
      channel.send(a, new TxFrame.Abort(0, id), false);
    }
  }
}
