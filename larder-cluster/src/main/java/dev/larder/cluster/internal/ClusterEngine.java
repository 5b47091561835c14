package dev.larder.cluster.internal;

import dev.larder.Cache;
import dev.larder.RemovalCause;
import dev.larder.cluster.ClusterConfig;
import dev.larder.cluster.ClusterException;
import dev.larder.cluster.ClusterMode;
import dev.larder.cluster.ClusterTimeoutException;
import dev.larder.cluster.NearCacheStats;
import dev.larder.cluster.RebalanceStats;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.jgroups.JChannel;

/**
 * One member of a clustered cache: its JGroups channel and the pieces that make up the protocol,
 * assembled. Thread-safe.
 *
 * <p>Implementation notes. This class holds no protocol of its own; it joins, hands each call
 * to the piece that owns its concern, and closes. The pieces, each with its invariants and
 * concurrency argument in its own notes:
 * <ul>
 *   <li>{@link Membership}: views, the installed {@link Topology}, the view lock and waits;
 *       {@link MergeWinner} decides merges;
 *   <li>{@link Dispatcher}: what JGroups delivers, routed by frame type to the piece that handles
 *       it, on the delivery thread or a worker; {@link Messenger}: sending and awaiting replies;
 *   <li>{@link SegmentOwnership}: what this member holds of each segment, with the segment
 *       locks; {@link LocalStore}: its entries and their stored (stamped) form;
 *   <li>{@link KeyAccess}: reads and writes of single keys, by {@link Reads}, {@link Writes} and
 *       {@link Backups} in the owner modes, by {@link InvalidationAccess} in invalidation mode;
 *   <li>{@link WholeCache}: clear, count, listing; {@link StateTransfer}: moving segments to
 *       new owners; {@link DictionarySync}: the replicated value dictionary;
 *       {@link RemovalReporting}: which member reports which removal;
 *   <li>{@link Lifecycle}: open, closing, closed.
 * </ul>
 * Lock order, everywhere: the view lock's read side, then one segment lock. No thread waits
 * for another member while it holds either (sends under them queue: flow control is
 * non-blocking).
 */
public final class ClusterEngine implements AutoCloseable {

  private final ClusterConfig config;
  private final JChannel channel;
  private final Lifecycle lifecycle = new Lifecycle();
  private final ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();
  private final Membership membership;
  private final Messenger messenger;
  private final LocalStore store;
  private final RemovalReporting removals;
  /** Copies of non-owned keys, or null. */
  private final NearCache near;
  /** Keeps the value dictionary identical across members, or null. */
  private final DictionarySync dictionary;
  private final StateTransfer transfer;
  private final Writes writes;
  private final KeyAccess access;
  private final WholeCache wholeCache;
  private final Dispatcher dispatcher;

