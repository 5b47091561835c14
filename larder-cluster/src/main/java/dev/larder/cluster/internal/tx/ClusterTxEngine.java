package dev.larder.cluster.internal.tx;

import dev.larder.cluster.ClusterConfig;
import dev.larder.cluster.ClusterDegradedException;
import dev.larder.cluster.ClusterException;
import dev.larder.cluster.ClusterTimeoutException;
import dev.larder.cluster.internal.SettingsToken;
import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.tx.Isolation;
import dev.larder.tx.TransactionConflictException;
import dev.larder.tx.TxCacheSpec;
import dev.larder.tx.TxStats;
import dev.larder.tx.internal.KeyRef;
import dev.larder.tx.internal.SnapshotRegistry;
import dev.larder.tx.internal.StoredValue;
import dev.larder.tx.spi.TxBackend;
import dev.larder.wal.WalConfig;
import dev.larder.wal.WriteAheadLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import org.jgroups.Address;
import org.jgroups.View;

/**
 * The clustered store's engine: a {@link TxBackend} whose caches every member of a JGroups cluster
 * holds, committed by the protocol of docs/design/cluster-transactions.md. Wires the member's state
 * ({@link MemberState}), its channel ({@link TxChannel}), the commit path ({@link Originator}),
 * reconfigurations ({@link Reconfiguration}) and state transfer ({@link Adoption}).
 *
 * <p>Reconfigurations run on one thread: on every view this member coordinates (once per view), and
 * every second while this member coordinates a view whose members differ from its epoch's, or is
 * not READY (a reconfiguration that failed, or one whose coordinator died before installing), or
 * holds a transaction pending for more than twice the cluster timeout (its originator is alive but
 * its decision never came: a reconfiguration decides it, so that no key stays locked), or has
 * applied more than {@value #APPLIED_PER_EPOCH} transactions in its epoch (each member remembers
 * them until the next epoch, to report them). Checkpoints run on the same thread every {@code
 * checkpointEvery}. A thread of its own asks for read lease renewals every {@value
 * #LEASE_RENEW_MILLIS} ms while this member is READY ({@link ReadLease}); a transaction begins only
 * under the lease, or on a member that is not READY.
 *
 * <p>Thread-safe.
 */
public final class ClusterTxEngine implements TxBackend, TxChannel.Handler {

  private static final System.Logger LOG = System.getLogger(ClusterTxEngine.class.getName());

  /** Transactions an epoch applies before its coordinator starts the next (see MemberState). */
  private static final int APPLIED_PER_EPOCH = 50_000;

  /**
   * How long a lease grant counts from the request it answers: a READY member that has not heard
   * from a majority of its epoch for this long serves no read (design: "The read lease").
   */
  static final long LEASE_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** How often a READY member asks the others of its epoch to renew its lease. */
  private static final long LEASE_RENEW_MILLIS = 250;

  private final List<TxCacheSpec<?, ?>> specs;
  private final Isolation defaultIsolation;
  private final long timeoutNanos;
  private final int majority;
  private final MemberState member;
  private final TxChannel channel;
  private final Originator originator;
  private final Adoption adoption;
  private final Reconfiguration reconfiguration;
  private final ScheduledExecutorService coordinator;
  private final ReadLease lease;

  /** Sends lease requests; apart from the reconfiguration thread, which may be busy for long. */
  private final ScheduledExecutorService leaseTimer;

  private final AtomicBoolean scheduled = new AtomicBoolean();
  // the view the last epoch this member installed as coordinator was made for; only the
  // reconfiguration thread reads and writes it
  private org.jgroups.ViewId installedFor;
  private final LongAdder commits = new LongAdder();
  private final LongAdder conflicts = new LongAdder();

  /**
   * Each open snapshot's epochs: the one this member was READY in (-1: not READY), checked at its
   * commit, and the one it had installed, whose owners serve the snapshot's remote reads.
   */
  private final java.util.concurrent.ConcurrentHashMap<Long, MemberState.SnapshotStart>
      snapshotEpochs = new java.util.concurrent.ConcurrentHashMap<>();

  private final RemoteReads remoteReads;

