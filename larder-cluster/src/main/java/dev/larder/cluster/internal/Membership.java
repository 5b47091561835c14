package dev.larder.cluster.internal;

import dev.larder.cluster.ClusterConfig;
import dev.larder.cluster.ClusterException;
import dev.larder.cluster.ClusterMode;
import dev.larder.cluster.PartitionHandling;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jgroups.Address;
import org.jgroups.JChannel;
import org.jgroups.MergeView;
import org.jgroups.View;

/**
 * This member's view of the cluster: the installed {@link Topology}, who it is, and the waits for a
 * view. Thread-safe.
 *
 * <p>Implementation notes.
 *
 * <ul>
 *   <li><b>Installing a view</b> happens under the view lock's write side, which every local write
 *       holds for reading ({@link #viewReadLock}): a write uses one view from check to send. Under
 *       it, each segment's state moves for the new ownership ({@link SegmentOwnership#reassign})
 *       and the topology is published (a volatile field, so readers that need no single view read
 *       it without the lock).
 *   <li><b>After</b> the lock is released, the view's listeners run in the order they were added
 *       (near cache flush, dictionary check, dropping members that left from outstanding calls,
 *       state transfer), then threads waiting for a view are woken. Waiters also poll the topology
 *       every 50 ms, so waking them is a matter of latency only.
 *   <li><b>Confirmations</b>: as it starts installing a view, a member tells the view's other
 *       members (INSTALLED, {@link ViewConfirmations}); {@link Quorum} counts those of its own view
 *       before the member is available. A merge view under quorum waits for every other member's
 *       report, on a thread of its own (see {@link #install}).
 *   <li><b>Merges</b>: on a {@link MergeView}, a member whose side lost ({@link Quorum}, which also
 *       decides, under the same lock, whether this member's view holds a majority) treats every
 *       segment as NONE, so it drops its entries and receives its segments again from the winning
 *       side; under quorum in DISTRIBUTED mode (with or without a journal) it keeps the segments it
 *       held complete as copies and asks the winners first ({@link #winnersOfLostMerge}), so that a
 *       segment the winners never held is not lost.
 *   <li><b>Holders that may be cut off</b> (quorum, no journal): an available member does not start
 *       empty a segment whose holders are missing from its view and did not say they were leaving;
 *       it refuses its writes until they are back ({@link #awaitsMissingHolders}).
 *   <li><b>Durable members</b> ({@link #durable}) never found a cluster alone: a member whose first
 *       view holds only itself owns its segments INCOMING until its {@link Formation} settles
 *       whether its store is the cluster's.
 *   <li><b>Invalidation mode</b> keeps no ownership: segments stay NONE and views only change who
 *       is told of invalidations.
 * </ul>
 */
final class Membership {

  /**
   * A view this member installed.
   *
   * @param topology the installed view and its ownership
   * @param incoming the segments this member must receive by state transfer
   * @param merge true if the view is a merge view
   */
  record ViewChange(Topology topology, List<Integer> incoming, boolean merge) {}

  private final ClusterConfig config;
  private final JChannel channel;
  private final SegmentOwnership segments;
  private final Lifecycle lifecycle;
  private final Quorum quorum;
  private final ReentrantReadWriteLock viewLock = new ReentrantReadWriteLock();
  private final Object viewMonitor = new Object();
  private final List<Consumer<ViewChange>> listeners = new CopyOnWriteArrayList<>();
  private final AtomicLong mergesLost = new AtomicLong();
  private volatile Topology topology;

  /** Reports installed views to the other members: set before the channel connects. */
  private ViewConfirmations confirmations;

  /** A durable member's start and epoch, or null: set before the channel connects. */
  private Formation formation;

  Membership(
      ClusterConfig config,
      JChannel channel,
      SegmentOwnership segments,
      Lifecycle lifecycle,
      Quorum quorum) {
    this.config = config;
    this.channel = channel;
    this.segments = segments;
    this.lifecycle = lifecycle;
    this.quorum = quorum;
  }

  /**
   * Makes this a durable member: it never founds alone (its {@link Formation} settles which store
   * the cluster starts from), and each view it installs is told to the formation under the view
   * lock. Called once, before the channel connects.
   */
  void durable(Formation f) {
    this.formation = f;
  }

  /**
   * Sets what tells the other members of each view that this one installed it (and, for a merge
   * view, gathers their reports first). Called once, before the channel connects.
   */
  void confirmWith(ViewConfirmations c) {
    this.confirmations = c;
  }

  /** Adds a listener run after each installed view, after those added before it. */
  void onView(Consumer<ViewChange> listener) {
    listeners.add(listener);
  }

  /**
   * Installs a view (JGroups' view callback, on its thread). A merge view whose decision waits for
   * the other members' reports ({@link ViewConfirmations#waitsFor}) is installed on a thread of its
   * own, and so is every view that arrives until that one is installed, in order: JGroups installs
   * a view at its coordinator before it sends it to the other members, so waiting on JGroups'
   * thread would hold the view back from the very members whose reports it waits for.
   */
  void install(View view) {
    synchronized (queuedViews) {
      if (installer || confirmations.waitsFor(view)) {
        queuedViews.add(view);
        if (!installer) {
          installer = true;
          Thread.ofVirtual().name("larder-view-" + name()).start(this::installQueued);
        }
        return;
      }
    }
    installNow(view);
  }

