package dev.larder.cluster.internal.tx;

import dev.larder.cluster.KeyPartitioner;
import dev.larder.tx.internal.KeyRef;
import dev.larder.tx.internal.StoredValue;
import dev.larder.wal.WalConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BiConsumer;

/**
 * One member's side of the clustered transaction protocol: the participant (PREPARE, DECIDE, APPLY,
 * ABORT), the acceptor of reconfigurations (QUERY, ACCEPT, INSTALL), adoption of another member's
 * state, checkpoints and recovery (docs/design/cluster-transactions.md).
 *
 * <h2>Implementation notes</h2>
 *
 * <p><b>State</b>, guarded by this object's monitor: the promised ballot, the accepted (not yet
 * installed) proposal, the installed epoch, whether this member is READY (may vote on and decide
 * transactions of its epoch: it installed the epoch, promised nothing newer, and holds the state),
 * whether it has installed an epoch since it started (before that it serves nothing), and the
 * pending transactions (prepared here, not applied or aborted). Key states ({@link KeyState}) have
 * their own monitors, always taken inside this one, never the other way.
 *
 * <p><b>Still</b>: a read-write lock whose read side every participant step holds and whose write
 * side installing an epoch, adopting a state and writing a checkpoint hold, so that those see no
 * step half done. Waiting for the log happens after the monitor is released (so that the log's
 * group commit can gather many), but inside the read side of {@code still}, so that a checkpoint
 * never runs between a record's append and its acknowledgement.
 *
 * <p><b>Why a reconfiguration's report is exact</b>: QUERY raises the promise under the monitor,
 * and DECIDE checks the promise under the monitor before it records a decision. A DECIDE that
 * passed the check was recorded before the report was built (so it is reported); one that did not
 * is refused. So no DECIDE of an older ballot is accepted after a member reported.
 *
 * <p>Thread-safe.
 */
final class MemberState implements TxLog.Replay {

  private static final System.Logger LOG = System.getLogger(MemberState.class.getName());
  private static final int ABORT_TOMBSTONES = 10_000;

  /** How long a PREPARE waits for locks held by decided transactions before it refuses. */
  private static final long DECIDED_LOCK_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  /** Versions kept below the clock for readers on other members: one second (DISTRIBUTED). */
  private static final long REMOTE_READ_RETAIN_TICKS = 1000L << 20;

  final VersionStore store;
  private final int segments;
  private final int owners;
  private final KeyPartitioner partitioner;
  private final ReentrantReadWriteLock still = new ReentrantReadWriteLock();

  /** Set once by {@link #open}, before the member is published. */
  private TxLog log;

  private long memberId;
  final long incarnation = ThreadLocalRandom.current().nextLong();
  private final AtomicLong txCounter = new AtomicLong();

  private Ballot promised = Ballot.ZERO;
  private TxFrame.Proposal accepted;
  private Epoch epoch = Epoch.NONE;

  /**
   * The decisions of the proposal that established the installed epoch, under its ballot, kept
   * until the next epoch is installed (and in the log) and reported to every reconfiguration: a
   * member cut off from that proposal may still report a transaction it decided (or that was
   * chosen) under an older ballot, and what the proposal chose for it must win ({@link
   * Reconfiguration#decisions}).
   */
  private TxFrame.Remembered remembered = TxFrame.Remembered.NONE;

  /**
   * Per segment, the epoch at which this member holds the segment's state whole (0: it does not):
   * the installed epoch for a segment it owns and held or adopted; an older one for a segment it no
   * longer owns but still keeps for a member that adopts it; 0 for a segment it still has to adopt
   * ({@link Holdings}).
   */
  private long[] held;

  private boolean ready;
  private boolean bootstrapped;

  /** This member's latest JGroups view (empty before the first). */
  private List<org.jgroups.Address> view = List.of();

  /** When this member, stale in the epoch it installed, began waiting for the source's state. */
  private long adoptingSince = -1;

  private final Map<TxId, PendingTxn> pending = new HashMap<>();

