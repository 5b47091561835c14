package dev.larder.cluster.internal;

import dev.larder.Cache;
import dev.larder.RemovalCause;
import dev.larder.cluster.ClusterConfig;
import dev.larder.cluster.ClusterDegradedException;
import dev.larder.cluster.ClusterException;
import dev.larder.cluster.ClusterMode;
import dev.larder.cluster.ClusterTimeoutException;
import dev.larder.cluster.MemberMessages;
import dev.larder.cluster.NearCacheStats;
import dev.larder.cluster.PartitionHandling;
import dev.larder.cluster.RebalanceStats;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.jgroups.Address;
import org.jgroups.JChannel;
import org.jgroups.util.ExtendedUUID;

/**
 * One member of a clustered cache: its JGroups channel and the pieces that make up the protocol,
 * assembled. Thread-safe.
 *
 * <p>Implementation notes. This class holds no protocol of its own; it joins, hands each call to
 * the piece that owns its concern, and closes. The pieces, each with its invariants and concurrency
 * argument in its own notes:
 *
 * <ul>
 *   <li>{@link Membership}: views, the installed {@link Topology}, the view lock and waits; {@link
 *       Quorum} decides whether this member may serve and which side keeps its entries at a merge
 *       ({@link MergeWinner} when no side held a majority);
 *   <li>{@link Dispatcher}: what JGroups delivers, routed by frame type to the piece that handles
 *       it, on the delivery thread or a worker; {@link Messenger}: sending and awaiting replies;
 *   <li>{@link SegmentOwnership}: what this member holds of each segment, with the segment locks;
 *       {@link LocalStore}: its entries and their stored (stamped) form;
 *   <li>{@link KeyAccess}: reads and writes of single keys, by {@link Reads}, {@link Writes} and
 *       {@link Backups} in the owner modes, by {@link InvalidationAccess} in invalidation mode;
 *       under quorum partition handling, behind {@link QuorumAccess};
 *   <li>{@link WholeCache}: clear, count, listing; {@link StateTransfer}: moving segments to new
 *       owners; {@link DictionarySync}: the replicated value dictionary; {@link RemovalReporting}:
 *       which member reports which removal;
 *   <li>{@link Lifecycle}: open, closing, closed.
 * </ul>
 *
 * Lock order, everywhere: the view lock's read side, then one segment lock. No thread waits for
 * another member while it holds either (sends under them queue: flow control is non-blocking).
 */
public final class ClusterEngine implements AutoCloseable {

  private final ClusterConfig config;
  private final JChannel channel;

  /** What {@link #join} needs of the settings given at {@link #create}. */
  private final EngineHooks hooks;

  private final SegmentOwnership segments;

  /** Set by the first {@link #join}. */
  private final AtomicBoolean joinBegun = new AtomicBoolean();

  private final Lifecycle lifecycle = new Lifecycle();
  private final ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();
  private final Quorum quorum;
  private final ViewConfirmations confirmations;
  private final Membership membership;
  private final Messenger messenger;
  private final LocalStore store;
  private final RemovalReporting removals;

  /** Copies of non-owned keys, or null. */
  private final NearCache near;

  /** Keeps the value dictionary identical across members, or null. */
  private final DictionarySync dictionary;

  private final StateTransfer transfer;

  /** A durable member's start and epoch, or null. */
  private final Formation formation;

  private final Writes writes;
  private final Reads reads;
  private final KeyAccess access;
  private final WholeCache wholeCache;
  private final MemberMessaging messaging;
  private final WaitingSegments waiting;
  private final Dispatcher dispatcher;

