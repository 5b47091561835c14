package dev.larder.cluster.internal;

import dev.larder.Cache;
import dev.larder.RemovalCause;
import dev.larder.cluster.ClusterConfig;
import dev.larder.cluster.ClusterException;
import dev.larder.cluster.ClusterMode;
import dev.larder.cluster.ClusterTimeoutException;
import dev.larder.cluster.NearCacheStats;
import dev.larder.cluster.RebalanceStats;
import dev.larder.cluster.Replication;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Predicate;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.MergeView;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.jgroups.View;

/**
 * One member of a clustered cache: its JGroups channel, its local store of encoded entries, and
 * the protocol that keeps owners in step. Thread-safe.
 *
 * <p>Implementation notes.
 * <ul>
 *   <li><b>Writes</b> go to the key's primary (in the caller's view). The primary checks that it
 *       is in the same view (a caller with an older view is told to retry once it has the new
 *       one), then, under the segment lock, applies the write locally and sends it to each backup
 *       as a regular (per-sender FIFO) JGroups message. Holding the segment lock while sending
 *       gives every key one order of writes, and FIFO delivery keeps that order on every backup,
 *       for SYNC and ASYNC alike. A SYNC write waits, outside the lock, for every backup's ack;
 *       a backup whose view is newer than the write's refuses it, and the caller retries in the
 *       new view.
 *   <li><b>Threads</b>: regular messages (backup writes, state chunks, invalidations, async
 *       writes) are applied on JGroups' delivery thread and never block on another member.
 *       Requests that may wait (sync writes, reads, pulls, clears, scans) are sent out-of-band
 *       and run on virtual threads, so a waiting request never holds up the ordered stream
 *       that would answer it.
 *   <li><b>Views</b> are installed under the topology write lock, which every local write holds
 *       for reading: a write uses one view from check to send. Members that left are dropped
 *       from every outstanding call. Segment states and state transfer: {@link SegmentTable}
 *       and {@link StateTransfer}.
 *   <li><b>Merges</b>: on a {@link MergeView}, members of every subgroup but the largest (ties:
 *       the one holding the merged view's coordinator) drop all their segments and receive them
 *       again from the winning side; writes made on the other sides during the partition are
 *       lost.
 * </ul>
 */
public final class ClusterEngine implements Receiver, AutoCloseable {

  private static final System.Logger LOG = System.getLogger(ClusterEngine.class.getName());
  private static final byte[] TRUE = {1};
  private static final byte[] FALSE = {0};
  private static final int MAX_HOPS = 3;

  final ClusterConfig config;
  final Cache<byte[], byte[]> local;
  final EngineHooks hooks;
  /** True if stored values carry an expiry stamp (expiry on, and owners hold the entries). */
  private final boolean stamps;
  /** Copies of non-owned keys, or null. */
  private final NearCache near;
  /**
   * The newest view a near invalidation came from: a write of that view happened, so until this
   * member installs it, an owner of its older view may answer with a value that write replaced,
   * and no reply is kept.
   */
  private final AtomicLong nearBlockedBelow = new AtomicLong();
  /** Keeps the value dictionary identical across members, or null. */
  private final DictionarySync dictionary;
  final SegmentTable table;
  final Calls calls = new Calls();
  final ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();
  private final JChannel channel;
  private final StateTransfer transfer;
  private final ReentrantReadWriteLock topologyLock = new ReentrantReadWriteLock();
  private final Object viewMonitor = new Object();
  private final AtomicLong asyncDropped = new AtomicLong();
  private final AtomicLong mergesLost = new AtomicLong();
  private volatile Topology topology;
  /** Set first on close: calls on this member are refused, messages still handled. */
  private volatile boolean closing;
  /** Set once the channel is closed: messages are dropped. */
  private volatile boolean closed;

