package dev.larder.cluster.internal;

import dev.larder.cluster.ClusterException;
import dev.larder.cluster.ClusterTimeoutException;
import dev.larder.cluster.PartitionHandling;
import dev.larder.cluster.Replication;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiPredicate;
import org.jgroups.Address;

/**
 * Writes of single keys in the owner modes (replicated, distributed): routing a write to the key's
 * primary and executing it there. Thread-safe.
 *
 * <p>Implementation notes.
 *
 * <ul>
 *   <li>A write goes to the key's primary in the caller's view. The primary checks that it is in
 *       the same view (a caller with an older view is told to retry once it has the new one), then,
 *       holding the view lock's read side and the segment lock, applies the write locally and sends
 *       it to each backup ({@link Backups}). The view lock keeps one view from the check to the
 *       sends; the segment lock gives every key one order of writes. A SYNC write waits, outside
 *       the locks, for every backup's ack; a backup whose view is newer than the write's refuses
 *       it, and the caller retries in the new view, until the cluster timeout.
 *   <li>Under quorum partition handling a primary that is not available ({@link Quorum}) refuses
 *       (RETRY) under the view lock, so no write is applied in a view where this member is on a
 *       minority side; the caller checks its own availability before each retry.
 *   <li>A conditional write needs the current value: a primary whose segment is still incoming, and
 *       which has not written the key since, fetches it from another owner first ({@link
 *       Reads#readRemote}) and applies it unless the key became live meanwhile.
 *   <li>Threads: a SYNC write from another member may wait for backups, so it runs on a worker (it
 *       arrived out-of-band). An ASYNC write arrives as a regular message and runs on the delivery
 *       thread without waiting: executed if this member is the primary, else passed on to the
 *       primary of its view, at most {@value #MAX_HOPS} times; one that finds no primary is dropped
 *       and counted ({@link #asyncDropped}).
 *   <li>{@link #putAsync} splits a SYNC put on its primary in two: {@link #startAsPrimary} (the
 *       checks, the apply and the sends, on the caller's thread) and {@link #settled} (the same
 *       verdict {@link #awaitBackups} gives), run by whichever thread completes the backups' call
 *       ({@link Calls.Call#whenDone}: the delivery thread of the last ack, or the view listener for
 *       a backup that left) or by the timer at the deadline. Nothing there blocks; a verdict of
 *       RETRY hands the whole write to a worker, where {@link #write} retries it.
 *   <li>A durable member in DISTRIBUTED mode (one with a store journal) applies writes as primary
 *       only to segments it holds complete (OWNED): while it receives one, the caller retries until
 *       the transfer completes or the timeout. So every acknowledged write was applied by a member
 *       that recorded the view's epoch for its segment first ({@link Formation}), even in a view
 *       where every owner of the segment is new to it.
 *   <li>A durable member's pending segment (after a full restart, until every owner of it holds it
 *       complete: {@link Formation}) takes no write, in either mode: the caller retries until it is
 *       settled or the timeout.
 * </ul>
 */
final class Writes {

  private static final System.Logger LOG = System.getLogger(Writes.class.getName());
  private static final int MAX_HOPS = 3;

  private final Replication replication;
  private final Membership membership;
  private final SegmentOwnership segments;
  private final LocalStore store;
  private final Messenger messenger;
  private final Reads reads;
  private final Backups backups;
  private final RemovalReporting removals;
  private final BiPredicate<byte[], byte[]> sameValue;
  private final Executor workers;
  private final Quorum quorum;

  /** Whether a primary refuses writes to a segment it is still receiving (durable, distributed). */
  private final boolean completePrimaryOnly;

  /**
   * Whether {@link #putAsync} may answer once the acks arrive rather than wait for them: not on a
   * member that logs its store, whose apply waits for its log.
   */
  private final boolean defersAcks;

  private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

  private final AtomicLong asyncDropped = new AtomicLong();

  /** Writes this member took as caller and sent to another member, their key's primary. */
  private final LongAdder forwarded = new LongAdder();