  private ClusterEngine(
      ClusterConfig config,
      Cache<byte[], byte[]> local,
      long memoryBound,
      JChannel channel,
      EngineHooks hooks) {
    this.config = config;
    this.channel = channel;
    this.hooks = hooks;
    SegmentOwnership segments = new SegmentOwnership(config.segments(), config.partitioner());
    this.segments = segments;
    boolean stamps = hooks.ttlMillis() > 0 && config.mode() != ClusterMode.INVALIDATION;
    this.near =
        hooks.nearEntries() > 0 && config.mode() == ClusterMode.DISTRIBUTED
            ? new NearCache(hooks.nearEntries())
            : null;
    this.quorum =
        new Quorum(
            config.partitionHandling(),
            config.minorityReads(),
            config.initialClusterSize(),
            channel::getName,
            config.timeout());
    this.membership = new Membership(config, channel, segments, lifecycle, quorum);
    Calls calls = new Calls();
    this.messenger = new Messenger(config, channel, calls, membership, lifecycle);
    this.confirmations = new ViewConfirmations(quorum, messenger, membership::self);
    membership.confirmWith(confirmations);
    this.dictionary =
        hooks.dictionary() == null
            ? null
            : new DictionarySync(membership, messenger, workers, hooks.dictionary());
    this.store =
        new LocalStore(
            local,
            segments,
            stamps,
            hooks.clock(),
            hooks.ttlMillis(),
            hooks.journal(),
            hooks.countedValues());
    this.formation =
        hooks.journal() == null || config.mode() == ClusterMode.INVALIDATION
            ? null
            : new Formation(
                hooks.journal(),
                config.initialClusterSize(),
                membership,
                segments,
                quorum,
                messenger);
    if (formation != null) {
      membership.durable(formation);
      if (config.partitionHandling() == PartitionHandling.QUORUM) {
        // epochs only for confirmed views: an unconfirmed one's would tie with the confirmed view
        // of the same number at a full restart
        quorum.recordEpochsWith(formation::confirmed);
      }
    }
    this.removals =
        new RemovalReporting(
            hooks.removals(), config.mode(), membership, segments, lifecycle, stamps);
    this.transfer =
        new StateTransfer(
            config.timeout(),
            membership,
            segments,
            store,
            messenger,
            dictionary,
            lifecycle,
            memoryBound,
            formation);
    this.reads = new Reads(membership, segments, store, messenger, near);
    Backups backups = new Backups(membership, segments, store, messenger, near, dictionary, quorum);
    this.writes =
        new Writes(
            config.replication(),
            membership,
            segments,
            store,
            messenger,
            reads,
            backups,
            removals,
            hooks.sameValue(),
            workers,
            quorum,
            formation != null && config.mode() == ClusterMode.DISTRIBUTED,
            hooks.journal() == null);
    InvalidationAccess invalidation =
        new InvalidationAccess(
            config.replication(), membership, segments, store, messenger, hooks.sameValue());
    KeyAccess modeAccess =
        config.mode() == ClusterMode.INVALIDATION ? invalidation : new OwnerAccess(reads, writes);
    this.access =
        config.partitionHandling() == PartitionHandling.QUORUM
            ? new QuorumAccess(quorum, modeAccess)
            : modeAccess;
    this.wholeCache =
        new WholeCache(
            config.mode(),
            config.replication(),
            membership,
            segments,
            store,
            messenger,
            near,
            formation);
    this.messaging = new MemberMessaging(membership, messenger);
    this.waiting = new WaitingSegments(membership, messenger, transfer, formation);
    this.dispatcher = new Dispatcher(membership, messenger, lifecycle, workers);
    listenToViews(calls);
    route(reads, backups, invalidation);
  }

  /** What follows a view, in this order (see {@link Membership}). */
  private void listenToViews(Calls calls) {
    if (near != null) {
      // ownership changed: the primaries that would invalidate the copies may have changed
      membership.onView(change -> near.flush());
    }
    if (dictionary != null) {
      membership.onView(
          change ->
              dictionary.onView(
                  change.topology(),
                  quorum.dictionaryReference(change.topology().view()),
                  change.merge()));
    }
    membership.onView(change -> calls.retain(change.topology().members()));
    membership.onView(change -> messenger.retainOutboxes(change.topology().members()));
    if (config.mode() != ClusterMode.INVALIDATION) {
      membership.onView(change -> transfer.onView(change.topology(), change.incoming()));
    }
    membership.onView(messaging::onView);
  }