  private ClusterEngine(ClusterConfig config, Cache<byte[], byte[]> local, long memoryBound,
      JChannel channel, EngineHooks hooks) {
    this.config = config;
    this.channel = channel;
    SegmentOwnership segments = new SegmentOwnership(config.segments());
    boolean stamps = hooks.ttlMillis() > 0 && config.mode() != ClusterMode.INVALIDATION;
    this.near = hooks.nearEntries() > 0 && config.mode() == ClusterMode.DISTRIBUTED
        ? new NearCache(hooks.nearEntries()) : null;
    this.membership = new Membership(config, channel, segments, lifecycle);
    Calls calls = new Calls();
    this.messenger = new Messenger(config, channel, calls, membership, lifecycle);
    this.dictionary = hooks.dictionary() == null ? null
        : new DictionarySync(membership, messenger, workers, hooks.dictionary());
    this.store = new LocalStore(local, segments, stamps, hooks.clock(), hooks.ttlMillis());
    this.removals = new RemovalReporting(hooks.removals(), config.mode(), membership, segments,
        lifecycle, stamps);
    this.transfer = new StateTransfer(config.timeout(), membership, segments, store, messenger,
        dictionary, lifecycle, memoryBound);
    Reads reads = new Reads(membership, segments, store, messenger, near);
    Backups backups = new Backups(membership, segments, store, messenger, near, dictionary);
    this.writes = new Writes(config.replication(), membership, segments, store, messenger, reads,
        backups, removals, hooks.sameValue(), workers);
    InvalidationAccess invalidation = new InvalidationAccess(config.replication(), membership,
        segments, store, messenger, hooks.sameValue());
    this.access = config.mode() == ClusterMode.INVALIDATION ? invalidation
        : new OwnerAccess(reads, writes);
    this.wholeCache = new WholeCache(config.mode(), config.replication(), membership, segments,
        store, messenger, near);
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
      membership.onView(change -> dictionary.onView(change.topology(),
          MergeWinner.dictionaryReference(change.topology().view()), change.merge()));
    }
    membership.onView(change -> calls.retain(change.topology().members()));
    if (config.mode() != ClusterMode.INVALIDATION) {
      membership.onView(change -> transfer.onView(change.topology(), change.incoming()));
    }
  }

  /** Which piece handles each frame type, and on which thread (see {@link Dispatcher}). */
  private void route(Reads reads, Backups backups, InvalidationAccess invalidation) {
    dispatcher
        .onDelivery(Frame.T_WRITE, writes::onWrite, writes::onWriteBeforeFirstView)
        .onDelivery(Frame.T_BACKUP, backups::onBackup)
        .onWorker(Frame.T_READ, reads::onRead)
        .onDelivery(Frame.T_NEAR_INVALIDATE, reads::onNearInvalidate,
            reads::onNearInvalidateBeforeFirstView)
        .onDelivery(Frame.T_INVALIDATE, invalidation::onInvalidate)
        .onWorker(Frame.T_PULL, transfer::onPull, transfer::refuse)
        .onDelivery(Frame.T_STATE, transfer::onState, Dispatcher::drop)
        .onWorker(Frame.T_CLEAR, wholeCache::onClear)
        .onWorker(Frame.T_SCAN, wholeCache::onScan)
        .onDelivery(Frame.T_DICT, dictionary != null ? dictionary::onDelivery
            : (from, f) -> messenger.reply(from, f.reqId(), Frame.reply(f.reqId(),
                membership.topology().viewId(), Frame.S_ERROR,
                "this member has no value dictionary".getBytes(StandardCharsets.UTF_8))));
  }

  /**
   * Opens a channel on the configured stack and joins the cluster.
   *
   * @param config the cluster settings
   * @param local the local store of encoded keys and values; owned (and closed) by the engine
   * @param memoryBound the local store's bound in bytes, or Long.MAX_VALUE
   * @param hooks expiry, removal reporting and near cache settings
   * @return the joined member
   * @throws ClusterException if the stack cannot be read or the channel cannot connect
   */
  public static ClusterEngine start(ClusterConfig config, Cache<byte[], byte[]> local,
      long memoryBound, EngineHooks hooks) {
    JChannel channel;
    try (InputStream stack = openStack(config.stack())) {
      channel = new JChannel(stack);
    } catch (Exception e) {
      throw new ClusterException("cannot build the JGroups stack " + config.stack() + ": " + e, e);
    }
    if (config.nodeName() != null) {
      channel.name(config.nodeName());
    }
    String settings = SettingsToken.describe(config, hooks);
    SettingsToken.install(channel, settings);
    ClusterEngine engine = new ClusterEngine(config, local, memoryBound, channel, hooks);
    channel.setReceiver(engine.dispatcher);
    try {
      channel.connect(config.clusterName());
    } catch (Exception e) {
      channel.close();
      engine.workers.shutdownNow();
      if (e instanceof SecurityException) {
        throw new ClusterException("cluster " + config.clusterName() + " refused this member:"
            + " its settings [" + settings + "] differ from the running members' (every member"
            + " must use the same; the coordinator's log names its own)", e);
      }
      throw new ClusterException("cannot join cluster " + config.clusterName() + ": " + e, e);
    }
    engine.awaitInitialMembers();
    return engine;
  }

  /**
   * Waits until the view holds {@link ClusterConfig#initialClusterSize} members; on timeout
   * leaves the cluster and throws. The callers' writes cannot reach this member before it
   * returns, and its own view of a cluster it founded alone holds nothing.
   */
  private void awaitInitialMembers() {
    int wanted = config.initialClusterSize();
    boolean reached;
    try {
      reached = membership.awaitTopology(t -> t.members().size() >= wanted,
          System.nanoTime() + config.initialClusterTimeout().toNanos());
    } catch (ClusterException e) {
      close();
      throw e;
    }
    if (!reached) {
      Topology t = membership.topology();
      String message = name() + " saw " + (t == null ? 0 : t.members().size()) + " of the "
          + wanted + " members it waits for (initialClusterSize) in cluster "
          + config.clusterName() + " within " + config.initialClusterTimeout();
      close();
      throw new ClusterException(message);
    }
  }

  private static InputStream openStack(String stack) throws IOException {
    InputStream in = ClusterEngine.class.getClassLoader() == null ? null
        : ClusterEngine.class.getResourceAsStream("/" + stack);
    if (in == null) {
      in = Thread.currentThread().getContextClassLoader() == null ? null
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
   * Executes a write on the key's owners (in invalidation mode: here, then invalidates it on
   * every other member).
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

  /** Removes every entry on every member (not atomic with concurrent writes). */
  public void clear() {
    checkOpen();
    wholeCache.clear();
  }

  /** @return the number of entries in the cluster (each counted once, by its primary) */
  public long count() {
    checkOpen();
    return wholeCache.count();
  }

  /**
   * @return every entry of the cluster, each once (from its primary), as alternating encoded keys
   *     and values; a snapshot, weakly consistent with concurrent writes and rebalances
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

  /** @return this member's store of encoded entries */
  Cache<byte[], byte[]> local() {
    return store.entries;
  }

  /** @return the deadline of an operation starting now */
  long deadline() {
    return messenger.deadline();
  }

  /** @return the dictionary replication, or null without a dictionary */
  DictionarySync dictionarySync() {
    return dictionary;
  }

  // ---------------------------------------------------------------- state

  /** @return the names of the current view's members, coordinator first */
  public List<String> members() {
    return membership.members();
  }

  /** @return this member's name */
  public String name() {
    return membership.name();
  }

  /** @return the number of segments this member owns or is receiving */
  public int ownedSegments() {
    return membership.ownedSegments();
  }

  /** @return true if a key's segment is owned here (in invalidation mode: always) */
  public boolean ownsKey(byte[] key) {
    return membership.ownsKey(key);
  }

  /** @return true if this member is the key's primary (in invalidation mode: never) */
  public boolean isPrimary(byte[] key) {
    return membership.isPrimary(key);
  }

  /** @return the near cache's counters, or {@link NearCacheStats#NONE} without one */
  public NearCacheStats nearStats() {
    return near == null ? NearCacheStats.NONE : near.stats();
  }

  public RebalanceStats rebalanceStats() {
    return transfer.stats();
  }

  /** @return async writes dropped because no primary could take them during a view change */
  public long asyncDropped() {
    return writes.asyncDropped();
  }

  /** @return merges in which this member's side lost and dropped its entries */
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

  /** @return the JGroups channel (tests insert protocols such as DISCARD into its stack) */
  public JChannel channel() {
    return channel;
  }

  /**
   * Leaves the cluster and closes the local store. Idempotent. Until the channel is closed this
   * member keeps acknowledging backup writes, so that writes in flight on other members do not
   * wait for it until their timeout.
   */
  @Override
  public synchronized void close() {
    if (!lifecycle.beginClose()) {
      return;
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