  /** Views waiting for {@link #installQueued}, oldest first; guarded by itself. */
  private final ArrayDeque<View> queuedViews = new ArrayDeque<>();

  /** Whether {@link #installQueued} runs; guarded by {@link #queuedViews}. */
  private boolean installer;

  /** Installs queued views in order until none is left. */
  private void installQueued() {
    while (true) {
      View next;
      synchronized (queuedViews) {
        next = lifecycle.closed() ? null : queuedViews.poll();
        if (next == null) {
          queuedViews.clear();
          installer = false;
          return;
        }
      }
      try {
        installNow(next);
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.ERROR, "installing view " + next.getViewId() + " failed", e);
      }
    }
  }

  private static final System.Logger LOG = System.getLogger(Membership.class.getName());

  private void installNow(View view) {
    List<Integer> incoming = new ArrayList<>();
    Topology installed;
    // before the lock: a merge waits here for the other members' reports
    Map<String, Long> reports = confirmations.beforeInstall(view);
    viewLock.writeLock().lock();
    try {
      Topology old = topology;
      Address self = channel.getAddress();
      boolean lostMerge = quorum.install(view, self, reports);
      if (lostMerge) {
        mergesLost.incrementAndGet();
      }
      ConsistentHash hash = new ConsistentHash(view.getMembers(), config.segments(), ownerCount());
      installed = Topology.of(view, hash, old);
      boolean founder = old == null && view.size() == 1 && formation == null;
      boolean keep = lostMerge && keepsCopiesOnLoss();
      keptOnLoss =
          keep ? new LostMerge(installed.viewId(), winnersBut(quorum.winner(), self)) : null;
      boolean mayBeCutOff = quorum.majorityInView() && awaitsCutOffHolders() && old != null;
      if (config.mode() != ClusterMode.INVALIDATION) {
        for (int s = 0; s < segments.size(); s++) {
          if (segments.reassign(
              s, hash.isOwner(self, s), founder, lostMerge, keep, installed.viewId())) {
            incoming.add(s);
            if (mayBeCutOff && noOwnerIn(old.hash(), s, view)) {
              // refused from this view on, before any write: see awaitsMissingHolders
              awaitsMissingHolders(installed, s);
            }
          }
        }
      }
      topology = installed;
      if (formation != null && config.mode() != ClusterMode.INVALIDATION) {
        formation.installed(installed, view instanceof MergeView, lostMerge);
      }
    } finally {
      viewLock.writeLock().unlock();
    }
    ViewChange change = new ViewChange(installed, incoming, view instanceof MergeView);
    for (Consumer<ViewChange> listener : listeners) {
      listener.accept(change);
    }
    wakeWaiters();
  }

  /**
   * Whether a member whose side lost a merge keeps its complete segments as copies to serve instead
   * of dropping them (see {@link SegmentOwnership#reassign}): under quorum partition handling, in
   * DISTRIBUTED mode, with or without a journal. The winning side held no complete copy of some
   * segments (every owner was on this side) and took no write to them (an available member refuses
   * them while their holders may be cut off: {@link #awaitsMissingHolders}, or, durable, while it
   * waits for a holder's record: {@link Formation#awaitHolder}), and this side refused writes: so
   * this side's copies of those are their whole state. Which segments those are, the owners learn
   * by asking the winning side first ({@link #winnersOfLostMerge}). A durable loser records no
   * epoch for what it keeps ({@link Formation#installed}), so at a later full restart its records
   * rank below every record the winners made during the partition. Under allow-all the winners
   * started such segments empty and wrote to them, and their copies win as before.
   */
  private boolean keepsCopiesOnLoss() {
    return quorum.handling() == PartitionHandling.QUORUM
        && config.mode() == ClusterMode.DISTRIBUTED;
  }

  /**
   * If this member's side lost the merge that installed {@code t}, and kept its copies ({@link
   * #keepsCopiesOnLoss}), the winning side's members: state transfer asks them first, since they
   * hold every segment the winners held complete, and this side's copies of those are older.
   * Otherwise null.
   */
  Set<Address> winnersOfLostMerge(Topology t) {
    LostMerge l = keptOnLoss;
    return l != null && l.viewId() == t.viewId() ? l.winners() : null;
  }

  /** The merge view this member's side lost and kept its copies in, and the winning side. */
  private record LostMerge(long viewId, Set<Address> winners) {}

  private volatile LostMerge keptOnLoss;

  /**
   * Whether this member waits for a segment's missing holders rather than start it empty: under
   * quorum partition handling, a member without a {@link Formation} (a durable member waits for
   * holders by its own rules).
   */
  private boolean awaitsCutOffHolders() {
    return formation == null && quorum.handling() == PartitionHandling.QUORUM;
  }

  /**
   * Whether an INCOMING segment of {@code t} that no member of {@code t} may hold complete is to
   * wait for the members that held it, because they may be cut off rather than down: the owners of
   * the view before {@code t} that are missing from it and still count among the stable members
   * (see {@link Quorum}; a member that left on purpose said so), added to those it waited for
   * already; a name back in the view (from the other side of a partition, and then it serves the
   * segment; or restarted, holding nothing of it) is no longer waited for. Started empty, the
   * segment would answer its acknowledged keys as absent and take writes the merge would set
   * against the only copy. While it waits its writes are refused ({@link
   * SegmentOwnership#awaitHolders}): a write applied here could be dropped at the merge, where this
   * member may stop owning the segment while the other side's copy is kept. Takes the segment lock.
   *
   * @return true if the segment waits
   */
  boolean awaitsMissingHolders(Topology t, int s) {
    if (!awaitsCutOffHolders()) {
      return false;
    }
    List<String> missing = new ArrayList<>();
    if (t.previous() != null) {
      for (Address o : t.previous().owners(s)) {
        if (!t.members().contains(o)) {
          missing.add(Messenger.name(o));
        }
      }
    }
    List<String> present = Messenger.names(t.view().getMembers().toArray(Address[]::new));
    List<String> stable = quorum.state().stable();
    segments.lock(s);
    try {
      return segments.awaitHolders(s, missing, present, stable);
    } finally {
      segments.unlock(s);
    }
  }

  private static boolean noOwnerIn(ConsistentHash before, int s, View view) {
    for (Address o : before.owners(s)) {
      if (view.containsMember(o)) {
        return false;
      }
    }
    return true;
  }

  private int ownerCount() {
    return switch (config.mode()) {
      case REPLICATED -> Integer.MAX_VALUE;
      case DISTRIBUTED -> config.owners();
      case INVALIDATION -> 1;
    };
  }

  /** Returns the installed topology, or null before the first view. */
  Topology topology() {
    return topology;
  }

  /**
   * The winning subgroup's members other than this one: a member that lost the merge although a
   * subgroup named it (it was not available) is no source of its own segments.
   */
  private static Set<Address> winnersBut(View winner, Address self) {
    Set<Address> winners = new HashSet<>(winner.getMembers());
    winners.remove(self);
    return Set.copyOf(winners);
  }

  /**
   * The read side of the view lock: held by a local write from its view check to its sends, so no
   * view is installed in between. Take it before any segment lock.
   */
  Lock viewReadLock() {
    return viewLock.readLock();
  }

  /**
   * The write side of the view lock, held while a view is installed; a durable member's {@link
   * Formation} takes it to record a view's epochs once the view is confirmed.
   */
  Lock viewWriteLock() {
    return viewLock.writeLock();
  }

  Address self() {
    return channel.getAddress();
  }

  /** Returns this member's name. */
  String name() {
    return channel.getName();
  }

  /** Returns the names of the current view's members, coordinator first. */
  List<String> members() {
    return topology.view().getMembers().stream().map(Messenger::name).toList();
  }

  /** Returns the number of segments this member owns or is receiving (0 in invalidation mode). */
  int ownedSegments() {
    Address self = self();
    int n = 0;
    for (int s = 0; s < config.segments(); s++) {
      n += topology.hash().isOwner(self, s) ? 1 : 0;
    }
    return config.mode() == ClusterMode.INVALIDATION ? 0 : n;
  }

  /** Returns true if a key's segment is owned here (in invalidation mode: always). */
  boolean ownsKey(byte[] key) {
    return config.mode() == ClusterMode.INVALIDATION
        || topology.hash().isOwner(self(), segments.segmentOf(key));
  }

  /** Returns true if this member is the key's primary (in invalidation mode: never). */
  boolean isPrimary(byte[] key) {
    return config.mode() != ClusterMode.INVALIDATION
        && topology.hash().primary(segments.segmentOf(key)).equals(self());
  }

  /** Returns whether this member serves writes in its installed view (see {@link Quorum}). */
  boolean available() {
    return quorum.available();
  }

  /** Returns merges in which this member's side lost and dropped its entries. */
  long mergesLost() {
    return mergesLost.get();
  }

  /** Waits until the installed view id is at least {@code viewId}, or the deadline. */
  void awaitView(long viewId, long deadlineNanos) {
    awaitTopology(t -> t.viewId() >= viewId, deadlineNanos);
  }

  /** Waits a little for a view newer than {@code viewId}: the caller is about to retry. */
  void awaitNewerView(long viewId, long deadlineNanos) {
    awaitView(viewId + 1, Math.min(deadlineNanos, System.nanoTime() + 20_000_000L));
  }

  /**
   * Waits until the installed topology satisfies {@code ready}, the deadline passes or this member
   * closes.
   *
   * @return true if it does
   * @throws ClusterException if interrupted
   */
  boolean awaitTopology(Predicate<Topology> ready, long deadlineNanos) {
    synchronized (viewMonitor) {
      while ((topology == null || !ready.test(topology)) && !lifecycle.closed()) {
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

  /** Wakes every thread waiting for a view (a view was installed, or this member closed). */
  void wakeWaiters() {
    synchronized (viewMonitor) {
      viewMonitor.notifyAll();
    }
  }
}