  /** Which piece handles each frame type, and on which thread (see {@link Dispatcher}). */
  private void route(Reads reads, Backups backups, InvalidationAccess invalidation) {
    dispatcher
        .onDelivery(Frame.T_WRITE, writes::onWrite, writes::onWriteBeforeFirstView)
        .onDelivery(Frame.T_BACKUP, backups::onBackup)
        .onDelivery(Frame.T_BACKUPS, backups::onBackups)
        .onWorker(Frame.T_READ, reads::onRead)
        .onDelivery(
            Frame.T_NEAR_INVALIDATE,
            reads::onNearInvalidate,
            reads::onNearInvalidateBeforeFirstView)
        .onDelivery(Frame.T_INVALIDATE, invalidation::onInvalidate)
        .onWorker(Frame.T_PULL, transfer::onPull, transfer::refuse)
        .onDelivery(Frame.T_STATE, transfer::onState, Dispatcher::drop)
        .onDelivery(Frame.T_HELD, transfer::onHeld, transfer::onHeld)
        .onWorker(Frame.T_CLEAR, wholeCache::onClear)
        .onWorker(Frame.T_SCAN, wholeCache::onScan)
        .onDelivery(Frame.T_LEAVE, this::onLeave, this::onLeave)
        .onDelivery(Frame.T_INSTALLED, confirmations::onInstalled, confirmations::onInstalled)
        .onDelivery(Frame.T_MESSAGE, messaging::onMessage)
        .onWorker(Frame.T_ABANDON, waiting::onAbandon)
        .onDelivery(
            Frame.T_EPOCH,
            formation != null
                ? formation::onProbe
                : (from, f) -> Formation.answerNotDurable(messenger, membership, from, f))
        .onDelivery(
            Frame.T_DICT,
            dictionary != null
                ? dictionary::onDelivery
                : (from, f) ->
                    messenger.reply(
                        from,
                        f.reqId(),
                        Frame.reply(
                            f.reqId(),
                            membership.topology().viewId(),
                            Frame.S_ERROR,
                            "this member has no value dictionary"
                                .getBytes(StandardCharsets.UTF_8))));
  }

  /**
   * Opens a channel on the configured stack and joins the cluster: {@link #create}, then {@link
   * #join}.
   *
   * @param config the cluster settings
   * @param local the local store of encoded keys and values; owned (and closed) by the engine
   * @param memoryBound the local store's bound in bytes, or Long.MAX_VALUE
   * @param hooks expiry, removal reporting and near cache settings
   * @return the joined member
   * @throws ClusterException if the stack cannot be read or the channel cannot connect
   */
  public static ClusterEngine start(
      ClusterConfig config, Cache<byte[], byte[]> local, long memoryBound, EngineHooks hooks) {
    ClusterEngine engine = create(config, local, memoryBound, hooks);
    engine.join();
    return engine;
  }

  /**
   * Opens a channel on the configured stack without connecting it: a member that has not joined,
   * whose operations are refused until {@link #join}. It reads and writes neither {@code local} nor
   * the journal of {@code hooks} until then, so a caller may fill the store from its own record in
   * between.
   *
   * @param config the cluster settings
   * @param local the local store of encoded keys and values; owned (and closed) by the engine
   * @param memoryBound the local store's bound in bytes, or Long.MAX_VALUE
   * @param hooks expiry, removal reporting and near cache settings
   * @return the member, not joined
   * @throws ClusterException if the stack cannot be read
   */
  public static ClusterEngine create(
      ClusterConfig config, Cache<byte[], byte[]> local, long memoryBound, EngineHooks hooks) {
    JChannel channel;
    try (InputStream stack = openStack(config.stack())) {
      channel = new JChannel(stack);
    } catch (Exception e) {
      throw new ClusterException("cannot build the JGroups stack " + config.stack() + ": " + e, e);
    }
    if (config.nodeName() != null) {
      channel.name(config.nodeName());
    }
    ClusterEngine engine = new ClusterEngine(config, local, memoryBound, channel, hooks);
    channel.setReceiver(engine.dispatcher);
    return engine;
  }