  /** Aborts that arrived before (or instead of) their PREPARE: a late PREPARE is refused. */
  private final Map<TxId, Boolean> abortedEarly =
      new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<TxId, Boolean> eldest) {
          return size() > ABORT_TOMBSTONES;
        }
      };

  /**
   * Transactions of the installed epoch applied here, or decided here without being pending (a
   * decider that takes no part), with their commit timestamps: reported to a reconfiguration as
   * committed under the epoch's ballot, since the member that makes the reconfiguration's quorum
   * intersect a transaction's DECIDE majority may have applied (and so no longer hold) it. Emptied
   * when the next epoch is installed (all of the epoch's transactions are then decided on every
   * member that installs it); the coordinator starts a new epoch when it grows large.
   */
  private final Map<TxId, Long> appliedInEpoch = new LinkedHashMap<>();

  /** An originator's outcome: the transaction aborted. */
  static final long OUTCOME_ABORTED = -1;

  /** An originator's outcome: an earlier reconfiguration decided it and none remembers how. */
  static final long OUTCOME_UNKNOWN = -2;

  /**
   * Outcomes an originator on this member waits for: the commit timestamp, {@link #OUTCOME_ABORTED}
   * or {@link #OUTCOME_UNKNOWN}.
   */
  private final Map<TxId, CompletableFuture<Long>> outcomes = new ConcurrentHashMap<>();

  /** A transaction prepared here. Guarded by the member's monitor. */
  private static final class PendingTxn {
    final TxId txid;
    final long proposal;
    final List<TxFrame.Write> writes;
    final List<KeyRef> locked = new ArrayList<>();
    final long createdNanos = System.nanoTime();
    Ballot decidedBallot;
    long decidedTs;

    PendingTxn(TxId txid, long proposal, List<TxFrame.Write> writes) {
      this.txid = txid;
      this.proposal = proposal;
      this.writes = List.copyOf(writes);
    }
  }

  private MemberState(int segments, int owners, KeyPartitioner partitioner) {
    this.segments = segments;
    this.owners = owners;
    this.partitioner = partitioner;
    this.held = new long[segments];
    this.store = new VersionStore(owners == Epoch.ALL ? 0 : REMOTE_READ_RETAIN_TICKS);
  }

  private Epoch newEpoch(long number, Ballot ballot, List<TxFrame.Member> members) {
    return new Epoch(number, ballot, members, segments, owners, partitioner);
  }

  /**
   * Recovers a member from its log, or makes a new one.
   *
   * @param wal the log's configuration, or null for a member without persistence (which gets a new
   *     id at every start)
   * @param segments segments for owners and primaries (every member must use the same)
   * @param owners owners of each segment ({@link Epoch#ALL}: every member)
   */
  static MemberState open(WalConfig wal, int segments, int owners) {
    return open(wal, segments, owners, null);
  }

  /**
   * Recovers a member from its log, or makes a new one, placing keys in segments by {@code
   * partitioner}.
   *
   * @param partitioner the cluster's partitioner (every member must use the same), or null for the
   *     hash of the key's bytes
   */
  static MemberState open(WalConfig wal, int segments, int owners, KeyPartitioner partitioner) {
    MemberState m = new MemberState(segments, owners, partitioner);
    if (wal == null) {
      m.memberId = ThreadLocalRandom.current().nextLong() | 1;
      return m;
    }
    m.log = TxLog.open(wal, m);
    if (m.memberId == 0) {
      long id = ThreadLocalRandom.current().nextLong() | 1;
      m.memberId = id;
      m.log.appendAndSync(TxLog.MEMBER, out -> out.writeLong(id));
    }
    return m;
  }

  long memberId() {
    return memberId;
  }

  TxLog log() {
    return log;
  }

  TxId nextTxId() {
    return new TxId(incarnation, txCounter.incrementAndGet());
  }

  synchronized Ballot promised() {
    return promised;
  }

  synchronized Epoch epoch() {
    return epoch;
  }

  synchronized boolean isReady() {
    return ready;
  }

  /**
   * Returns true if this member grants a read lease in epoch {@code number} of ballot {@code b}: it
   * is READY in that very epoch (so it has promised nothing newer). Once it promises a newer ballot
   * it grants none in that epoch again, which is what a reconfiguration's wait for the leases of
   * its base epoch rests on (docs/design/cluster-transactions.md, "The read lease").
   */
  synchronized boolean grantsLease(long number, Ballot b) {
    return ready && epoch.number == number && epoch.ballot.equals(b) && promised.equals(b);
  }

  /** Returns the installed epoch if this member is READY in it, else null. */
  synchronized Epoch readyEpoch() {
    return ready ? epoch : null;
  }

  /** Returns the installed epoch's number if this member is READY in it, else -1. */
  synchronized long readyEpochNumber() {
    return ready ? epoch.number : -1;
  }

  /** A snapshot, and the epoch it was taken in (-1 for {@code readyEpoch}: not READY). */
  record SnapshotStart(long snapshot, long readyEpoch, long installedEpoch) {}

  /**
   * Takes a snapshot under the monitor, as PREPARE takes its proposal and records its pending
   * writes: a transaction proposed here at or below the snapshot is then pending on its keys when
   * the snapshot's reads look (docs/design/cluster-transactions.md, "Versions and snapshots").
   */
  synchronized SnapshotStart beginSnapshot() {
    long ready = readyEpochNumber();
    return new SnapshotStart(store.begin(), ready, epoch.number);
  }

  /**
   * Returns true if reads of {@code key} in epoch {@code number} may be served here: this member
   * installed that epoch, owns the key's segment in it and holds the segment's state at it.
   */
  synchronized boolean servesReads(KeyRef key, long number) {
    if (epoch.number != number || !epoch.isOwner(memberId, key)) {
      return false;
    }
    return held[epoch.segmentOf(key)] == number;
  }

  /**
   * Hands {@code action} the newest committed value of each key of cache {@code cache} this member
   * owns in its installed epoch (or, with {@code primaryOnly}, is the primary of), as the stored
   * bytes; removed keys are skipped. Weakly consistent: a key committed or removed meanwhile may be
   * seen either way; no snapshot is taken and nothing waits for pending transactions.
   *
   * @param action gets the encoded key (not to be modified) and the stored bytes
   */
  void forEachNewest(int cache, boolean primaryOnly, BiConsumer<byte[], byte[]> action) {
    Epoch e;
    long id;
    synchronized (this) {
      e = epoch;
      id = memberId;
    }
    store.forEach(
        (k, s) -> {
          if (k.cache() != cache || !(primaryOnly ? e.isPrimary(id, k) : e.isOwner(id, k))) {
            return;
          }
          byte[] newest = s.newest();
          if (newest != null) {
            action.accept(k.key(), newest);
          }
        });
  }

  /**
   * Returns the timestamp of a commit of {@code key} above {@code snapshot} that this member knows
   * of, or 0 if none: its newest applied version's, or the decided timestamp of a transaction
   * pending here on it (decided, its APPLY not yet here). A remote reader whose snapshot is below
   * such a commit may have had it acknowledged before it began (see {@link RemoteReads}).
   */
  synchronized long commitAbove(KeyRef key, long snapshot) {
    KeyState s = store.peek(key);
    long newest = s == null ? 0 : s.newestTs();
    long found = newest > snapshot ? newest : 0;
    for (PendingTxn t : pending.values()) {
      if (t.decidedTs > snapshot && t.decidedTs > found && writes(t, key)) {
        found = t.decidedTs;
      }
    }
    return found;
  }

  private static boolean writes(PendingTxn t, KeyRef key) {
    for (TxFrame.Write w : t.writes) {
      if (w.key().equals(key)) {
        return true;
      }
    }
    return false;
  }

  /** Returns this member's clock (the highest timestamp it handed out or observed). */
  long clock() {
    return store.clock.current();
  }

  /**
   * Hands {@code action} the stored bytes of each key of cache {@code cache} visible at {@code
   * snapshot} (removed and absent keys skipped), reading each key as a transaction's read does
   * (waiting for transactions pending at or below the snapshot). For a member holding every key
   * (REPLICATED) and every segment at its epoch.
   *
   * @throws IllegalStateException if a segment's owners are not every member (DISTRIBUTED)
   * @throws SnapshotLostException if this member does not hold every segment now (it adopts), or
   *     the snapshot's versions are gone
   * @throws PendingTimeoutException if a pending transaction did not end by the deadline
   */
  void forEachAt(int cache, long snapshot, long deadlineNanos, BiConsumer<byte[], byte[]> action)
      throws InterruptedException {
    if (owners != Epoch.ALL) {
      throw new IllegalStateException(
          "a walk at a snapshot needs every key on this member (REPLICATED)");
    }
    synchronized (this) {
      for (long h : held) {
        if (h != epoch.number) {
          throw new SnapshotLostException(snapshot);
        }
      }
    }
    List<KeyRef> keys = new ArrayList<>();
    store.forEach(
        (k, s) -> {
          if (k.cache() == cache) {
            keys.add(k);
          }
        });
    for (KeyRef k : keys) {
      byte[] stored = store.read(k, snapshot, deadlineNanos);
      if (stored != null) {
        action.accept(k.key(), stored);
      }
    }
  }

  /**
   * Returns true if some key of the store may have been created, changed or removed by a commit
   * after {@code snapshot} and at or before {@code commitTs}, other than by {@code self}: a version
   * in that range, or another transaction pending here. First observes {@code commitTs}, so that
   * every transaction prepared here afterwards commits above it. For an originator holding every
   * key (REPLICATED, where every commit passes through it), between its votes and its DECIDE: what
   * makes a transaction that walked every key at its snapshot serializable (see {@code
   * ClusterTxEngine#forEachAt}).
   */
  synchronized boolean changedSince(long snapshot, long commitTs, TxId self) {
    store.clock.observe(commitTs);
    boolean[] changed = {false};
    store.forEach(
        (k, s) -> {
          if (!changed[0] && s.changedBetween(snapshot, commitTs, self)) {
            changed[0] = true;
          }
        });
    return changed[0];
  }

  /** Returns the installed epoch's members' addresses, in the epoch's order. */
  synchronized List<org.jgroups.Address> epochAddresses() {
    return epoch.addresses();
  }

  /** Returns the installed epoch's owners of {@code segment}, primary first, by address. */
  synchronized List<org.jgroups.Address> ownersOf(int segment) {
    List<org.jgroups.Address> out = new ArrayList<>();
    if (segment < 0 || segment >= epoch.segments()) {
      return out;
    }
    for (long id : epoch.ownersOf(segment)) {
      org.jgroups.Address a = epoch.addressOf(id);
      if (a != null) {
        out.add(a);
      }
    }
    return out;
  }

  /**
   * A READ from another member at {@code snapshot}: raise the clock to it under the monitor, so
   * that a transaction not yet prepared here proposes above it, and one prepared at or below it is
   * already pending on its keys.
   */
  synchronized void observeRead(long snapshot) {
    store.clock.observe(snapshot);
  }

  synchronized int pendingCount() {
    return pending.size();
  }

  /** Returns how long this member has been waiting for a source's state, -1 if it is not. */
  synchronized long adoptingNanos() {
    return adoptingSince < 0 ? -1 : System.nanoTime() - adoptingSince;
  }

  /** Returns transactions of the installed epoch applied here (and still remembered). */
  synchronized int appliedInEpochCount() {
    return appliedInEpoch.size();
  }

  /** Returns pending transactions whose DECIDE this member logged. */
  synchronized int decidedCount() {
    return (int) pending.values().stream().filter(t -> t.decidedBallot != null).count();
  }

  /** Returns how long the oldest pending transaction has been pending here, 0 if none. */
  synchronized long oldestPendingNanos() {
    long now = System.nanoTime();
    long oldest = 0;
    for (PendingTxn t : pending.values()) {
      oldest = Math.max(oldest, now - t.createdNanos);
    }
    return oldest;
  }

  /**
   * Returns the epoch once this member is READY, waiting until the deadline; null if not, and null
   * at once while it is not READY and its view holds fewer than {@code majority} members (no epoch
   * can be established from such a view: a minority side of a partition).
   */
  synchronized Epoch awaitReady(long deadlineNanos, int majority) throws InterruptedException {
    while (!ready) {
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0 || inMinorityView(majority)) {
        return null;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return epoch;
  }

  /**
   * Returns true if this member has had a view and its latest holds fewer than {@code majority}
   * members.
   */
  synchronized boolean inMinorityView(int majority) {
    return !view.isEmpty() && view.size() < majority;
  }

  /** Returns the members of this member's latest JGroups view (empty before the first). */
  synchronized List<org.jgroups.Address> view() {
    return view;
  }

  /** Returns true once this member installed an epoch in this run (waiting until the deadline). */
  synchronized boolean awaitBootstrapped(long deadlineNanos) throws InterruptedException {
    while (!bootstrapped) {
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  /**
   * A new view: if it lacks a member of the epoch, no transaction of the epoch can complete (each
   * needs every member's vote), so this member stops taking new ones until the next epoch.
   */
  synchronized void viewChanged(java.util.Collection<org.jgroups.Address> view) {
    this.view = List.copyOf(view);
    if (ready && !view.containsAll(epoch.addresses())) {
      ready = false;
    }
    notifyAll(); // commits waiting to be READY look again at the view's size
  }

  // ------------------------------------------------------------------ participant

  /** PREPARE: validate and lock the keys this member is primary of, record, log, vote. */
  TxFrame.Vote prepare(TxFrame.Prepare p) {
    long ticket = 0;
    long proposal;
    still.readLock().lock();
    try {
      synchronized (this) {
        if (!ready || p.epoch() != epoch.number || !p.ballot().equals(epoch.ballot)) {
          return new TxFrame.Vote(0, TxFrame.V_RETRY, 0, List.of());
        }
        PendingTxn existing = pending.get(p.txid());
        if (existing != null) {
          return new TxFrame.Vote(0, TxFrame.V_YES, existing.proposal, List.of());
        }
        if (abortedEarly.remove(p.txid()) != null) {
          return new TxFrame.Vote(0, TxFrame.V_NO, 0, List.of());
        }
        List<KeyRef> locked = new ArrayList<>();
        List<TxFrame.Conflict> conflicts = validateAndLock(p, locked);
        long waitUntil = System.nanoTime() + DECIDED_LOCK_WAIT_NANOS;
        while (!conflicts.isEmpty()
            && lockedByDecidedOnly(conflicts, p.txid())
            && System.nanoTime() < waitUntil) {
          // a decided transaction's APPLY is on its way: wait a little rather than refuse
          unlockAll(locked, p.txid());
          locked.clear();
          try {
            TimeUnit.NANOSECONDS.timedWait(this, waitUntil - System.nanoTime());
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            break;
          }
          if (!ready || p.epoch() != epoch.number) {
            return new TxFrame.Vote(0, TxFrame.V_RETRY, 0, List.of());
          }
          conflicts = validateAndLock(p, locked);
        }
        if (!conflicts.isEmpty()) {
          unlockAll(locked, p.txid());
          return new TxFrame.Vote(0, TxFrame.V_NO, 0, conflicts);
        }
        proposal = store.clock.tick();
        // only the owners of a key hold its pending write (the originator takes part holding
        // none of them when it owns none)
        List<TxFrame.Write> owned = new ArrayList<>();
        for (TxFrame.Write w : p.writes()) {
          if (epoch.isOwner(memberId, w.key())) {
            owned.add(w);
          }
        }
        PendingTxn t = new PendingTxn(p.txid(), proposal, owned);
        t.locked.addAll(locked);
        for (TxFrame.Write w : owned) {
          store.state(w.key()).addPending(p.txid(), proposal, w.value());
        }
        pending.put(p.txid(), t);
        if (log != null) {
          ticket =
              log.append(
                  TxLog.PREPARED, out -> TxLog.writePrepared(out, p.txid(), proposal, owned));
        }
      }
      if (log != null) {
        log.sync(ticket);
      }
    } finally {
      still.readLock().unlock();
    }
    return new TxFrame.Vote(0, TxFrame.V_YES, proposal, List.of());
  }

  private void unlockAll(List<KeyRef> locked, TxId txid) {
    for (KeyRef k : locked) {
      store.state(k).unlock(txid);
    }
  }

  /**
   * Returns true if every conflict is a lock held by a transaction whose DECIDE was logged here.
   */
  private boolean lockedByDecidedOnly(List<TxFrame.Conflict> conflicts, TxId self) {
    for (TxFrame.Conflict c : conflicts) {
      if (c.committedAt() != 0) {
        return false;
      }
      TxId holder = store.state(c.key()).exclusiveHolder();
      PendingTxn t = holder == null || holder.equals(self) ? null : pending.get(holder);
      if (t == null || t.decidedBallot == null) {
        return false;
      }
    }
    return true;
  }

  /**
   * For each key this member is primary of: serializable checks and locks the read and written
   * keys, snapshot isolation the written ones, a blind write only locks. Under the monitor.
   */
  private List<TxFrame.Conflict> validateAndLock(TxFrame.Prepare p, List<KeyRef> locked) {
    boolean blind = (p.flags() & TxFrame.F_BLIND) != 0;
    List<TxFrame.Conflict> conflicts = new ArrayList<>();
    Set<KeyRef> written = new HashSet<>();
    for (TxFrame.Write w : p.writes()) {
      written.add(w.key());
      check(p, w.key(), true, blind, locked, conflicts);
    }
    for (KeyRef k : p.reads()) {
      if (!written.contains(k)) {
        check(p, k, false, false, locked, conflicts);
      }
    }
    return conflicts;
  }

  private void check(
      TxFrame.Prepare p,
      KeyRef k,
      boolean write,
      boolean blind,
      List<KeyRef> locked,
      List<TxFrame.Conflict> conflicts) {
    if (!epoch.isPrimary(memberId, k)) {
      return;
    }
    KeyState s = store.state(k);
    long newest = s.newestTs();
    if (!blind && newest > p.snapshot()) {
      conflicts.add(new TxFrame.Conflict(k, newest));
    } else if (s.lock(p.txid(), write)) {
      locked.add(k);
    } else {
      conflicts.add(new TxFrame.Conflict(k, 0));
    }
  }

  /**
   * DECIDE (phase 2 of the epoch's ballot): record and log the commit decision, or refuse. Either
   * way the clock observes the commit timestamp first, so that every snapshot this member hands out
   * after it answered is above the commit: the originator acknowledges a commit only once every
   * participant answered its DECIDE (or left), so a read through any owner of its keys after the
   * acknowledgement sees it (docs/design/cluster-transactions.md, "Reading one's own writes").
   */
  TxFrame.Ack decide(TxFrame.Decide d) {
    long ticket = 0;
    still.readLock().lock();
    try {
      synchronized (this) {
        store.clock.observe(d.commitTs());
        if (!d.ballot().equals(promised) || !d.ballot().equals(epoch.ballot)) {
          return new TxFrame.Ack(0, TxFrame.A_REFUSED, promised);
        }
        PendingTxn t = pending.get(d.txid());
        if (t != null) {
          t.decidedBallot = d.ballot();
          t.decidedTs = d.commitTs();
        } else {
          // Not pending here: this member decides without taking part (it holds none of the
          // transaction's keys), or an APPLY overtook this DECIDE. Either way it reports the
          // decision to the next reconfiguration with the epoch's applied transactions.
          appliedInEpoch.put(d.txid(), d.commitTs());
        }
        if (log != null) {
          ticket =
              log.append(
                  TxLog.DECIDED,
                  out -> {
                    TxFrame.writeTxId(out, d.txid());
                    TxFrame.writeBallot(out, d.ballot());
                    out.writeLong(d.commitTs());
                  });
        }
      }
      if (log != null) {
        log.sync(ticket);
      }
    } finally {
      still.readLock().unlock();
    }
    return new TxFrame.Ack(0, TxFrame.A_OK, d.ballot());
  }

  /** APPLY: the decision was chosen; make the writes visible. */
  void apply(TxId txid, long commitTs) {
    still.readLock().lock();
    try {
      synchronized (this) {
        PendingTxn t = pending.remove(txid);
        if (t != null) {
          applyLocked(t, commitTs, k -> true);
        }
      }
    } finally {
      still.readLock().unlock();
    }
  }

  /** ABORT from the originator (it never sent DECIDE). */
  void abort(TxId txid) {
    still.readLock().lock();
    try {
      synchronized (this) {
        PendingTxn t = pending.remove(txid);
        if (t == null) {
          abortedEarly.put(txid, Boolean.TRUE);
        } else {
          abortLocked(t);
        }
      }
    } finally {
      still.readLock().unlock();
    }
  }

  /** Applies the writes {@code keep} accepts, drops the others (segments this member adopts). */
  private void applyLocked(PendingTxn t, long commitTs, java.util.function.Predicate<KeyRef> keep) {
    appliedInEpoch.put(t.txid, commitTs);
    store.clock.observe(commitTs);
    long horizon = store.horizon();
    for (TxFrame.Write w : t.writes) {
      if (keep.test(w.key())) {
        store.state(w.key()).apply(t.txid, commitTs, horizon);
      } else {
        store.state(w.key()).abort(t.txid);
      }
    }
    for (KeyRef k : t.locked) {
      store.state(k).unlock(t.txid);
    }
    if (log != null) {
      log.append(
          TxLog.APPLIED,
          out -> {
            TxFrame.writeTxId(out, t.txid);
            out.writeLong(commitTs);
          });
    }
    complete(t.txid, commitTs);
    notifyAll(); // PREPAREs waiting for this transaction's locks
  }

  private void abortLocked(PendingTxn t) {
    for (TxFrame.Write w : t.writes) {
      store.state(w.key()).abort(t.txid);
    }
    for (KeyRef k : t.locked) {
      store.state(k).unlock(t.txid);
    }
    if (log != null) {
      log.append(TxLog.ABORTED, out -> TxFrame.writeTxId(out, t.txid));
    }
    notifyAll(); // PREPAREs waiting for this transaction's locks
  }

  /**
   * Before PREPARE: the originator waits on this if the decision is not chosen in time. An epoch
   * installed from then on completes it (see {@link #install}); the originator forgets it when its
   * attempt ends.
   */
  CompletableFuture<Long> expectOutcome(TxId txid) {
    return outcomes.computeIfAbsent(txid, k -> new CompletableFuture<>());
  }

  void forgetOutcome(TxId txid) {
    outcomes.remove(txid);
  }

  private void complete(TxId txid, long result) {
    CompletableFuture<Long> f = outcomes.remove(txid);
    if (f != null) {
      f.complete(result);
    }
  }

  // ------------------------------------------------------------------ acceptor

  /** QUERY (phase 1): promise, stop deciding, report the pending transactions. */
  TxFrame.Report query(TxFrame.Query q) {
    long ticket = 0;
    TxFrame.Report report;
    synchronized (this) {
      if (q.ballot().compareTo(promised) < 0) {
        return new TxFrame.Report(
            0,
            TxFrame.A_REFUSED,
            promised,
            memberId,
            0,
            0,
            0,
            new long[0],
            List.of(),
            TxFrame.Remembered.NONE);
      }
      boolean raised = q.ballot().isAbove(promised);
      promised = q.ballot();
      ready = false;
      List<TxFrame.PendingReport> reports = new ArrayList<>();
      for (PendingTxn t : pending.values()) {
        reports.add(reportOf(t));
      }
      long installed = epoch.number;
      appliedInEpoch.forEach(
          (id, ts) ->
              reports.add(
                  new TxFrame.PendingReport(id, TxFrame.D_COMMIT, epoch.ballot, ts, installed)));
      if (accepted != null) {
        // an acceptor reports every value it accepted, not only those of pending transactions
        for (TxFrame.Decision d : accepted.decisions()) {
          if (!pending.containsKey(d.txid())) {
            reports.add(
                new TxFrame.PendingReport(
                    d.txid(), d.kind(), accepted.ballot(), d.commitTs(), d.epoch()));
          }
        }
      }
      report =
          new TxFrame.Report(
              0,
              TxFrame.A_OK,
              promised,
              memberId,
              accepted == null ? epoch.number : Math.max(epoch.number, accepted.epoch()),
              epoch.number,
              store.clock.current(),
              reportedHeld(),
              reports,
              remembered);
      if (log != null && raised) {
        Ballot b = promised;
        ticket = log.append(TxLog.PROMISE, out -> TxFrame.writeBallot(out, b));
      }
    }
    if (log != null && ticket != 0) {
      log.sync(ticket);
    }
    return report;
  }

  /**
   * Returns the held epoch of each segment; a segment this member keeps under the proposal it
   * accepted counts as held at that proposal's epoch (it may have been installed elsewhere, and its
   * decisions, which this member reports, bring the segment there).
   */
  private long[] reportedHeld() {
    long[] h = held.clone();
    if (accepted != null) {
      Epoch next = newEpoch(accepted.epoch(), accepted.ballot(), accepted.members());
      Holdings holdings = new Holdings(accepted.members(), accepted.held());
      for (int s = 0; s < segments; s++) {
        if (holdings.keeps(next, memberId, s)) {
          h[s] = Math.max(h[s], accepted.epoch());
        }
      }
    }
    return h;
  }

  /**
   * The highest-ballot decision this member accepted for {@code t}, or none; a transaction pending
   * here is of the installed epoch (installing an epoch ends every pending one).
   */
  private TxFrame.PendingReport reportOf(PendingTxn t) {
    long e = epoch.number;
    TxFrame.PendingReport best =
        new TxFrame.PendingReport(t.txid, TxFrame.D_NONE, Ballot.ZERO, 0, e);
    if (t.decidedBallot != null) {
      best = new TxFrame.PendingReport(t.txid, TxFrame.D_COMMIT, t.decidedBallot, t.decidedTs, e);
    }
    if (accepted != null && accepted.ballot().isAbove(best.ballot())) {
      for (TxFrame.Decision d : accepted.decisions()) {
        if (d.txid().equals(t.txid)) {
          best = new TxFrame.PendingReport(t.txid, d.kind(), accepted.ballot(), d.commitTs(), e);
        }
      }
    }
    return best;
  }

  /**
   * ACCEPT (phase 2 of a reconfiguration): log the proposal unless a higher ballot was promised.
   */
  TxFrame.Ack accept(TxFrame.Proposal proposal) {
    long ticket = 0;
    synchronized (this) {
      if (proposal.ballot().equals(epoch.ballot)) {
        // an ACCEPT overtaken by its INSTALL (both out of band): already installed
        return new TxFrame.Ack(0, TxFrame.A_OK, proposal.ballot());
      }
      if (proposal.ballot().compareTo(promised) < 0) {
        return new TxFrame.Ack(0, TxFrame.A_REFUSED, promised);
      }
      promised = proposal.ballot();
      accepted = proposal;
      ready = false;
      if (log != null) {
        ticket = log.append(TxLog.ACCEPTED, out -> TxFrame.writeProposal(out, proposal));
      }
    }
    if (log != null) {
      log.sync(ticket);
    }
    return new TxFrame.Ack(0, TxFrame.A_OK, proposal.ballot());
  }

  /**
   * INSTALL: the proposal was chosen (a majority accepted it), so this member installs it even if
   * its own ACCEPT has not arrived (the two travel out of band, in either order). Decisions are
   * applied to the transactions pending here, for the segments this member holds newest ({@link
   * Holdings}); their writes elsewhere, and every other pending transaction, are dropped. Then each
   * segment is kept, left to adopt, or dropped, and the member is READY unless it must adopt or has
   * promised a newer ballot since.
   *
   * @return the segments this member must now adopt from their holders, or null if none
   */
  int[] install(TxFrame.Proposal p) {
    still.writeLock().lock();
    try {
      synchronized (this) {
        if (p.epoch() <= epoch.number) {
          return null; // installed already, or older than what is
        }
        Epoch next = newEpoch(p.epoch(), p.ballot(), p.members());
        Holdings holdings = new Holdings(p.members(), p.held());
        store.clock.observe(p.clock());
        Map<TxId, TxFrame.Decision> decisions = new HashMap<>();
        for (TxFrame.Decision d : p.decisions()) {
          decisions.put(d.txid(), d);
        }
        for (PendingTxn t : List.copyOf(pending.values())) {
          pending.remove(t.txid);
          TxFrame.Decision d = decisions.get(t.txid);
          if (d != null && d.commit()) {
            applyLocked(t, d.commitTs(), k -> holdings.isHolder(memberId, next.segmentOf(k)));
          } else {
            // an abort, or in doubt: then this member is stale (an earlier epoch it did not
            // install decided the transaction), holds none of its segments newest, and its
            // pending writes are dropped as a stale member's are
            abortLocked(t);
            if (d == null) {
              complete(t.txid, OUTCOME_ABORTED);
            }
          }
        }
        // an originator here learns its transaction's chosen outcome, even on a stale member
        for (TxFrame.Decision d : p.decisions()) {
          complete(
              d.txid(),
              switch (d.kind()) {
                case TxFrame.D_COMMIT -> d.commitTs();
                case TxFrame.D_ABORT -> OUTCOME_ABORTED;
                default -> OUTCOME_UNKNOWN;
              });
        }
        abortedEarly.clear();
        appliedInEpoch.clear();
        epoch = next;
        remembered = new TxFrame.Remembered(p.base(), p.ballot(), p.decisions());
        if (accepted != null && accepted.ballot().compareTo(p.ballot()) <= 0) {
          accepted = null;
        }
        int[] adopt = rearrange(next, holdings);
        if (log != null) {
          long[] h = held.clone();
          TxFrame.Remembered r = remembered;
          log.appendAndSync(
              TxLog.EPOCH, out -> TxLog.writeEpoch(out, p.epoch(), p.ballot(), p.members(), h, r));
        }
        if (adopt.length > 0) {
          ready = false;
          adoptingSince = System.nanoTime();
          return adopt;
        }
        adoptingSince = -1;
        bootstrapped = true;
        ready = promised.equals(p.ballot());
        notifyAll();
        return null;
      }
    } finally {
      still.writeLock().unlock();
    }
  }

  /**
   * For each segment: an owner that holds it keeps it (held at the new epoch), one that does not is
   * to adopt it (held 0); a member that does not own it drops its copy if the copy is outdated or
   * every owner keeps the segment, else keeps it, held as before, for the adopters.
   */
  private int[] rearrange(Epoch next, Holdings holdings) {
    List<Integer> adopt = new ArrayList<>();
    Set<Integer> drop = new HashSet<>();
    for (int s = 0; s < segments; s++) {
      boolean holder = holdings.isHolder(memberId, s);
      if (next.ownsSegment(memberId, s)) {
        if (holder) {
          held[s] = next.number;
        } else {
          adopt.add(s);
          held[s] = 0;
        }
      } else if (!holder || held[s] == 0 || holdings.everyOwnerKeeps(next, s)) {
        held[s] = 0;
        drop.add(s);
      }
    }
    if (!drop.isEmpty()) {
      store.drop(k -> drop.contains(next.segmentOf(k)));
    }
    return adopt.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * Replaces this member's state of {@code adopted} segments with the holders', then checkpoints.
   */
  void adopt(long epochNumber, int[] adopted, List<TxFrame.VersionEntry> entries) {
    still.writeLock().lock();
    try {
      synchronized (this) {
        if (epoch.number != epochNumber || ready) {
          return; // a newer epoch came meanwhile
        }
        Set<Integer> segs = new HashSet<>();
        for (int s : adopted) {
          segs.add(s);
        }
        store.adoptionBegins();
        try {
          for (PendingTxn t : List.copyOf(pending.values())) {
            pending.remove(t.txid);
            abortLocked(t);
          }
          store.clear(k -> segs.contains(epoch.segmentOf(k)));
          appliedInEpoch.clear();
          for (TxFrame.VersionEntry e : entries) {
            store.clock.observe(e.ts());
            store.state(e.key()).reset(e.ts(), e.value());
          }
        } finally {
          // open transactions' snapshots predate the adopted versions: their reads now fail
          store.adoptionEnded();
        }
        for (int s : adopted) {
          held[s] = epochNumber;
        }
        adoptingSince = -1;
        if (log != null) {
          checkpointLocked();
        }
        bootstrapped = true;
        ready = promised.equals(epoch.ballot);
        notifyAll();
        LOG.log(
            System.Logger.Level.INFO,
            "member "
                + Long.toHexString(memberId)
                + " adopted "
                + entries.size()
                + " keys of "
                + adopted.length
                + " segments at "
                + epoch);
      }
    } finally {
      still.writeLock().unlock();
    }
  }

  /**
   * Returns the newest version of every key (removals included) of the segments, for a member that
   * adopts them; null if this member has not installed that epoch or does not hold them all.
   */
  synchronized List<TxFrame.VersionEntry> snapshotForTransfer(long epochNumber, int[] wanted) {
    if (epoch.number != epochNumber) {
      return null;
    }
    Set<Integer> segs = new HashSet<>();
    for (int s : wanted) {
      if (s < 0 || s >= segments || held[s] == 0) {
        return null;
      }
      segs.add(s);
    }
    List<TxFrame.VersionEntry> out = new ArrayList<>();
    store.forEach(
        (k, st) -> {
          if (segs.contains(epoch.segmentOf(k))) {
            TxFrame.VersionEntry e = newest(k, st);
            if (e != null) {
              out.add(e);
            }
          }
        });
    return out;
  }

  private static TxFrame.VersionEntry newest(KeyRef k, KeyState s) {
    long ts = s.newestTs();
    if (ts == 0) {
      return null;
    }
    byte[] stored = s.newest();
    byte[] value = null;
    if (stored != null) {
      int off = StoredValue.valueOffset(stored);
      value = java.util.Arrays.copyOfRange(stored, off, stored.length);
    }
    return new TxFrame.VersionEntry(k, ts, value);
  }

  // ------------------------------------------------------------------ checkpoints

  /** Writes a checkpoint (holding the member still while it runs). */
  void checkpoint() {
    if (log == null) {
      throw new IllegalStateException("this store has no persistence directory");
    }
    still.writeLock().lock();
    try {
      synchronized (this) {
        checkpointLocked();
      }
    } finally {
      still.writeLock().unlock();
    }
  }

  private void checkpointLocked() {
    log.checkpoint(
        add -> {
          add.accept(
              TxLog.entry(
                  TxLog.E_META,
                  out -> {
                    out.writeLong(memberId);
                    TxFrame.writeBallot(out, promised);
                    out.writeLong(epoch.number);
                    TxFrame.writeBallot(out, epoch.ballot);
                    out.writeLong(store.clock.current());
                    TxFrame.writeMembers(out, epoch.members);
                    TxFrame.writeLongs(out, held);
                  }));
          store.forEach(
              (k, s) -> {
                TxFrame.VersionEntry e = newest(k, s);
                if (e != null) {
                  add.accept(TxLog.entry(TxLog.E_VERSION, out -> TxFrame.writeVersion(out, e)));
                }
              });
          for (PendingTxn t : pending.values()) {
            add.accept(
                TxLog.entry(
                    TxLog.E_PENDING,
                    out -> {
                      TxLog.writePrepared(out, t.txid, t.proposal, t.writes);
                      out.writeByte(t.decidedBallot == null ? TxFrame.D_NONE : TxFrame.D_COMMIT);
                      TxFrame.writeBallot(
                          out, t.decidedBallot == null ? Ballot.ZERO : t.decidedBallot);
                      out.writeLong(t.decidedTs);
                    }));
          }
          if (accepted != null) {
            TxFrame.Proposal p = accepted;
            add.accept(TxLog.entry(TxLog.E_ACCEPTED, out -> TxFrame.writeProposal(out, p)));
          }
          TxFrame.Remembered r = remembered;
          add.accept(TxLog.entry(TxLog.E_REMEMBERED, out -> TxLog.writeRemembered(out, r)));
          appliedInEpoch.forEach(
              (id, ts) ->
                  add.accept(
                      TxLog.entry(
                          TxLog.E_APPLIED,
                          out -> {
                            TxFrame.writeTxId(out, id);
                            out.writeLong(ts);
                          })));
        });
  }

  void close() {
    if (log != null) {
      log.close();
    }
  }

  // ------------------------------------------------------------------ recovery (TxLog.Replay)

  @Override
  public void member(long id) {
    memberId = id;
  }

  @Override
  public void meta(
      long id,
      Ballot promisedBallot,
      long epochNumber,
      Ballot epochBallot,
      long clock,
      List<TxFrame.Member> members,
      long[] heldEpochs) {
    memberId = id;
    promised = promisedBallot;
    epoch = epochNumber == 0 ? Epoch.NONE : newEpoch(epochNumber, epochBallot, members);
    held = checkedHeld(heldEpochs);
    store.clock.observe(clock);
  }

  private long[] checkedHeld(long[] h) {
    if (h.length != segments) {
      throw new IllegalStateException(
          "this member's log holds "
              + h.length
              + " segments; the store is configured with "
              + segments);
    }
    return h.clone();
  }

  @Override
  public void version(TxFrame.VersionEntry e) {
    store.clock.observe(e.ts());
    store.state(e.key()).restore(e.ts(), e.value());
  }

  @Override
  public void prepared(TxId txid, long proposal, List<TxFrame.Write> writes) {
    store.clock.observe(proposal);
    PendingTxn t = new PendingTxn(txid, proposal, writes);
    for (TxFrame.Write w : writes) {
      store.state(w.key()).addPending(txid, proposal, w.value());
    }
    pending.put(txid, t);
  }

  @Override
  public void decided(TxId txid, Ballot ballot, long commitTs) {
    PendingTxn t = pending.get(txid);
    if (t != null) {
      t.decidedBallot = ballot;
      t.decidedTs = commitTs;
    } else {
      appliedInEpoch.put(txid, commitTs); // as decide() records it
    }
  }

  @Override
  public void applied(TxId txid, long commitTs) {
    appliedInEpoch.put(txid, commitTs);
    PendingTxn t = pending.remove(txid);
    if (t != null) {
      store.clock.observe(commitTs);
      for (TxFrame.Write w : t.writes) {
        store.state(w.key()).apply(txid, commitTs, store.clock.current());
      }
    }
  }

  @Override
  public void aborted(TxId txid) {
    PendingTxn t = pending.remove(txid);
    if (t != null) {
      for (TxFrame.Write w : t.writes) {
        store.state(w.key()).abort(txid);
      }
    }
  }

  @Override
  public void remembered(TxFrame.Remembered decisions) {
    remembered = decisions;
  }

  @Override
  public void promise(Ballot ballot) {
    if (ballot.isAbove(promised)) {
      promised = ballot;
    }
  }

  @Override
  public void accepted(TxFrame.Proposal proposal) {
    accepted = proposal;
    promise(proposal.ballot());
  }

  @Override
  public void epoch(
      long number,
      Ballot ballot,
      List<TxFrame.Member> members,
      long[] heldEpochs,
      TxFrame.Remembered decisions) {
    epoch = newEpoch(number, ballot, members);
    remembered = decisions;
    // as install() does: a proposal accepted under a higher ballot than the installed one's stays
    if (accepted != null && accepted.ballot().compareTo(ballot) <= 0) {
      accepted = null;
    }
    appliedInEpoch.clear();
    held = checkedHeld(heldEpochs);
    Epoch e = epoch;
    long[] h = held;
    store.drop(k -> h[e.segmentOf(k)] == 0); // dropped or left to adopt at this install
  }
}