  Writes(
      Replication replication,
      Membership membership,
      SegmentOwnership segments,
      LocalStore store,
      Messenger messenger,
      Reads reads,
      Backups backups,
      RemovalReporting removals,
      BiPredicate<byte[], byte[]> sameValue,
      Executor workers,
      Quorum quorum,
      boolean completePrimaryOnly,
      boolean defersAcks) {
    this.replication = replication;
    this.membership = membership;
    this.segments = segments;
    this.store = store;
    this.messenger = messenger;
    this.reads = reads;
    this.backups = backups;
    this.removals = removals;
    this.sameValue = sameValue;
    this.workers = workers;
    this.quorum = quorum;
    this.completePrimaryOnly = completePrimaryOnly;
    this.defersAcks = defersAcks;
  }

  /**
   * Executes a write on the key's owners.
   *
   * @param op the write
   * @param key the encoded key
   * @param value the encoded new value (null for removals)
   * @param expected the encoded expected value of REPLACE_IF and REMOVE_IF
   * @param mayReturnEarly true if the write returns nothing, so ASYNC may return at once
   * @return the previous value, or {@link Outcome#TRUE}/{@link Outcome#FALSE} for conditional
   *     writes; null when an async write returned early
   * @throws ClusterTimeoutException if the owners did not complete it within the timeout
   */
  byte[] write(Op op, byte[] key, byte[] value, byte[] expected, boolean mayReturnEarly) {
    boolean async = mayReturnEarly && replication == Replication.ASYNC;
    long deadline = messenger.deadline();
    int s = segments.segmentOf(key);
    while (true) {
      Topology t = membership.topology();
      Address primary = t.hash().primary(s);
      Frame request =
          new Frame(
              Frame.T_WRITE,
              0,
              t.viewId(),
              op.code(),
              (async ? Frame.F_ASYNC : 0) | (mayReturnEarly ? Frame.F_NO_RESULT : 0),
              key,
              value,
              expected,
              backups.writeInts(),
              List.of(),
              List.of());
      Frame r;
      if (primary.equals(membership.self())) {
        r = executeAsPrimary(request, !async, deadline);
      } else if (async) {
        forwarded.increment();
        messenger.send(primary, request, false);
        return null;
      } else {
        forwarded.increment();
        r = messenger.call(primary, request, deadline);
      }
      if (r != null && r.op() == Frame.S_OK) {
        return r.value();
      }
      if (r != null && r.op() == Frame.S_TIMEOUT) {
        throw new ClusterTimeoutException(op + " write", r.names());
      }
      if (r != null && r.op() == Frame.S_ERROR) {
        throw new ClusterException(new String(r.value(), StandardCharsets.UTF_8));
      }
      if (System.nanoTime() >= deadline) {
        throw new ClusterTimeoutException(op + " write", List.of(Messenger.name(primary)));
      }
      membership.awaitNewerView(t.viewId(), deadline);
      if (quorum.handling() == PartitionHandling.QUORUM) {
        // this member may have lost its majority while the write was refused
        quorum.checkWrite(deadline);
      }
    }
  }

  /** A WRITE from another member, on the delivery thread. */
  void onWrite(Address from, Frame f) {
    if ((f.flags() & Frame.F_ASYNC) != 0) {
      try {
        onAsyncWrite(f);
      } catch (RuntimeException e) {
        asyncDropped.incrementAndGet();
        LOG.log(System.Logger.Level.WARNING, "async write from " + from + " failed", e);
      }
    } else {
      workers.execute(() -> messenger.reply(from, f.reqId(), onSyncWrite(f)));
    }
  }

  /**
   * A WRITE before this member's first view: the sender is asked to retry, or, for an async write
   * (which wants no answer), it is dropped and counted.
   */
  void onWriteBeforeFirstView(Address from, Frame f) {
    if (f.reqId() != 0) {
      messenger.reply(from, f.reqId(), Frame.reply(f.reqId(), 0, Frame.S_RETRY, null));
    } else {
      asyncDropped.incrementAndGet();
    }
  }