  /**
   * Joins the cluster with what the store holds now; returns once this member's view holds {@link
   * ClusterConfig#initialClusterSize} members (and, for a durable member, the cluster has settled
   * which record it starts from). On failure this member is closed (its store with it).
   *
   * @throws ClusterException if the channel cannot connect, or the members were not there in time
   * @throws IllegalStateException if this member joined already or is closed
   */
  public void join() {
    // not under this engine's monitor: close() (which takes it) ends the wait for the members
    if (!joinBegun.compareAndSet(false, true)) {
      throw new IllegalStateException("join was called already");
    }
    if (lifecycle.closing()) {
      throw new IllegalStateException("the clustered cache is closed");
    }
    try {
      connect();
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    awaitInitialMembers();
    lifecycle.markJoined();
  }

  /** What {@link #join} does before it waits for the members: reads the store, connects. */
  private void connect() {
    if (store.entries.estimatedSize() > 0) {
      // a store recovered from a member's own record before it joined: its entries may belong
      // to segments this member does not own, or be stale, so state transfer must look at them
      for (int s = 0; s < config.segments(); s++) {
        segments.lock(s);
        try {
          segments.noteHeld(s);
        } finally {
          segments.unlock(s);
        }
      }
    }
    if (formation != null) {
      formation.recover();
    }
    if (!config.attributes().isEmpty() || hooks.journal() != null) {
      byte[] attributes =
          config.attributes().isEmpty() ? null : MemberAttributes.encode(config.attributes());
      // a durable member's address carries the epoch its record ends in (Formation)
      byte[] epoch =
          hooks.journal() == null
              ? null
              : Formation.encode(
                  Formation.largest(Formation.recoveredEpochs(hooks.journal(), config.segments())));
      channel.addAddressGenerator(
          () -> {
            ExtendedUUID u =
                config.nodeName() == null
                    ? ExtendedUUID.randomUUID()
                    : ExtendedUUID.randomUUID(config.nodeName());
            if (attributes != null) {
              u.put(MemberAttributes.KEY, attributes);
            }
            if (epoch != null) {
              u.put(Formation.EPOCH_KEY, epoch);
            }
            return u;
          });
    }
    String settings = SettingsToken.describe(config, hooks);
    SettingsToken.install(channel, settings);
    try {
      channel.connect(config.clusterName());
    } catch (Exception e) {
      if (e instanceof SecurityException) {
        throw new ClusterException(
            "cluster "
                + config.clusterName()
                + " refused this member:"
                + " its settings ["
                + settings
                + "] differ from the running members' (every member"
                + " must use the same; the coordinator's log names its own)",
            e);
      }
      throw new ClusterException("cannot join cluster " + config.clusterName() + ": " + e, e);
    }
  }

  /**
   * Waits until the view holds {@link ClusterConfig#initialClusterSize} members and then, for a
   * durable member, until it has settled which store the cluster starts from ({@link Formation}),
   * each within {@link ClusterConfig#initialClusterTimeout} (settling starts only once the members
   * are there, and asks each of them, however late the last one came); on timeout leaves the
   * cluster and throws. The callers' writes cannot reach this member before it returns, and its own
   * view of a cluster it founded alone holds nothing.
   */
  private void awaitInitialMembers() {
    int wanted = config.initialClusterSize();
    awaitStart(t -> t.members().size() >= wanted, "saw", wanted);
    if (formation != null) {
      awaitStart(
          t -> formation.formed(),
          "has not settled which member's record the cluster" + " starts from, with",
          wanted);
    }
  }

  private void awaitStart(Predicate<Topology> ready, String what, int wanted) {
    boolean reached;
    try {
      reached =
          membership.awaitTopology(
              ready, System.nanoTime() + config.initialClusterTimeout().toNanos());
    } catch (ClusterException e) {
      close();
      throw e;
    }
    if (!reached) {
      Topology t = membership.topology();
      String message =
          name()
              + " "
              + what
              + " "
              + (t == null ? 0 : t.members().size())
              + " of the "
              + wanted
              + " members it waits for (initialClusterSize) in cluster "
              + config.clusterName()
              + " within "
              + config.initialClusterTimeout();
      close();
      throw new ClusterException(message);
    }
  }

  private static InputStream openStack(String stack) throws IOException {
    InputStream in =
        ClusterEngine.class.getClassLoader() == null
            ? null
            : ClusterEngine.class.getResourceAsStream("/" + stack);
    if (in == null) {
      in =
          Thread.currentThread().getContextClassLoader() == null
              ? null
              : Thread.currentThread().getContextClassLoader().getResourceAsStream(stack);
    }
    return in != null ? in : new FileInputStream(stack);
  }

  // The operations of ClusteredLarderCache: each checks that this member is open (and its
  // dictionary agrees with the cluster's), then hands over.

  /**
   * Reads a key: locally when this member's value is current, otherwise from an owner.
   *
   * @return the value, or null if absent
   * @throws ClusterTimeoutException if no owner could answer within the timeout
   */
  public byte[] get(byte[] key) {
    checkOpen();
    return access.get(key);
  }

  /**
   * Executes a write on the key's owners (in invalidation mode: here, then invalidates it on every
   * other member).
   *
   * @param op the write
   * @param key the encoded key
   * @param value the encoded new value (null for removals)
   * @param expected the encoded expected value of REPLACE_IF and REMOVE_IF
   * @param mayReturnEarly true if the write returns nothing, so ASYNC may return at once
   * @return the previous value, or {@link Outcome#TRUE}/{@link Outcome#FALSE} for conditional
   *     writes; null when an async write returned early
   */
  public byte[] write(Op op, byte[] key, byte[] value, byte[] expected, boolean mayReturnEarly) {
    checkOpen();
    return access.write(op, key, value, expected, mayReturnEarly);
  }

  /**
   * A put that, on the key's primary under SYNC replication, is applied and sent to the backups
   * before this returns and completes once they acknowledged it; elsewhere it runs as {@link
   * #write} and returns completed ({@link Writes#putAsync}).
   *
   * @param key the encoded key
   * @param value the encoded value
   * @return completes once the owners hold the value, or exceptionally as {@link #write} throws
   * @throws ClusterDegradedException if this member is on a minority side (quorum)
   */
  public CompletableFuture<Void> putAsync(byte[] key, byte[] value) {
    checkOpen();
    return access.putAsync(key, value);
  }

  /** See {@link dev.larder.cluster.ClusteredCache#holdBackups}. */
  public void holdBackups() {
    messenger.hold();
  }

  /** See {@link dev.larder.cluster.ClusteredCache#sendHeldBackups}. */
  public void sendHeldBackups() {
    messenger.sendHeld();
  }

  /** Returns the values this member's store took that the engine's hooks count (see LocalStore). */
  public long countedValuesStored() {
    return store.countedStored();
  }

  /**
   * Removes every entry on every member (not atomic with concurrent writes).
   *
   * @throws ClusterDegradedException if this member is on a minority side (quorum)
   */
  public void clear() {
    checkOpen();
    quorum.checkWrite();
    long mark = quorum.mark();
    wholeCache.clear();
    // members that left instead of answering, while this member lost its majority, are on the
    // side that keeps its entries at the merge: the clear did not happen there
    quorum.checkAvailableSince(mark, "clear");
  }

  /** Returns the number of entries in the cluster (each counted once, by its primary). */
  public long count() {
    checkOpen();
    return wholeCache.count();
  }

  /**
   * Returns every entry of the cluster, each once (from its primary), as alternating encoded keys
   * and values; a snapshot, weakly consistent with concurrent writes and rebalances.
   */
  public List<byte[]> entries() {
    checkOpen();
    return wholeCache.entries();
  }

  /** A removal in this member's store (its listener); see {@link RemovalReporting}. */
  void onLocalRemoval(byte[] key, byte[] value, RemovalCause cause) {
    removals.onStoreRemoval(key, value, cause);
  }

  private void checkOpen() {
    lifecycle.checkOpen();
    if (dictionary != null) {
      dictionary.check();
    }
  }

  /** Returns this member's store of encoded entries. */
  Cache<byte[], byte[]> local() {
    return store.entries;
  }

  /** Returns the deadline of an operation starting now. */
  long deadline() {
    return messenger.deadline();
  }

  /** Returns the dictionary replication, or null without a dictionary. */
  DictionarySync dictionarySync() {
    return dictionary;
  }

  // ---------------------------------------------------------------- state

  /**
   * Returns the names of the current view's members, coordinator first; empty before this member's
   * first view.
   */
  public List<String> members() {
    return membership.topology() == null ? List.of() : membership.members();
  }

  /** Returns this member's name. */
  public String name() {
    return membership.name();
  }

  /** Returns the number of segments this member owns or is receiving. */
  public int ownedSegments() {
    lifecycle.checkJoined();
    return membership.ownedSegments();
  }

  /** Returns true if a key's segment is owned here (in invalidation mode: always). */
  public boolean ownsKey(byte[] key) {
    lifecycle.checkJoined();
    return membership.ownsKey(key);
  }

  /** Returns true if this member is the key's primary (in invalidation mode: never). */
  public boolean isPrimary(byte[] key) {
    lifecycle.checkJoined();
    return membership.isPrimary(key);
  }

  /** Returns the names of a segment's owners in the current view, primary first. */
  public List<String> segmentOwners(int segment) {
    Topology t = membership.topology();
    if (config.mode() == ClusterMode.INVALIDATION || t == null) {
      return List.of();
    }
    return Messenger.names(t.hash().owners(segment));
  }

  /**
   * Sets the receiver of other members' messages and of views (see {@link MemberMessages}).
   *
   * @throws IllegalStateException if one was set already
   */
  public void onMessages(MemberMessages receiver) {
    messaging.onMessages(receiver);
  }

  /**
   * Sends an application's message to every other member of the current view.
   *
   * @param payload the bytes
   * @param await wait until each has handed it to its receiver or left
   * @throws ClusterTimeoutException if awaiting and a member did not answer in time
   */
  public void broadcast(byte[] payload, boolean await) {
    messaging.broadcast(payload, await);
  }

  /** Returns the attributes a member of the current view joined with; empty if none. */
  public Map<String, String> memberAttributes(String member) {
    Topology t = membership.topology();
    if (t == null) {
      return Map.of();
    }
    for (Address a : t.view().getMembers()) {
      if (Messenger.name(a).equals(member)) {
        return MemberAttributes.of(a);
      }
    }
    return Map.of();
  }

  /**
   * Returns this member's own store: encoded keys and values (without expiry stamps), expired ones
   * left out; weakly consistent.
   */
  public Iterator<Map.Entry<byte[], byte[]>> localEntries() {
    Iterator<Map.Entry<byte[], byte[]>> all = store.entries.asMap().entrySet().iterator();
    return new Iterator<>() {
      private Map.Entry<byte[], byte[]> next = advance();

      private Map.Entry<byte[], byte[]> advance() {
        while (all.hasNext()) {
          Map.Entry<byte[], byte[]> e = all.next();
          byte[] value = store.live(e.getValue());
          if (value != null) {
            return Map.entry(e.getKey(), value);
          }
        }
        return null;
      }

      @Override
      public boolean hasNext() {
        return next != null;
      }

      @Override
      public Map.Entry<byte[], byte[]> next() {
        if (next == null) {
          throw new java.util.NoSuchElementException();
        }
        Map.Entry<byte[], byte[]> e = next;
        next = advance();
        return e;
      }
    };
  }

  /** Returns the near cache's counters, or {@link NearCacheStats#NONE} without one. */
  public NearCacheStats nearStats() {
    return near == null ? NearCacheStats.NONE : near.stats();
  }

  public RebalanceStats rebalanceStats() {
    return transfer.stats();
  }

  /**
   * Returns the single-key operations this member took and handed to other members: writes sent to
   * the key's primary, and reads its own copy could not answer (each attempt counts). A client that
   * routes every key to its primary, as a Redis Cluster client does, causes none.
   */
  public long forwarded() {
    return writes.forwarded() + reads.remote();
  }

  /** Returns async writes dropped because no primary could take them during a view change. */
  public long asyncDropped() {
    return writes.asyncDropped();
  }

  /**
   * Returns whether this member serves writes now: always under allow-all; under quorum, while its
   * view holds a majority of the stable members.
   */
  public boolean available() {
    return quorum.available();
  }

  /** Returns the names of the stable members this member counts a majority of (quorum). */
  public List<String> stableMembers() {
    return quorum.state().stable();
  }

  /**
   * Returns the segments this member waits for because every member holding their newest record
   * left (a durable member; none otherwise).
   */
  public List<Integer> waitingSegments() {
    checkOpen();
    return waiting.here();
  }

  /**
   * Gives up, on every member, the records the waiting segments wait for: each starts empty.
   *
   * @return the segments given up
   * @throws ClusterDegradedException if this member is on a minority side (quorum)
   */
  public List<Integer> abandonWaitingSegments() {
    checkOpen();
    quorum.checkWrite();
    return waiting.abandonEverywhere();
  }

  /** Returns merges in which this member's side lost and dropped its entries. */
  public long mergesLost() {
    return membership.mergesLost();
  }

  /**
   * Waits until this member holds every segment it owns.
   *
   * @param timeoutNanos how long to wait
   * @return true if it does
   */
  public boolean awaitRebalanced(long timeoutNanos) {
    return transfer.awaitRebalanced(timeoutNanos);
  }

  /** Returns the JGroups channel (tests insert protocols such as DISCARD into its stack). */
  public JChannel channel() {
    return channel;
  }

  /**
   * Tells every other member of the view that this one is closing on purpose (LEAVE), so that they
   * stop counting it among the stable members, and waits for their acks (a little: a member that
   * does not answer keeps counting this one, which costs availability, never safety). The acks
   * matter: a LEAVE that reached a member after the view without this one would be dropped there as
   * coming from a non-member.
   */
  private void announceLeave() {
    Topology t = membership.topology();
    if (t == null) {
      return;
    }
    java.util.Set<Address> others = new java.util.HashSet<>(t.members());
    others.remove(membership.self());
    if (others.isEmpty()) {
      return;
    }
    Calls.Call call = messenger.open(others);
    try {
      Frame leave =
          new Frame(
              Frame.T_LEAVE,
              call.id,
              t.viewId(),
              0,
              0,
              null,
              null,
              null,
              Frame.NO_INTS,
              List.of(),
              List.of());
      for (Address a : others) {
        messenger.send(a, leave, true);
      }
      call.await(System.nanoTime() + Math.min(config.timeout().toNanos(), 2_000_000_000L));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      messenger.close(call);
    }
  }

  /** A member said it is closing (LEAVE, on the delivery thread): see {@link Quorum#onLeave}. */
  private void onLeave(Address from, Frame f) {
    Topology t = membership.topology();
    quorum.onLeave(Messenger.name(from));
    messenger.reply(
        from, f.reqId(), Frame.reply(f.reqId(), t == null ? 0 : t.viewId(), Frame.S_OK, null));
  }

  /**
   * Leaves the cluster and closes the local store. Idempotent. Until the channel is closed this
   * member keeps acknowledging backup writes, so that writes in flight on other members do not wait
   * for it until their timeout.
   */
  @Override
  public synchronized void close() {
    if (!lifecycle.beginClose()) {
      return;
    }
    if (config.partitionHandling() == PartitionHandling.QUORUM) {
      announceLeave();
    }
    channel.close();
    lifecycle.markClosed();
    membership.wakeWaiters();
    transfer.close();
    workers.shutdownNow();
    store.close();
    if (near != null) {
      near.close();
    }
  }
}