  private ClusterEngine(ClusterConfig config, Cache<byte[], byte[]> local, long memoryBound,
      JChannel channel, EngineHooks hooks) {
    this.config = config;
    this.local = local;
    this.hooks = hooks;
    this.stamps = hooks.ttlMillis() > 0 && config.mode() != ClusterMode.INVALIDATION;
    this.near = hooks.nearEntries() > 0 && config.mode() == ClusterMode.DISTRIBUTED
        ? new NearCache(hooks.nearEntries()) : null;
    this.dictionary = hooks.dictionary() == null ? null
        : new DictionarySync(this, hooks.dictionary());
    this.channel = channel;
    this.table = new SegmentTable(config.segments());
    this.transfer = new StateTransfer(this, memoryBound);
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
    channel.setReceiver(engine);
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
      reached = awaitTopology(t -> t.members().size() >= wanted,
          System.nanoTime() + config.initialClusterTimeout().toNanos());
    } catch (ClusterException e) {
      close();
      throw e;
    }
    if (!reached) {
      Topology t = topology;
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

  // ---------------------------------------------------------------- views

  @Override
  public void viewAccepted(View view) {
    List<Integer> incoming = new ArrayList<>();
    Topology installed;
    topologyLock.writeLock().lock();
    try {
      Topology old = topology;
      Address self = channel.getAddress();
      boolean lostMerge = lostMerge(view, self);
      if (lostMerge) {
        mergesLost.incrementAndGet();
      }
      ConsistentHash hash = new ConsistentHash(view.getMembers(), config.segments(), ownerCount());
      installed = Topology.of(view, hash, old == null ? null : old.hash());
      boolean founder = old == null && view.size() == 1;
      if (config.mode() != ClusterMode.INVALIDATION) {
        for (int s = 0; s < table.size(); s++) {
          if (assign(s, hash.isOwner(self, s), founder, lostMerge, installed.viewId())) {
            incoming.add(s);
          }
        }
      }
      topology = installed;
    } finally {
      topologyLock.writeLock().unlock();
    }
    if (near != null) {
      // ownership changed: the primaries that would invalidate the copies may have changed
      near.flush();
    }
    if (dictionary != null) {
      dictionary.onView(installed, dictionaryReference(installed.view()),
          installed.view() instanceof MergeView);
    }
    calls.retain(installed.members());
    synchronized (viewMonitor) {
      viewMonitor.notifyAll();
    }
    if (config.mode() != ClusterMode.INVALIDATION) {
      transfer.onView(installed, incoming);
    }
  }

  /** Sets a segment's state for a new view; returns true if the segment must be received. */
  private boolean assign(int s, boolean owner, boolean founder, boolean lostMerge, long viewId) {
    table.lock(s);
    try {
      SegmentTable.State state = lostMerge ? SegmentTable.State.NONE : table.state(s);
      if (owner) {
        if (founder || state == SegmentTable.State.OWNED) {
          table.set(s, SegmentTable.State.OWNED, viewId);
          return false;
        }
        if (state != SegmentTable.State.INCOMING) {
          table.set(s, SegmentTable.State.INCOMING, viewId);
        }
        return true;
      }
      table.set(s, state == SegmentTable.State.OWNED ? SegmentTable.State.RETIRED
          : SegmentTable.State.NONE, viewId);
      return false;
    } finally {
      table.unlock(s);
    }
  }

  /**
   * Whether this member's side lost a merge. The winner is the largest subgroup; among equally
   * large ones, the one holding the merged view's coordinator, else the one whose first member
   * comes first in the merged view. Every member sees the same MergeView, so all agree.
   */
  static boolean lostMerge(View view, Address self) {
    View winner = mergeWinner(view);
    return winner != null && !winner.containsMember(self);
  }

  /** @return the subgroup of a merge view whose entries win, or null if not a merge view */
  static View mergeWinner(View view) {
    if (!(view instanceof MergeView merge)) {
      return null;
    }
    View winner = null;
    for (View sub : merge.getSubgroups()) {
      if (winner == null || beats(sub, winner, view)) {
        winner = sub;
      }
    }
    return winner;
  }

  /**
   * The member whose value dictionary is the reference after this view: the coordinator; after
   * a merge, the first member (in the merged view's order) of the winning side, since its
   * entries, written with its side's ids, are the ones every member keeps.
   */
  static Address dictionaryReference(View view) {
    View winner = mergeWinner(view);
    if (winner != null) {
      for (Address a : view.getMembers()) {
        if (winner.containsMember(a)) {
          return a;
        }
      }
    }
    return view.getCoord();
  }

  private static boolean beats(View a, View b, View merged) {
    if (a.size() != b.size()) {
      return a.size() > b.size();
    }
    boolean aCoord = a.containsMember(merged.getCoord());
    if (aCoord != b.containsMember(merged.getCoord())) {
      return aCoord;
    }
    List<Address> order = merged.getMembers();
    return order.indexOf(a.getCoord()) < order.indexOf(b.getCoord());
  }

  private int ownerCount() {
    return switch (config.mode()) {
      case REPLICATED -> Integer.MAX_VALUE;
      case DISTRIBUTED -> config.owners();
      case INVALIDATION -> 1;
    };
  }

  Topology topology() {
    return topology;
  }

  Address self() {
    return channel.getAddress();
  }

  /** Waits until the installed view id is at least {@code viewId}, or the deadline. */
  void awaitView(long viewId, long deadlineNanos) {
    awaitTopology(t -> t.viewId() >= viewId, deadlineNanos);
  }

  /**
   * Waits until the installed topology satisfies {@code ready}, the deadline passes or this
   * member closes.
   *
   * @return true if it does
   * @throws ClusterException if interrupted
   */
  private boolean awaitTopology(Predicate<Topology> ready, long deadlineNanos) {
    synchronized (viewMonitor) {
      while ((topology == null || !ready.test(topology)) && !closed) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(viewMonitor, Math.min(left, 50_000_000L));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new ClusterException("interrupted while waiting for a view", e);
        }
      }
      return topology != null && ready.test(topology);
    }
  }

  /** Waits a little for a view newer than {@code viewId}: the caller is about to retry. */
  private void awaitNewerView(long viewId, long deadlineNanos) {
    awaitView(viewId + 1, Math.min(deadlineNanos, System.nanoTime() + 20_000_000L));
  }

  // ---------------------------------------------------------------- messaging

  @Override
  public void receive(Message msg) {
    if (closed) {
      return;
    }
    Frame f;
    try {
      f = Frame.decode(msg.getArray(), msg.getOffset(), msg.getLength());
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "dropping a malformed frame from " + msg.getSrc(), e);
      return;
    }
    Address from = msg.getSrc();
    if (topology == null && f.type() != Frame.T_REPLY) {
      refuseBeforeFirstView(from, f);
      return;
    }
    switch (f.type()) {
      case Frame.T_REPLY -> calls.reply(from, f);
      case Frame.T_BACKUP -> onBackup(from, f);
      case Frame.T_INVALIDATE -> onInvalidate(from, f);
      case Frame.T_STATE -> transfer.onState(from, f);
      case Frame.T_WRITE -> {
        if ((f.flags() & Frame.F_ASYNC) != 0) {
          try {
            onAsyncWrite(f);
          } catch (RuntimeException e) {
            asyncDropped.incrementAndGet();
            LOG.log(System.Logger.Level.WARNING, "async write from " + from + " failed", e);
          }
        } else {
          workers.execute(() -> reply(from, f.reqId(), onSyncWrite(f)));
        }
      }
      case Frame.T_READ -> workers.execute(() -> reply(from, f.reqId(), onRead(f)));
      case Frame.T_PULL -> workers.execute(() -> transfer.onPull(from, f));
      case Frame.T_CLEAR -> workers.execute(() -> {
        local.invalidateAll();
        if (near != null) {
          near.flush();
        }
        reply(from, f.reqId(), Frame.reply(f.reqId(), topology.viewId(), Frame.S_OK, null));
      });
      case Frame.T_SCAN -> workers.execute(() -> reply(from, f.reqId(), onScan(f)));
      case Frame.T_NEAR_INVALIDATE -> onNearInvalidate(from, f);
      case Frame.T_DICT -> {
        if (dictionary == null) {
          reply(from, f.reqId(), Frame.reply(f.reqId(), topology.viewId(), Frame.S_ERROR,
              "this member has no value dictionary".getBytes(StandardCharsets.UTF_8)));
        } else if (f.flags() == DictionarySync.OP_ADD) {
          dictionary.onFrame(from, f);
        } else {
          workers.execute(() -> dictionary.onFrame(from, f));
        }
      }
      default -> LOG.log(System.Logger.Level.WARNING, "unknown frame type " + f.type());
    }
  }

  /**
   * A joiner can receive messages from members that installed the view with it before it has
   * installed that view itself: requests are told to retry, pulls that nothing is ready here.
   */
  private void refuseBeforeFirstView(Address from, Frame f) {
    switch (f.type()) {
      case Frame.T_PULL -> transfer.refuse(from, f);
      // nothing is cached before the first view
      case Frame.T_NEAR_INVALIDATE -> reply(from, f.reqId(), Frame.reply(f.reqId(), 0, Frame.S_OK,
          null));
      case Frame.T_WRITE, Frame.T_BACKUP, Frame.T_READ, Frame.T_INVALIDATE, Frame.T_CLEAR,
          Frame.T_SCAN, Frame.T_DICT -> {
        if (f.reqId() != 0) {
          reply(from, f.reqId(), Frame.reply(f.reqId(), 0, Frame.S_RETRY, null));
        } else if (f.type() == Frame.T_WRITE) {
          asyncDropped.incrementAndGet();
        }
      }
      default -> { }
    }
  }

  void send(Address to, Frame f, boolean outOfBand) {
    Message msg = new BytesMessage(to, f.encode());
    if (outOfBand) {
      msg.setFlag(Message.Flag.OOB);
    }
    try {
      channel.send(msg);
    } catch (Exception e) {
      if (!closed) {
        LOG.log(System.Logger.Level.DEBUG, "send to " + to + " failed: " + e);
      }
    }
  }

  /** Sends a frame to every other member (regular: FIFO per sender). */
  void multicast(Frame f) {
    Message msg = new BytesMessage(null, f.encode());
    msg.setFlag(Message.TransientFlag.DONT_LOOPBACK);
    try {
      channel.send(msg);
    } catch (Exception e) {
      if (!closed) {
        LOG.log(System.Logger.Level.DEBUG, "multicast failed: " + e);
      }
    }
  }

  /**
   * Sends a request and waits for its reply until the cluster timeout.
   *
   * @return the reply; null if the member left; a synthetic S_TIMEOUT reply on timeout
   */
  Frame callFor(Address to, Frame request) {
    return call(to, request, deadline());
  }

  void reply(Address to, long reqId, Frame reply) {
    if (reqId != 0) {
      send(to, new Frame(Frame.T_REPLY, reqId, reply.viewId(), reply.op(), reply.flags(), null,
          reply.value(), null, reply.ints(), reply.names(), reply.entries()), true);
    }
  }

  /**
   * Sends one request and waits for its reply.
   *
   * @return the reply, or null if {@code to} left the view, or a synthetic S_TIMEOUT reply
   */
  private Frame call(Address to, Frame request, long deadlineNanos) {
    Calls.Call call = calls.open(Set.of(to));
    try {
      send(to, withReqId(request, call.id), true);
      if (!call.await(deadlineNanos)) {
        return Frame.reply(0, 0, Frame.S_TIMEOUT, null).withNames(List.of(to.toString()));
      }
      return call.replies().get(to);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClusterException("interrupted", e);
    } finally {
      calls.close(call);
    }
  }

  private static Frame withReqId(Frame f, long reqId) {
    return new Frame(f.type(), reqId, f.viewId(), f.op(), f.flags(), f.key(), f.value(),
        f.expected(), f.ints(), f.names(), f.entries());
  }

  long deadline() {
    return System.nanoTime() + config.timeout().toNanos();
  }

  int segmentOf(byte[] key) {
    return ConsistentHash.segmentOf(key, config.segments());
  }

  // ---------------------------------------------------------------- reads

  /**
   * Reads a key: locally when this member's value is current, otherwise from an owner.
   *
   * @return the value, or null if absent
   * @throws ClusterTimeoutException if no owner could answer within the timeout
   */
  public byte[] get(byte[] key) {
    checkOpen();
    if (config.mode() == ClusterMode.INVALIDATION) {
      return local.getIfPresent(key);
    }
    long deadline = deadline();
    int s = segmentOf(key);
    ByteKey bk = new ByteKey(key);
    while (true) {
      Topology t = topology;
      table.lock(s);
      try {
        if (table.authoritative(s, bk)) {
          return live(local.getIfPresent(key));
        }
      } finally {
        table.unlock(s);
      }
      if (near != null && !t.hash().isOwner(self(), s)) {
        byte[] copy = live(near.get(key));
        if (copy != null) {
          return copy;
        }
        long version = near.version(key);
        Frame p = readPrimary(t, s, key, deadline);
        if (p != null) {
          if (p.value() != null) {
            near.offer(key, p.value(), version,
                () -> topology == t && t.viewId() >= nearBlockedBelow.get());
          }
          return live(p.value());
        }
      }
      Frame r = readRemote(t, s, key, deadline);
      if (r != null) {
        return live(r.value());
      }
      if (System.nanoTime() >= deadline) {
        throw new ClusterTimeoutException("read", names(t.hash().owners(s)));
      }
      awaitNewerView(t.viewId(), deadline);
    }
  }

  /** Asks each other owner in turn; returns the first authoritative reply, or null. */
  private Frame readRemote(Topology t, int s, byte[] key, long deadline) {
    Frame request = new Frame(Frame.T_READ, 0, t.viewId(), 0, 0, key, null, null, Frame.NO_INTS,
        List.of(), List.of());
    for (Address owner : t.hash().owners(s)) {
      if (owner.equals(self())) {
        continue;
      }
      Frame r = call(owner, request, deadline);
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
    if (primary.equals(self())) {
      return null;
    }
    Frame r = call(primary, new Frame(Frame.T_READ, 0, t.viewId(), 0, 0, key, null, null,
        Frame.NO_INTS, List.of(), List.of()), deadline);
    return r != null && r.op() == Frame.S_OK ? r : null;
  }

  /** A primary wrote a key this member does not own: drop its copy. */
  private void onNearInvalidate(Address from, Frame f) {
    if (near != null) {
      near.invalidate(f.key());
      if (f.viewId() > topology.viewId()) {
        nearBlockedBelow.accumulateAndGet(f.viewId(), Math::max);
      }
    }
    reply(from, f.reqId(), Frame.reply(f.reqId(), topology.viewId(), Frame.S_OK, null));
  }

  private Frame onRead(Frame f) {
    Topology t = topology;
    if (f.viewId() != t.viewId()) {
      return Frame.reply(f.reqId(), t.viewId(), Frame.S_NOT_AUTHORITATIVE, null);
    }
    int s = segmentOf(f.key());
    table.lock(s);
    try {
      if (!table.authoritative(s, new ByteKey(f.key()))) {
        return Frame.reply(f.reqId(), t.viewId(), Frame.S_NOT_AUTHORITATIVE, null);
      }
      return Frame.reply(f.reqId(), t.viewId(), Frame.S_OK, local.getIfPresent(f.key()));
    } finally {
      table.unlock(s);
    }
  }

  // ---------------------------------------------------------------- writes

  /**
   * Executes a write on the key's owners.
   *
   * @param op the write
   * @param key the encoded key
   * @param value the encoded new value (null for removals)
   * @param expected the encoded expected value of REPLACE_IF and REMOVE_IF
   * @param mayReturnEarly true if the write returns nothing, so ASYNC may return at once
   * @return the previous value, or {@link #TRUE}/{@link #FALSE} for conditional writes; null when
   *     an async write returned early
   */
  public byte[] write(Op op, byte[] key, byte[] value, byte[] expected, boolean mayReturnEarly) {
    checkOpen();
    boolean async = mayReturnEarly && config.replication() == Replication.ASYNC;
    if (config.mode() == ClusterMode.INVALIDATION) {
      return invalidatingWrite(op, key, value, expected, async);
    }
    long deadline = deadline();
    int s = segmentOf(key);
    while (true) {
      Topology t = topology;
      Address primary = t.hash().primary(s);
      Frame request = new Frame(Frame.T_WRITE, 0, t.viewId(), op.ordinal(),
          (async ? Frame.F_ASYNC : 0) | (mayReturnEarly ? Frame.F_NO_RESULT : 0), key, value,
          expected, writeInts(), List.of(), List.of());
      Frame r;
      if (primary.equals(self())) {
        r = executeAsPrimary(request, !async, deadline);
      } else if (async) {
        send(primary, request, false);
        return null;
      } else {
        r = call(primary, request, deadline);
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
        throw new ClusterTimeoutException(op + " write", List.of(primary.toString()));
      }
      awaitNewerView(t.viewId(), deadline);
    }
  }

  private Frame onSyncWrite(Frame f) {
    try {
      return executeAsPrimary(f, true, deadline());
    } catch (RuntimeException e) {
      return Frame.reply(f.reqId(), 0, Frame.S_ERROR,
          String.valueOf(e.getMessage()).getBytes(StandardCharsets.UTF_8));
    }
  }

  /** An async write, on the delivery thread: execute if primary here, else pass it on. */
  private void onAsyncWrite(Frame f) {
    Topology t = topology;
    int s = segmentOf(f.key());
    Address primary = t.hash().primary(s);
    // ints[0] counts the hops; the dictionary sizes after it travel on unchanged
    int[] ints = f.ints().length > 0 ? f.ints().clone() : new int[1];
    ints[0]++;
    Frame here = new Frame(f.type(), 0, t.viewId(), f.op(), f.flags(), f.key(), f.value(),
        f.expected(), ints, List.of(), List.of());
    if (primary.equals(self())) {
      Frame r = executeAsPrimary(here, false, deadline());
      if (r.op() != Frame.S_OK) {
        asyncDropped.incrementAndGet();
      }
    } else if (here.ints()[0] <= MAX_HOPS) {
      send(primary, here, false);
    } else {
      asyncDropped.incrementAndGet();
    }
  }

  /**
   * Runs a write on this member as the key's primary: check the view, apply under the segment
   * lock, send to the backups, and (if asked) wait for their acks.
   */
  private Frame executeAsPrimary(Frame f, boolean waitForBackups, long deadline) {
    if (f.viewId() > topology.viewId() && waitForBackups) {
      awaitView(f.viewId(), deadline);
    }
    Topology t = topology;
    int s = segmentOf(f.key());
    if (f.viewId() != t.viewId() || !t.hash().primary(s).equals(self())) {
      return Frame.reply(f.reqId(), t.viewId(), Frame.S_RETRY, null);
    }
    if (!knowsDictionaryIdsOf(f)) {
      return Frame.reply(f.reqId(), t.viewId(), Frame.S_RETRY, null);
    }
    Op op = Op.of(f.op());
    ByteKey bk = new ByteKey(f.key());
    Frame fetched = null;
    if (op.readsCurrent() && !currentKnown(s, bk)) {
      fetched = readRemote(t, s, f.key(), deadline);
      if (fetched == null) {
        return Frame.reply(f.reqId(), t.viewId(), Frame.S_RETRY, null);
      }
    }
    Calls.Call call = null;
    byte[] result;
    topologyLock.readLock().lock();
    table.lock(s);
    try {
      if (topology != t) {
        return Frame.reply(f.reqId(), t.viewId(), Frame.S_RETRY, null);
      }
      if (fetched != null && !table.isLive(s, bk)) {
        applyLocally(s, bk, fetched.value());
      }
      boolean noResult = (f.flags() & Frame.F_NO_RESULT) != 0;
      // a put whose caller discards the previous value needs it only for a removal listener
      byte[] stored = op == Op.PUT && noResult && hooks.removals() == null ? null
          : local.getIfPresent(f.key());
      byte[] current = live(stored);
      Outcome outcome = Outcome.of(op, current, f.value(), f.expected(), hooks.sameValue());
      result = noResult ? null : outcome.result();
      if (outcome.changes()) {
        byte[] next = stored(outcome.newValue());
        applyLocally(s, bk, next);
        call = replicate(t, s, f.key(), next, waitForBackups);
        reportWrite(f.key(), stored, current, outcome.newValue() == null);
      }
    } finally {
      table.unlock(s);
      topologyLock.readLock().unlock();
    }
    return awaitBackups(f, t, call, result, deadline);
  }

  /** The stored form of a value written now: stamped with its expiry deadline if entries expire. */
  private byte[] stored(byte[] payload) {
    return payload == null || !stamps ? payload
        : Stamp.wrap(hooks.clock().millis() + hooks.ttlMillis(), payload);
  }

  /** @return the value of a stored form, or null if absent or expired */
  byte[] live(byte[] stored) {
    if (stored == null || !stamps) {
      return stored;
    }
    return Stamp.deadline(stored) <= hooks.clock().millis() ? null : Stamp.payload(stored);
  }

  /**
   * Reports what a primary's write removed: the previous value (EXPLICIT or REPLACED), or an
   * expired value it overwrote (EXPIRED). Caller holds the segment lock; the sink only queues.
   */
  private void reportWrite(byte[] key, byte[] stored, byte[] current, boolean removal) {
    EngineHooks.Removals sink = hooks.removals();
    if (sink == null || stored == null) {
      return;
    }
    if (current != null) {
      sink.removed(key, current, removal ? RemovalCause.EXPLICIT : RemovalCause.REPLACED);
    } else {
      sink.removed(key, Stamp.payload(stored), RemovalCause.EXPIRED);
    }
  }

  /**
   * A removal in this member's store (its listener, on the store's executor). In invalidation
   * mode every one is reported: the store is this member's own. Otherwise only evictions and
   * expiries of keys this member is primary of: explicit removals and replacements are
   * reported by the primary's write path, and removals of backup copies or of entries state
   * transfer drops are not removals from the cache.
   */
  void onLocalRemoval(byte[] key, byte[] value, RemovalCause cause) {
    EngineHooks.Removals sink = hooks.removals();
    if (sink == null || closing) {
      return;
    }
    if (config.mode() == ClusterMode.INVALIDATION) {
      sink.removed(key, value, cause);
      return;
    }
    Topology t = topology;
    if (cause.wasEvicted() && t != null && t.hash().primary(segmentOf(key)).equals(self())) {
      sink.removed(key, stamps ? Stamp.payload(value) : value, cause);
    }
  }

  private boolean currentKnown(int s, ByteKey key) {
    table.lock(s);
    try {
      return table.authoritative(s, key);
    } finally {
      table.unlock(s);
    }
  }

  /** Puts or removes locally and marks the key live. Caller holds the segment lock. */
  private void applyLocally(int s, ByteKey key, byte[] value) {
    if (value == null) {
      local.invalidate(key.bytes());
    } else {
      local.put(key.bytes(), value);
    }
    table.markLive(s, key);
  }

  /**
   * Sends a write to the backups and, with near caches, its invalidation to every member that
   * does not own the key; a synchronous write waits for all of them. Caller holds the segment
   * lock (this is what orders writes) and has applied the write locally, so a near copy read
   * from this primary after the invalidation is the new value.
   */
  private Calls.Call replicate(Topology t, int s, byte[] key, byte[] value, boolean ack) {
    List<Address> backups = t.hash().backups(s);
    List<Address> others = near == null ? List.of() : nonOwners(t, s);
    if (backups.isEmpty() && others.isEmpty()) {
      return null;
    }
    Set<Address> awaited = new HashSet<>(backups);
    awaited.addAll(others);
    Calls.Call call = ack ? calls.open(awaited) : null;
    long reqId = call == null ? 0 : call.id;
    Frame backup = new Frame(Frame.T_BACKUP, reqId, t.viewId(),
        value == null ? Op.REMOVE.ordinal() : Op.PUT.ordinal(), 0, key, value, null,
        writeInts(), List.of(), List.of());
    for (Address b : backups) {
      send(b, backup, false);
    }
    if (!others.isEmpty()) {
      Frame inval = new Frame(Frame.T_NEAR_INVALIDATE, reqId, t.viewId(), 0, 0, key, null, null,
          Frame.NO_INTS, List.of(), List.of());
      for (Address o : others) {
        send(o, inval, true);
      }
    }
    return call;
  }

  private List<Address> nonOwners(Topology t, int s) {
    List<Address> out = new ArrayList<>();
    for (Address a : t.view().getMembers()) {
      if (!t.hash().isOwner(a, s)) {
        out.add(a);
      }
    }
    return out;
  }

  private Frame awaitBackups(Frame f, Topology t, Calls.Call call, byte[] result, long deadline) {
    if (call == null) {
      return Frame.reply(f.reqId(), t.viewId(), Frame.S_OK, result);
    }
    try {
      if (!call.await(deadline)) {
        return Frame.reply(f.reqId(), t.viewId(), Frame.S_TIMEOUT, null)
            .withNames(names(call.awaiting().toArray(Address[]::new)));
      }
      for (Map.Entry<Address, Frame> e : call.replies().entrySet()) {
        if (e.getValue().op() != Frame.S_OK) {
          return Frame.reply(f.reqId(), t.viewId(), Frame.S_RETRY, null);
        }
      }
      return Frame.reply(f.reqId(), t.viewId(), Frame.S_OK, result);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClusterException("interrupted while waiting for backups", e);
    } finally {
      calls.close(call);
    }
  }

  /**
   * @return the ints of a WRITE or BACKUP this member sends: 0 hops, then, with a value
   *     dictionary, its size of each space (docs/spec/cluster-wire.md)
   */
  private int[] writeInts() {
    return dictionary == null ? new int[] {0} : dictionary.withSizes(0);
  }

  /** @return false if a WRITE or BACKUP may name dictionary ids this member cannot learn now */
  private boolean knowsDictionaryIdsOf(Frame f) {
    return dictionary == null || dictionary.knowsIdsOf(f.ints());
  }

  /** A backup write from a primary, on the delivery thread. */
  private void onBackup(Address from, Frame f) {
    if (f.viewId() < topology.viewId() || !knowsDictionaryIdsOf(f)) {
      reply(from, f.reqId(), Frame.reply(f.reqId(), topology.viewId(), Frame.S_RETRY, null));
      return;
    }
    int s = segmentOf(f.key());
    if (near != null) {
      // an owner in the write's view; this member may still be in a view where it was not
      near.invalidate(f.key());
    }
    topologyLock.readLock().lock();
    table.lock(s);
    try {
      applyLocally(s, new ByteKey(f.key()), f.op() == Op.REMOVE.ordinal() ? null : f.value());
    } finally {
      table.unlock(s);
      topologyLock.readLock().unlock();
    }
    reply(from, f.reqId(), Frame.reply(f.reqId(), topology.viewId(), Frame.S_OK, null));
  }

  // ---------------------------------------------------------------- invalidation mode

  private byte[] invalidatingWrite(Op op, byte[] key, byte[] value, byte[] expected,
      boolean async) {
    int s = segmentOf(key);
    Outcome outcome;
    table.lock(s);
    try {
      outcome = Outcome.of(op, local.getIfPresent(key), value, expected, hooks.sameValue());
      if (outcome.changes()) {
        applyLocally(s, new ByteKey(key), outcome.newValue());
      }
    } finally {
      table.unlock(s);
    }
    if (outcome.changes() || !op.conditional()) {
      broadcast(new Frame(Frame.T_INVALIDATE, 0, topology.viewId(), 0, 0, key, null, null,
          Frame.NO_INTS, List.of(), List.of()), !async, false, "invalidation");
    }
    return outcome.result();
  }

  private void onInvalidate(Address from, Frame f) {
    if (f.key() == null) {
      local.invalidateAll();
    } else {
      local.invalidate(f.key());
    }
    reply(from, f.reqId(), Frame.reply(f.reqId(), topology.viewId(), Frame.S_OK, null));
  }

  /**
   * Sends a frame to every other member, waiting for all acks if asked.
   *
   * @return the replies by member
   */
  private Map<Address, Frame> broadcast(Frame f, boolean wait, boolean outOfBand,
      String what) {
    Topology t = topology;
    Set<Address> others = new HashSet<>(t.members());
    others.remove(self());
    if (others.isEmpty()) {
      return Map.of();
    }
    if (!wait) {
      for (Address a : others) {
        send(a, f, outOfBand);
      }
      return Map.of();
    }
    Calls.Call call = calls.open(others);
    try {
      Frame withId = withReqId(f, call.id);
      for (Address a : others) {
        send(a, withId, outOfBand);
      }
      if (!call.await(deadline())) {
        throw new ClusterTimeoutException(what, names(call.awaiting().toArray(Address[]::new)));
      }
      return call.replies();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClusterException("interrupted during " + what, e);
    } finally {
      calls.close(call);
    }
  }

  // ---------------------------------------------------------------- whole-cache operations

  /** Removes every entry on every member (not atomic with concurrent writes). */
  public void clear() {
    checkOpen();
    local.invalidateAll();
    if (near != null) {
      near.flush();
    }
    broadcast(Frame.of(Frame.T_CLEAR, 0, topology.viewId()),
        config.replication() == Replication.SYNC, true, "clear");
  }

  /** @return the number of entries in the cluster (each counted once, by its primary) */
  public long count() {
    checkOpen();
    if (config.mode() == ClusterMode.INVALIDATION) {
      return local.estimatedSize();
    }
    Frame scan = new Frame(Frame.T_SCAN, 0, 0, 0, Frame.F_COUNT_ONLY, null, null, null,
        Frame.NO_INTS, List.of(), List.of());
    long total = Scan.count(onScan(scan));
    for (Frame r : broadcast(scan, true, true, "count").values()) {
      total += Scan.count(r);
    }
    return total;
  }

  /**
   * @return every entry of the cluster, each once (from its primary), as alternating encoded keys
   *     and values; a snapshot, weakly consistent with concurrent writes and rebalances
   */
  public List<byte[]> entries() {
    checkOpen();
    Frame scan = Frame.of(Frame.T_SCAN, 0, 0);
    List<byte[]> all = new ArrayList<>(onScan(scan).entries());
    if (config.mode() != ClusterMode.INVALIDATION) {
      for (Frame r : broadcast(scan, true, true, "scan").values()) {
        all.addAll(r.entries());
      }
    }
    if (!stamps) {
      return all;
    }
    List<byte[]> live = new ArrayList<>(all.size());
    for (int i = 0; i + 1 < all.size(); i += 2) {
      byte[] v = live(all.get(i + 1));
      if (v != null) {
        live.add(all.get(i));
        live.add(v);
      }
    }
    return live;
  }

  private Frame onScan(Frame f) {
    return Scan.run(this, topology, (f.flags() & Frame.F_COUNT_ONLY) != 0, f.reqId());
  }

  // ---------------------------------------------------------------- state, close

  /** @return the names of the current view's members, coordinator first */
  public List<String> members() {
    return topology.view().getMembers().stream().map(Address::toString).toList();
  }

  /** @return this member's name */
  public String name() {
    return channel.getName();
  }

  /** @return the number of segments this member owns or is receiving */
  public int ownedSegments() {
    Address self = self();
    int n = 0;
    for (int s = 0; s < config.segments(); s++) {
      n += topology.hash().isOwner(self, s) ? 1 : 0;
    }
    return config.mode() == ClusterMode.INVALIDATION ? 0 : n;
  }

  /** @return true if a key's segment is owned here (in invalidation mode: always) */
  public boolean ownsKey(byte[] key) {
    return config.mode() == ClusterMode.INVALIDATION
        || topology.hash().isOwner(self(), segmentOf(key));
  }

  /** @return true if this member is the key's primary (in invalidation mode: never) */
  public boolean isPrimary(byte[] key) {
    return config.mode() != ClusterMode.INVALIDATION
        && topology.hash().primary(segmentOf(key)).equals(self());
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
    return asyncDropped.get();
  }

  /** @return merges in which this member's side lost and dropped its entries */
  public long mergesLost() {
    return mergesLost.get();
  }

  /**
   * Waits until this member holds every segment it owns.
   *
   * @param timeoutNanos how long to wait
   * @return true if it does
   */
  public boolean awaitRebalanced(long timeoutNanos) {
    long deadline = System.nanoTime() + timeoutNanos;
    while (transfer.busy() || table.incomingCount() > 0) {
      if (System.nanoTime() >= deadline || closed) {
        return false;
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return true;
  }

  /** @return the JGroups channel (tests insert protocols such as DISCARD into its stack) */
  public JChannel channel() {
    return channel;
  }

  boolean closed() {
    return closed;
  }

  private void checkOpen() {
    if (closing) {
      throw new IllegalStateException("the clustered cache is closed");
    }
    if (dictionary != null) {
      dictionary.check();
    }
  }

  /** @return the dictionary replication, or null without a dictionary */
  DictionarySync dictionarySync() {
    return dictionary;
  }

  static List<String> names(Address[] members) {
    return Arrays.stream(members).map(Address::toString).toList();
  }

  static byte[] bool(boolean b) {
    return b ? TRUE : FALSE;
  }

  /**
   * Leaves the cluster and closes the local store. Idempotent. Until the channel is closed this
   * member keeps acknowledging backup writes, so that writes in flight on other members do not
   * wait for it until their timeout.
   */
  @Override
  public synchronized void close() {
    if (closing) {
      return;
    }
    closing = true;
    channel.close();
    closed = true;
    synchronized (viewMonitor) {
      viewMonitor.notifyAll();
    }
    transfer.close();
    workers.shutdownNow();
    local.close();
    if (near != null) {
      near.close();
    }
  }
}