  private Frame onSyncWrite(Frame f) {
    try {
      return executeAsPrimary(f, true, messenger.deadline());
    } catch (RuntimeException e) {
      return Frame.reply(
          f.reqId(),
          0,
          Frame.S_ERROR,
          String.valueOf(e.getMessage()).getBytes(StandardCharsets.UTF_8));
    }
  }

  /** An async write, on the delivery thread: execute if primary here, else pass it on. */
  private void onAsyncWrite(Frame f) {
    Topology t = membership.topology();
    int s = segments.segmentOf(f.key());
    Address primary = t.hash().primary(s);
    // ints[0] counts the hops; the dictionary sizes after it travel on unchanged
    int[] ints = f.ints().length > 0 ? f.ints().clone() : new int[1];
    ints[0]++;
    Frame here =
        new Frame(
            f.type(),
            0,
            t.viewId(),
            f.op(),
            f.flags(),
            f.key(),
            f.value(),
            f.expected(),
            ints,
            List.of(),
            List.of());
    if (primary.equals(membership.self())) {
      Frame r = executeAsPrimary(here, false, messenger.deadline());
      if (r.op() != Frame.S_OK) {
        asyncDropped.incrementAndGet();
      }
    } else if (here.ints()[0] <= MAX_HOPS) {
      messenger.send(primary, here, false);
    } else {
      asyncDropped.incrementAndGet();
    }
  }

  /**
   * Runs a write on this member as the key's primary: check the view, apply under the segment lock,
   * send to the backups, and (if asked) wait for their acks.
   */
  private Frame executeAsPrimary(Frame f, boolean waitForBackups, long deadline) {
    Object started = startAsPrimary(f, waitForBackups, deadline);
    if (started instanceof Frame answer) {
      return answer;
    }
    return awaitBackups(f, (Applied) started, deadline);
  }

  /**
   * A write this primary applied and sent to its backups, whose answer waits for their acks: the
   * view it was applied in, the backups' call, what it answers once acknowledged, and {@link
   * Quorum#mark()} when it was applied.
   */
  private static final class Applied {
    final Topology t;
    final Calls.Call call;
    final byte[] result;
    final long availability;

    Applied(Topology t, Calls.Call call, byte[] result, long availability) {
      this.t = t;
      this.call = call;
      this.result = result;
      this.availability = availability;
    }

    Topology t() {
      return t;
    }

    Calls.Call call() {
      return call;
    }

    byte[] result() {
      return result;
    }

    long availability() {
      return availability;
    }
  }