  /** Open snapshots whose transaction walked every key ({@link #forEachAt}). */
  private final Set<Long> walked = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private volatile boolean closed;

  private ClusterTxEngine(
      ClusterConfig config,
      List<TxCacheSpec<?, ?>> specs,
      Isolation isolation,
      int members,
      WalConfig wal) {
    this.specs = List.copyOf(specs);
    this.defaultIsolation = isolation;
    this.timeoutNanos = config.timeout().toNanos();
    this.member = MemberState.open(wal, config.segments(), ownersOf(config), config.partitioner());
    this.channel = new TxChannel(config.stack(), config.nodeName());
    this.remoteReads = new RemoteReads(member, channel);
    this.majority = members / 2 + 1;
    this.originator = new Originator(member, channel, majority, this::describe);
    this.adoption = new Adoption(member, channel, timeoutNanos);
    this.lease = new ReadLease(majority, LEASE_NANOS);
    this.reconfiguration =
        new Reconfiguration(member, channel, majority, timeoutNanos, adoption, LEASE_NANOS);
    this.coordinator =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "larder-cluster-tx-reconfiguration");
              t.setDaemon(true);
              return t;
            });
    this.leaseTimer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "larder-cluster-tx-lease");
              t.setDaemon(true);
              return t;
            });
  }

  /** Owners of each segment: {@code owners} in DISTRIBUTED mode, every member in REPLICATED. */
  private static int ownersOf(ClusterConfig config) {
    return config.mode() == dev.larder.cluster.ClusterMode.DISTRIBUTED
        ? config.owners()
        : Epoch.ALL;
  }

  /**
   * Recovers this member's log (if any), joins the cluster and waits until this member has
   * installed an epoch and its view holds {@code initialClusterSize} members.
   *
   * @param config the cluster (REPLICATED, or DISTRIBUTED with its owners; SYNC)
   * @param specs the caches, in order (every member must declare the same)
   * @param isolation the default isolation
   * @param members the cluster's size; a majority of it must be present to commit
   * @param wal the log, or null
   * @param checkpointEvery time between checkpoints (zero: none), with a log
   * @return the running engine
   * @throws ClusterException if the member cannot join, or no epoch is installed within {@link
   *     ClusterConfig#initialClusterTimeout()}
   */
  public static ClusterTxEngine start(
      ClusterConfig config,
      List<TxCacheSpec<?, ?>> specs,
      Isolation isolation,
      int members,
      WalConfig wal,
      Duration checkpointEvery) {
    ClusterTxEngine engine = new ClusterTxEngine(config, specs, isolation, members, wal);
    try {
      engine.join(config, members, checkpointEvery);
    } catch (RuntimeException e) {
      engine.close();
      throw e;
    }
    return engine;
  }

  // The periodic tasks' futures are not kept: each task catches what it throws (a periodic task
  // that throws is never run again), and close() stops them by shutting the executor down.
  @SuppressWarnings("FutureReturnValueIgnored")
  private void join(ClusterConfig config, int members, Duration checkpointEvery) {
    SettingsToken.install(
        channel.jchannel(),
        "tx wire "
            + TxFrame.VERSION
            + ", caches "
            + specs.stream().map(TxCacheSpec::name).toList()
            + ", members "
            + members
            + ", segments "
            + config.segments()
            + ", owners "
            + (ownersOf(config) == Epoch.ALL ? "all" : Integer.toString(config.owners()))
            + (config.partitioner() == null ? "" : ", by " + config.partitioner().id()));
    channel.connect(config.clusterName() + ".tx", this);
    coordinator.scheduleWithFixedDelay(this::checkQuietly, 1, 1, TimeUnit.SECONDS);
    leaseTimer.scheduleWithFixedDelay(
        this::renewLeaseQuietly, 0, LEASE_RENEW_MILLIS, TimeUnit.MILLISECONDS);
    long every = checkpointEvery.toMillis();
    if (member.log() != null && every > 0) {
      coordinator.scheduleWithFixedDelay(
          this::checkpointQuietly, every, every, TimeUnit.MILLISECONDS);
    }
    long deadline = System.nanoTime() + config.initialClusterTimeout().toNanos();
    try {
      boolean in = member.awaitBootstrapped(deadline);
      while (in && viewSize() < config.initialClusterSize() && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      if (!in || viewSize() < config.initialClusterSize()) {
        throw new ClusterException(
            "member "
                + channel.self()
                + " of cluster "
                + config.clusterName()
                + " did not join an epoch with a majority of "
                + members
                + " members (view of "
                + viewSize()
                + ", wanted "
                + config.initialClusterSize()
                + ") within "
                + config.initialClusterTimeout());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClusterException("interrupted while joining", e);
    }
  }

  private int viewSize() {
    View v = channel.view();
    return v == null ? 0 : v.size();
  }

  // ------------------------------------------------------------------ TxChannel.Handler

  @Override
  public void onRequest(Address from, TxFrame f) {
    switch (f) {
      case TxFrame.Prepare p -> channel.send(from, withReqId(member.prepare(p), p.reqId()), true);
      case TxFrame.Decide d -> channel.send(from, withReqId(member.decide(d), d.reqId()), true);
      case TxFrame.Apply a -> member.apply(a.txid(), a.commitTs());
      case TxFrame.Abort a -> member.abort(a.txid());
      case TxFrame.Query q -> {
        TxFrame.Report r = member.query(q);
        if (q.reqId() == 0) {
          return; // a dropped member told of a newer epoch: no answer wanted
        }
        channel.send(
            from,
            new TxFrame.Report(
                q.reqId(),
                r.status(),
                r.promised(),
                r.memberId(),
                r.epoch(),
                r.installed(),
                r.clock(),
                r.held(),
                r.pending(),
                r.remembered()),
            true);
      }
      case TxFrame.Accept a ->
          channel.send(from, withReqId(member.accept(a.proposal()), a.reqId()), true);
      case TxFrame.Install i -> {
        int[] adopt = member.install(i.proposal());
        if (adopt != null) {
          adoption.start(i.proposal(), adopt);
        }
      }
      case TxFrame.Pull p -> adoption.serve(from, p);
      case TxFrame.Read r -> channel.send(from, remoteReads.serve(r, timeoutNanos), true);
      case TxFrame.Lease l -> {
        if (l.grant()) {
          lease.granted(from, l.epoch(), l.ballot(), l.stamp());
        } else if (member.grantsLease(l.epoch(), l.ballot())) {
          channel.sendOnce(
              from, new TxFrame.Lease(0, l.epoch(), l.ballot(), l.stamp(), TxFrame.F_GRANT));
        }
      }
      default -> LOG.log(System.Logger.Level.WARNING, "unexpected " + f + " from " + from);
    }
  }

  private static TxFrame withReqId(TxFrame.Vote v, long reqId) {
    return new TxFrame.Vote(reqId, v.status(), v.proposal(), v.conflicts());
  }

  private static TxFrame withReqId(TxFrame.Ack a, long reqId) {
    return new TxFrame.Ack(reqId, a.status(), a.promised());
  }

  @Override
  public void onView(View view) {
    member.viewChanged(view.getMembers());
    if (view.getCoord().equals(channel.self())) {
      scheduleReconfiguration();
    }
  }

  private void scheduleReconfiguration() {
    if (closed || !scheduled.compareAndSet(false, true)) {
      return;
    }
    coordinator.execute(
        () -> {
          scheduled.set(false);
          View v = channel.view();
          if (v == null || closed || !v.getCoord().equals(channel.self())) {
            return;
          }
          if (v.getViewId().equals(installedFor) && !epochStale(v)) {
            // a second notice of a view this member already installed an epoch for: views are
            // handed over on worker threads, so a task scheduled by an older view can run for the
            // newest one before that view's own notice schedules another. A second epoch would
            // only abort every transaction in flight
            return;
          }
          try {
            if (reconfiguration.run(v)) {
              installedFor = v.getViewId();
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } catch (RuntimeException e) {
            LOG.log(
                System.Logger.Level.WARNING, "reconfiguration for " + v.getViewId() + " failed", e);
          }
        });
  }

  /** Every second: a coordinator whose epoch does not match its view, or that is not READY. */
  private void check() {
    View v = channel.view();
    if (v == null || closed || !v.getCoord().equals(channel.self())) {
      return;
    }
    if (epochStale(v)) {
      scheduleReconfiguration();
    }
  }

  /**
   * Returns true if this member, coordinating {@code v}, should start a new epoch whatever the view
   * it installed its epoch for: it is not READY (and not adopting), its epoch's members are not the
   * view's, a transaction is pending too long, or the epoch has applied too many.
   */
  private boolean epochStale(View v) {
    long adopting = member.adoptingNanos();
    if (adopting >= 0 && adopting < 3 * timeoutNanos) {
      return false; // this member is taking a source's state: a new epoch now would stop it
    }
    Epoch e = member.epoch();
    return !member.isReady()
        || !Set.copyOf(e.addresses()).equals(Set.copyOf(v.getMembers()))
        || member.oldestPendingNanos() > 2 * timeoutNanos
        || member.appliedInEpochCount() > APPLIED_PER_EPOCH;
  }

  /**
   * Waits until the reconfiguration thread has run every task queued before this call (tests: a
   * reconfiguration a view notice scheduled has run, or decided not to).
   */
  void awaitReconfigurationThread(long timeoutMillis) throws Exception {
    coordinator.submit(() -> {}).get(timeoutMillis, TimeUnit.MILLISECONDS);
  }

  private void checkQuietly() {
    try {
      check();
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "the epoch check failed", e);
    }
  }

  /**
   * Asks every other member of the epoch this member is READY in to renew its read lease (once,
   * unreliably: a lost request or grant only lets the lease run out sooner).
   */
  private void renewLease() {
    Epoch e = member.readyEpoch();
    if (e == null) {
      return;
    }
    lease.track(e.number, e.ballot);
    TxFrame.Lease request = new TxFrame.Lease(0, e.number, e.ballot, System.nanoTime(), 0);
    for (Address a : e.addresses()) {
      if (!a.equals(channel.self())) {
        channel.sendOnce(a, request);
      }
    }
  }

  private void renewLeaseQuietly() {
    try {
      if (!closed) {
        renewLease();
      }
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "a lease renewal failed", e);
    }
  }

  /**
   * Returns once this member may serve a snapshot: it is not READY (it serves the state it holds,
   * "Reads on a member that is not READY"), or it is and holds its read lease in that epoch. While
   * READY without the lease it asks for renewals and waits, until the cluster timeout.
   *
   * @throws ClusterTimeoutException if it stayed READY without the lease for the whole timeout
   */
  private void awaitLease() {
    long number = member.readyEpochNumber();
    if (number < 0 || lease.holdsIn(number)) {
      return;
    }
    long start = System.nanoTime();
    long deadline = start + timeoutNanos;
    long asked = start - TimeUnit.SECONDS.toNanos(1);
    try {
      while (true) {
        number = member.readyEpochNumber();
        if (number < 0 || lease.holdsIn(number)) {
          return;
        }
        long now = System.nanoTime();
        if (now - deadline > 0) {
          throw new ClusterTimeoutException(
              "this member is READY in epoch "
                  + number
                  + " but has not heard from a majority of its members within its read lease ("
                  + TimeUnit.NANOSECONDS.toMillis(LEASE_NANOS)
                  + " ms) for "
                  + TimeUnit.NANOSECONDS.toMillis(now - start)
                  + " ms: it may be cut off from them, and serves no read",
              List.of());
        }
        if (now - asked > TimeUnit.MILLISECONDS.toNanos(100)) {
          renewLease();
          asked = now;
        }
        Thread.sleep(5);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClusterException("interrupted", e);
    }
  }

  private void checkpointQuietly() {
    try {
      if (!closed) {
        member.checkpoint();
      }
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "checkpoint failed", e);
    }
  }

  // ------------------------------------------------------------------ TxBackend

  @Override
  public Isolation defaultIsolation() {
    return defaultIsolation;
  }

  @Override
  public SnapshotRegistry.Snapshot begin() {
    awaitBootstrapped();
    awaitLease();
    // if this member stays READY in the snapshot's epoch until the commit, every commit of the
    // epoch at or below the snapshot passed through it
    MemberState.SnapshotStart start = member.beginSnapshot();
    snapshotEpochs.put(start.snapshot(), start);
    return new SnapshotRegistry.Snapshot(start.snapshot(), null);
  }

  private void awaitBootstrapped() {
    try {
      if (!member.awaitBootstrapped(System.nanoTime() + timeoutNanos)) {
        throw new ClusterTimeoutException(
            "this member holds no state yet: it has not installed" + " an epoch since it started",
            List.of());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClusterException("interrupted", e);
    }
  }

  @Override
  public void end(long snapshot) {
    snapshotEpochs.remove(snapshot);
    walked.remove(snapshot);
    member.store.end(snapshot);
  }

  @Override
  public byte[] read(KeyRef ref, long snapshot) {
    // on a minority side no transaction pending here can be decided before the view changes: a
    // read that would wait for one is refused at once, as a commit there is, instead of waiting
    // out the timeout as a conflict that every attempt of inTransaction would meet again
    boolean minority = !member.isReady() && member.inMinorityView(majority);
    long deadline = System.nanoTime() + timeoutNanos;
    MemberState.SnapshotStart start = snapshotEpochs.get(snapshot);
    long epoch = start == null ? member.epoch().number : start.installedEpoch();
    try {
      if (member.servesReads(ref, member.epoch().number)) {
        // this member owns the key and holds it: every commit on it passes through here
        return member.store.read(ref, snapshot, minority ? System.nanoTime() : deadline);
      }
      return remoteReads.read(ref, snapshot, epoch, deadline);
    } catch (PendingTimeoutException e) {
      if (minority) {
        throw new ClusterDegradedException(
            String.valueOf(channel.self()),
            "read of a key a transaction is pending on (" + e.getMessage() + ")",
            member.view().stream().map(Object::toString).toList(),
            member.epochAddresses().stream().map(Object::toString).toList());
      }
      conflicts.increment();
      throw new TransactionConflictException(e.getMessage(), List.of());
    } catch (SnapshotLostException e) {
      conflicts.increment();
      throw new TransactionConflictException(e.getMessage(), List.of());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClusterException("interrupted", e);
    }
  }

  @Override
  public int valueOffset(byte[] stored) {
    return StoredValue.valueOffset(stored);
  }

  @Override
  @SuppressWarnings("ReferenceEquality") // REMOVED is a sentinel array, told apart by identity
  public long commit(
      long snapshot, Isolation isolation, Set<KeyRef> reads, SequencedMap<KeyRef, byte[]> writes) {
    List<TxFrame.Write> ws = new ArrayList<>(writes.size());
    for (Map.Entry<KeyRef, byte[]> w : writes.entrySet()) {
      ws.add(new TxFrame.Write(w.getKey(), w.getValue() == REMOVED ? null : w.getValue()));
    }
    try {
      long c =
          originator.commit(
              snapshot,
              readyEpochOf(snapshot),
              isolation,
              List.copyOf(reads),
              ws,
              false,
              walked.contains(snapshot),
              System.nanoTime() + timeoutNanos);
      commits.increment();
      return c;
    } catch (TransactionConflictException e) {
      conflicts.increment();
      throw e;
    }
  }

  private long readyEpochOf(long snapshot) {
    MemberState.SnapshotStart start = snapshotEpochs.get(snapshot);
    return start == null ? -1 : start.readyEpoch();
  }

  @Override
  public long commitBlind(KeyRef key, ByteSink value) {
    byte[] v = value == null ? null : value.toByteArray();
    long c =
        originator.commit(
            0,
            Originator.ANY_EPOCH,
            defaultIsolation,
            List.of(),
            List.of(new TxFrame.Write(key, v)),
            true,
            false,
            System.nanoTime() + timeoutNanos);
    commits.increment();
    return c;
  }

  /** The conflicting commit's timestamp: later snapshots here are above it (see class notes). */
  @Override
  public void awaitVisible(long sequence, long maxNanos) {
    member.store.clock.observe(sequence);
  }

  @Override
  public long checkpoint() {
    member.checkpoint();
    return member.store.clock.current();
  }

  @Override
  public WriteAheadLog log() {
    return member.log() == null ? null : member.log().wal();
  }

  @Override
  public TxStats stats() {
    return new TxStats(
        commits.sum(),
        conflicts.sum(),
        member.store.clock.current(),
        member.store.openSnapshots(),
        member.pendingCount(),
        0);
  }

  @Override
  public long estimatedSize(int index) {
    return member.store.estimatedSize(index);
  }

  @Override
  public long memoryUsed(int index) {
    return member.store.memoryUsed(index);
  }

  /** Returns this member's id, its epoch and whether it is READY (for tests and the bench). */
  public String describeMember() {
    return "member "
        + Long.toHexString(member.memberId())
        + " at "
        + member.epoch()
        + (member.isReady() ? ", ready" : ", not ready")
        + ", "
        + member.pendingCount()
        + " pending";
  }

  /** Returns true if this member may commit now (installed its epoch and holds its state). */
  public boolean isReady() {
    return member.isReady();
  }

  /**
   * Returns transactions left in doubt by a failure that reconfigurations run by this member
   * decided: {committed, aborted}.
   */
  public long[] inDoubtResolved() {
    return reconfiguration.inDoubtResolved();
  }

  /**
   * Returns how many times reconfigurations run by this member waited, before proposing, for read
   * leases that a member outside the view might hold to run out (each logged at INFO with why).
   */
  public long leaseFences() {
    return reconfiguration.leaseFences();
  }

  /** Returns the number of the epoch this member installed last. */
  public long epochNumber() {
    return member.epoch().number;
  }

  /**
   * Returns how many members the epoch this member installed last has (those that vote on its
   * transactions); a member's JGroups view may lag its epoch (see the design note's limits).
   */
  public int epochSize() {
    return member.epoch().members.size();
  }

  /**
   * Hands {@code action} the newest committed value of each key of the cache at {@code index} that
   * this member owns in its installed epoch (or is the primary of, with {@code primaryOnly}):
   * weakly consistent, no snapshot (see {@code MemberState.forEachNewest}).
   *
   * @param action gets the encoded key and the value's encoded bytes (neither to be modified)
   */
  public void forEachNewest(int index, boolean primaryOnly, BiConsumer<byte[], ByteSource> action) {
    member.forEachNewest(
        index,
        primaryOnly,
        (key, stored) -> {
          int offset = StoredValue.valueOffset(stored);
          action.accept(key, new ByteSource(stored, offset, stored.length - offset));
        });
  }

  /**
   * Hands {@code action} the value of each key of the cache at {@code index} at {@code snapshot}
   * (an open transaction's), as that transaction's reads would see it: the walk of KEYS, SCAN or
   * DBSIZE inside a server's EXEC. The transaction's commit, if it writes, then also checks that no
   * commit after its snapshot created, changed or removed any key of the store (else it fails with
   * {@code TransactionConflictException}), so that what the walk did not see cannot have been
   * serialized before it. REPLICATED only: this member holds every key and takes part in every
   * commit.
   *
   * @param action gets the encoded key and the value's encoded bytes (neither to be modified)
   * @throws IllegalStateException in DISTRIBUTED mode
   * @throws TransactionConflictException if the snapshot cannot be read here (this member adopts
   *     the cluster's state, or a pending transaction did not end within the timeout)
   */
  public void forEachAt(int index, long snapshot, BiConsumer<byte[], ByteSource> action) {
    try {
      member.forEachAt(
          index,
          snapshot,
          System.nanoTime() + timeoutNanos,
          (key, stored) -> {
            int offset = StoredValue.valueOffset(stored);
            action.accept(key, new ByteSource(stored, offset, stored.length - offset));
          });
      walked.add(snapshot);
    } catch (PendingTimeoutException | SnapshotLostException e) {
      conflicts.increment();
      throw new TransactionConflictException(e.getMessage(), List.of());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClusterException("interrupted", e);
    }
  }

  /**
   * Hands {@code action} the newest committed value of each key of the cache at {@code index} in
   * the whole cluster, each key once, from its primary in the epoch this member installed: its own
   * primaries' keys read here, every other primary's pulled from it (the PULL and STATE frames of
   * adoption, for the segments it is primary of). Weakly consistent, no snapshot: a key committed
   * or removed during the walk may be seen either way. A primary that refuses (it has not installed
   * this epoch, or is still adopting) is asked again, with the newer epoch if this member installed
   * one, until the cluster timeout; so is the walk while this member is not READY.
   *
   * @param action gets the encoded key and the value's encoded bytes (neither to be modified)
   * @throws ClusterTimeoutException if some primary did not serve its keys within the timeout
   */
  public void forEachNewestInCluster(int index, BiConsumer<byte[], ByteSource> action) {
    long deadline = System.nanoTime() + timeoutNanos;
    try {
      while (true) {
        Epoch e = member.epoch();
        List<TxFrame.VersionEntry> remote = pullPrimaries(e);
        // this member's own primaries are whole only while it is READY (not adopting them)
        if (remote != null && member.isReady() && member.epoch().number == e.number) {
          forEachNewest(index, true, action);
          for (TxFrame.VersionEntry v : remote) {
            if (v.key().cache() == index && v.value() != null) {
              action.accept(v.key().key(), new ByteSource(v.value()));
            }
          }
          return;
        }
        if (System.nanoTime() > deadline) {
          throw new ClusterTimeoutException(
              "a walk of every member's keys (some primary of " + e + " did not serve them)",
              List.of());
        }
        Thread.sleep(50);
      }
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw new ClusterException("interrupted", ie);
    }
  }

  /**
   * Pulls, from each other member that is primary of segments in {@code e}, those segments' newest
   * versions; null if one refused or did not answer.
   */
  private List<TxFrame.VersionEntry> pullPrimaries(Epoch e) throws InterruptedException {
    Map<Long, List<Integer>> byPrimary = new LinkedHashMap<>();
    for (int s = 0; s < e.segments(); s++) {
      long[] owners = e.ownersOf(s);
      if (owners.length > 0 && owners[0] != member.memberId()) {
        byPrimary.computeIfAbsent(owners[0], id -> new ArrayList<>()).add(s);
      }
    }
    List<TxFrame.VersionEntry> entries = new ArrayList<>();
    for (Map.Entry<Long, List<Integer>> p : byPrimary.entrySet()) {
      Address a = e.addressOf(p.getKey());
      int[] segments = p.getValue().stream().mapToInt(Integer::intValue).toArray();
      if (a == null || !adoption.pullFrom(a, e.number, segments, entries)) {
        return null;
      }
    }
    return entries;
  }

  /**
   * Returns the names of the owners of {@code segment} in the epoch this member installed last,
   * primary first; empty before the first epoch or for a segment out of range.
   */
  public List<String> ownersOf(int segment) {
    return member.ownersOf(segment).stream().map(Object::toString).toList();
  }

  /**
   * Returns the members of the epoch this member installed last, by name (those that vote on its
   * transactions; the JGroups view may differ for a while).
   */
  public List<String> epochMembers() {
    return member.epochAddresses().stream().map(Object::toString).toList();
  }

  /** Returns the members of the current JGroups view, by name. */
  public List<String> members() {
    View v = channel.view();
    return v == null ? List.of() : v.getMembers().stream().map(Object::toString).toList();
  }

  MemberState member() {
    return member;
  }

  /** Returns this member's JGroups channel (for tests that inject faults). */
  public org.jgroups.JChannel channel() {
    return channel.jchannel();
  }

  private TransactionConflictException.ConflictingKey describe(TxFrame.Conflict c) {
    TxCacheSpec<?, ?> spec = specs.get(c.key().cache());
    Object key;
    try {
      key = spec.keyCodec().decode(new ByteSource(c.key().key()));
    } catch (RuntimeException e) {
      key = c.key().toString();
    }
    return new TransactionConflictException.ConflictingKey(spec.name(), key, c.committedAt());
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    coordinator.shutdownNow();
    leaseTimer.shutdownNow();
    channel.close();
    member.close();
  }
}