  /**
   * The part of {@link #executeAsPrimary} that does not wait for backups: returns the answer (a
   * Frame) if the write was refused or needs no ack, else the {@link Applied} write whose acks to
   * await. May fetch a conditional write's current value from another owner (waits then).
   */
  @SuppressWarnings("ReferenceEquality") // the topology captured earlier is still the installed one
  private Object startAsPrimary(Frame f, boolean waitForBackups, long deadline) {
    if (f.viewId() > membership.topology().viewId() && waitForBackups) {
      membership.awaitView(f.viewId(), deadline);
    }
    Topology t = membership.topology();
    int s = segments.segmentOf(f.key());
    if (f.viewId() != t.viewId() || !t.hash().primary(s).equals(membership.self())) {
      return Frame.reply(f.reqId(), t.viewId(), Frame.S_RETRY, null);
    }
    if (!backups.knowsDictionaryIdsOf(f)) {
      return Frame.reply(f.reqId(), t.viewId(), Frame.S_RETRY, null);
    }
    Op op = Op.of(f.op());
    if (op.readsCurrent() && refuses(s)) {
      // checked again under the locks below; here to spare the fetch of a write refused anyway
      // (a write that does not read the current value fetches nothing: no lock taken twice)
      return Frame.reply(f.reqId(), t.viewId(), Frame.S_RETRY, null);
    }
    ByteKey bk = new ByteKey(f.key());
    Frame fetched = null;
    if (op.readsCurrent() && !segments.authoritativeLocked(s, bk)) {
      fetched = reads.readRemote(t, s, f.key(), deadline);
      if (fetched == null) {
        return Frame.reply(f.reqId(), t.viewId(), Frame.S_RETRY, null);
      }
    }
    Calls.Call call = null;
    byte[] result;
    long availability;
    membership.viewReadLock().lock();
    segments.lock(s);
    try {
      if (membership.topology() != t || !quorum.available()) {
        // a primary on a minority side (quorum) applies nothing: the caller retries, and
        // refuses the write once it installs the view that cost it its majority
        return Frame.reply(f.reqId(), t.viewId(), Frame.S_RETRY, null);
      }
      if (refusesLocked(s)) {
        // every owner may still be receiving the segment, and a write acknowledged by owners
        // that hold it incomplete would be in no record a full restart starts it from; or the
        // segment is pending, and its newest record's copies must stay current until every
        // owner holds it (Formation): the caller retries until then
        return Frame.reply(f.reqId(), t.viewId(), Frame.S_RETRY, null);
      }
      availability = quorum.mark();
      if (fetched != null && !segments.isLive(s, bk)) {
        store.apply(s, bk, fetched.value());
      }
      boolean noResult = (f.flags() & Frame.F_NO_RESULT) != 0;
      // a put whose caller discards the previous value needs it only for a removal listener
      byte[] stored = op == Op.PUT && noResult && !removals.wanted() ? null : store.stored(f.key());
      byte[] current = store.live(stored);
      Outcome outcome = Outcome.of(op, current, f.value(), f.expected(), sameValue);
      result = noResult ? null : outcome.result();
      if (outcome.changes()) {
        byte[] next = store.storedForm(outcome.newValue());
        store.apply(s, bk, next);
        call = backups.replicate(t, s, f.key(), next, waitForBackups);
        removals.onWrite(f.key(), stored, current, outcome.newValue() == null);
      }
    } finally {
      segments.unlock(s);
      membership.viewReadLock().unlock();
    }
    if (call == null) {
      return Frame.reply(f.reqId(), t.viewId(), Frame.S_OK, result);
    }
    return new Applied(t, call, result, availability);
  }

  /** Waits for the backups' acks of an applied write, then answers it ({@link #settled}). */
  private Frame awaitBackups(Frame f, Applied a, long deadline) {
    try {
      if (!a.call().await(deadline)) {
        return timedOut(f, a);
      }
      return settled(f, a);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClusterException("interrupted while waiting for backups", e);
    } finally {
      messenger.close(a.call());
    }
  }

  private static Frame timedOut(Frame f, Applied a) {
    return Frame.reply(f.reqId(), a.t().viewId(), Frame.S_TIMEOUT, null)
        .withNames(Messenger.names(a.call().awaiting().toArray(Address[]::new)));
  }

  /**
   * The answer to a write whose backups all acked or left. A backup that left the view instead of
   * acking is no failure when it crashed (this member's copy survives), but it is when this member
   * was the one cut off: under quorum such a write is acknowledged only if this member kept its
   * majority meanwhile, else the caller is told to retry (and, on this side, then refuses).
   */
  private Frame settled(Frame f, Applied a) {
    if (!a.call().allRepliesOk()) {
      return Frame.reply(f.reqId(), a.t().viewId(), Frame.S_RETRY, null);
    }
    if (a.call().anyLeft() && !quorum.availableSince(a.availability())) {
      return Frame.reply(f.reqId(), a.t().viewId(), Frame.S_RETRY, null);
    }
    return Frame.reply(f.reqId(), a.t().viewId(), Frame.S_OK, a.result());
  }

  /**
   * A put whose caller does not wait for the backups' acks on its own thread: on the key's primary
   * under SYNC replication, the write is applied here and sent to the backups before this returns,
   * and the returned future completes once every backup acknowledged it (on the thread that
   * delivers the last ack, which must not be blocked by what the caller chains to it). Anywhere
   * else (another member is the primary, ASYNC replication, a member that logs its store, a view
   * change in the way) it runs as {@link #write} does, on this thread, and returns a completed
   * future. Either way the write has been applied on the primary when this returns, unless it
   * failed or must be retried, so later reads through this member see it.
   *
   * <p>A write its backups refused (a newer view) or that lost a backup on a minority side is
   * retried as {@link #write} retries, on a worker thread, and the future completes with that.
   *
   * @return completes normally once acknowledged, or exceptionally with {@link
   *     ClusterTimeoutException} or {@link ClusterException} as {@link #write} would throw
   */
  // orTimeout returns the future it times out and whenComplete's stage ends the chain: the outcome
  // reaches the caller through the future returned here
  @SuppressWarnings("FutureReturnValueIgnored")
  CompletableFuture<Void> putAsync(byte[] key, byte[] value) {
    if (replication != Replication.SYNC || !defersAcks) {
      write(Op.PUT, key, value, null, true);
      return DONE;
    }
    long deadline = messenger.deadline();
    Topology t = membership.topology();
    if (!t.hash().primary(segments.segmentOf(key)).equals(membership.self())) {
      write(Op.PUT, key, value, null, true);
      return DONE;
    }
    Frame request =
        new Frame(
            Frame.T_WRITE,
            0,
            t.viewId(),
            Op.PUT.code(),
            Frame.F_NO_RESULT,
            key,
            value,
            null,
            backups.writeInts(),
            List.of(),
            List.of());
    Object started = startAsPrimary(request, true, deadline);
    if (started instanceof Frame answer) {
      if (answer.op() == Frame.S_OK) {
        return DONE;
      }
      // refused before it was applied (a view change): the retrying write, here
      write(Op.PUT, key, value, null, true);
      return DONE;
    }
    Applied a = (Applied) started;
    CompletableFuture<Frame> acks = new CompletableFuture<>();
    a.call().whenDone(() -> acks.complete(settled(request, a)));
    acks.orTimeout(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    CompletableFuture<Void> done = new CompletableFuture<>();
    acks.whenComplete(
        (r, e) -> {
          messenger.close(a.call());
          Frame answer = e == null ? r : timedOut(request, a);
          switch (answer.op()) {
            case Frame.S_OK -> done.complete(null);
            case Frame.S_TIMEOUT ->
                done.completeExceptionally(
                    new ClusterTimeoutException(Op.PUT + " write", answer.names()));
            default -> workers.execute(() -> retry(key, value, done));
          }
        });
    return done;
  }

  /** The blocking write, for a put whose first attempt must be retried; on a worker. */
  private void retry(byte[] key, byte[] value, CompletableFuture<Void> done) {
    try {
      write(Op.PUT, key, value, null, true);
      done.complete(null);
    } catch (RuntimeException e) {
      done.completeExceptionally(e);
    }
  }

  private boolean refuses(int s) {
    segments.lock(s);
    try {
      return refusesLocked(s);
    } finally {
      segments.unlock(s);
    }
  }

  /**
   * Returns the writes this member sent to another member as the key's primary (each attempt; a
   * write retried in a new view counts again): what routing the clients to the primary saves.
   */
  long forwarded() {
    return forwarded.sum();
  }

  /**
   * Whether this primary refuses writes to the segment: a durable distributed primary still
   * receiving it, a durable member's pending segment, or a segment waiting for a holder that may be
   * cut off (quorum; {@link SegmentOwnership#awaitHolders}). Caller holds the segment lock.
   */
  private boolean refusesLocked(int s) {
    return (completePrimaryOnly && segments.state(s) == SegmentOwnership.State.INCOMING)
        || segments.pending(s)
        || segments.awaitingHolder(s);
  }

  /** Returns async writes dropped because no primary could take them during a view change. */
  long asyncDropped() {
    return asyncDropped.get();
  }
}
