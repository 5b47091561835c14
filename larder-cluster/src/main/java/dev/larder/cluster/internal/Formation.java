package dev.larder.cluster.internal;

import dev.larder.cluster.ClusterTimeoutException;
import dev.larder.cluster.StoreJournal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.function.BooleanSupplier;
import org.jgroups.Address;
import org.jgroups.util.ExtendedUUID;
import org.jgroups.util.UUID;

/**
 * A durable member's start (one whose store is recorded by a {@link StoreJournal}): which member's
 * store the cluster starts from when every member restarts, and this member's epoch. Thread-safe.
 *
 * <p>Implementation notes.
 *
 * <ul>
 *   <li><b>Epoch.</b> {@code generation << 32 | viewId}: the generation is fixed when a cluster
 *       forms (one more than its seed's recovered generation) and the low half is the JGroups view
 *       id, which only grows while the cluster runs (a new coordinator or a merge takes the largest
 *       id plus one). A member records the epoch of each view it installs while it holds a complete
 *       copy and is available (under quorum, only the majority side), under the view lock, so
 *       before it can apply any write of that view; a member that receives the cluster's state
 *       records 0 before it drops its own entries and the current view's epoch once it holds every
 *       segment. So a member whose record ends in the largest epoch holds every acknowledged write:
 *       a write acknowledged after that epoch was applied by the complete members of a later view,
 *       which recorded a larger one.
 *   <li><b>Forming.</b> A durable member starts forming: it owns nothing complete, keeps the
 *       entries it recovered, and answers pulls with "ask again". After each view it asks every
 *       other member whether it has settled ({@link Frame#T_EPOCH}). If one has, in a view this
 *       member also installed while forming, that was this formation: it adopts the same seed. If
 *       one settled in a view this member never saw, the cluster is running: it joins it and takes
 *       its state. If none has and the view holds {@code initialClusterSize} members, the seed is
 *       the member whose address carries the largest recovered epoch (the first in view order on a
 *       tie): every forming member computes the same from the same view. The seed marks its
 *       segments OWNED and keeps its store; every other member drops its entries and pulls from the
 *       seed.
 *   <li>A member that does not answer (still joining, or of a build without this frame) is asked
 *       again a little later, until it answers or leaves, or a newer view starts over.
 * </ul>
 */
final class Formation {

  /** The ExtendedUUID key a durable member's recovered epoch travels under (8 bytes, LE). */
  static final String EPOCH_KEY = "larder.epoch";

  /** What a forming member does in a view. */
  enum Step {
    /** Not enough members yet, and none settled: keep forming. */
    WAIT,
    /** This member's store is the cluster's. */
    SEED,
    /** Take the cluster's state (from the source first, when there is one). */
    JOIN
  }

  /**
   * @param step what to do
   * @param source the seed to pull from first, or null
   * @param settled how a SEED settles, else null
   */
  record Decision(Step step, Address source, Settled settled) {}

  /**
   * How this member settled.
   *
   * @param generation the cluster's generation
   * @param seed the name of the member whose store the cluster started from
   * @param formedIn the JGroups view id (as text) the formation settled in
   */
  record Settled(long generation, String seed, String formedIn) {}

  private static final System.Logger LOG = System.getLogger(Formation.class.getName());
  private static final long PAUSE_MILLIS = 100;

  private final StoreJournal journal;
  private final int initialClusterSize;
  private final Membership membership;
  private final SegmentOwnership segments;
  private final Quorum quorum;
  private final Messenger messenger;

  /** The views this member installed while forming, as text. */
  private final Set<String> formingViews = ConcurrentHashMap.newKeySet();

  private volatile Settled settled;

  /** The epoch recorded last; guarded by this. */
  private long recorded;

  Formation(
      StoreJournal journal,
      int initialClusterSize,
      Membership membership,
      SegmentOwnership segments,
      Quorum quorum,
      Messenger messenger) {
    this.journal = journal;
    this.initialClusterSize = initialClusterSize;
    this.membership = membership;
    this.segments = segments;
    this.quorum = quorum;
    this.messenger = messenger;
    this.recorded = journal.recordedEpoch();
  }

  /** Returns the 8 bytes a recovered epoch travels as in a member's address. */
  static byte[] encode(long epoch) {
    return ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).putLong(epoch).array();
  }

  /** Returns the epoch a member's address carries; 0 if none or unreadable. */
  static long recoveredEpochOf(Address member) {
    if (!(member instanceof ExtendedUUID u)) {
      return 0;
    }
    byte[] b = u.get(EPOCH_KEY);
    return b == null || b.length != Long.BYTES
        ? 0
        : ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong();
  }

  /** Whether this member has settled (seed, or taking the cluster's state). */
  boolean formed() {
    return settled != null;
  }

  /**
   * A view was installed (under the view lock's write side): remembered while forming; otherwise
   * its epoch is recorded if this member holds a complete copy and is available.
   *
   * @param complete whether no segment this member owns is incoming
   */
  void installed(Topology t, boolean complete) {
    if (settled == null) {
      formingViews.add(viewName(t));
    } else if (complete && quorum.available()) {
      record(epochOf(t));
    }
  }

  /**
   * Settles, for a view, what this forming member does; asks every other member (on state
   * transfer's thread, may wait).
   *
   * @param current false once a newer view (or close) makes this view's decision moot
   * @return the decision; WAIT if {@code current} turned false
   */
  Decision settle(Topology t, BooleanSupplier current) {
    while (current.getAsBoolean()) {
      Map<Address, Frame> answers;
      try {
        answers =
            messenger.broadcast(Frame.of(Frame.T_EPOCH, 0, t.viewId()), true, true, "formation");
      } catch (ClusterTimeoutException e) {
        pause();
        continue;
      }
      Decision d = decide(t, answers);
      if (d != null) {
        return d;
      }
      pause();
    }
    return new Decision(Step.WAIT, null, null);
  }

  /** Returns the decision the answers allow, or null to ask again. */
  private Decision decide(Topology t, Map<Address, Frame> answers) {
    Frame running = null;
    boolean unknown = false;
    for (Frame f : answers.values()) {
      if (f == null) {
        continue; // left meanwhile
      }
      if (f.op() == Frame.S_OK && f.names().size() == 2 && f.value() != null) {
        if (formingViews.contains(f.names().get(1))) {
          return adopt(t, f);
        }
        running = f;
      } else if (f.op() != Frame.S_NOT_AUTHORITATIVE) {
        unknown = true;
      }
    }
    if (running != null) {
      // a cluster that formed in a view this member never saw: it is running; take its state
      settled = settledOf(running);
      return new Decision(Step.JOIN, null, null);
    }
    if (unknown) {
      return null;
    }
    if (t.members().size() < initialClusterSize) {
      return new Decision(Step.WAIT, null, null);
    }
    Address seed = null;
    long best = -1;
    for (Address a : t.view().getMembers()) {
      long e = recoveredEpochOf(a);
      if (e > best) {
        best = e;
        seed = a;
      }
    }
    Settled s = new Settled((best >>> 32) + 1, Messenger.name(seed), viewName(t));
    LOG.log(
        System.Logger.Level.INFO,
        membership.name()
            + ": the cluster starts from "
            + s.seed()
            + "'s store, the newest recorded among "
            + describe(t.view().getMembers()));
    return decided(t, s);
  }

  private Decision adopt(Topology t, Frame f) {
    return decided(t, settledOf(f));
  }

  private Decision decided(Topology t, Settled s) {
    if (s.seed().equals(membership.name())) {
      return new Decision(Step.SEED, null, s);
    }
    settled = s;
    Address source = null;
    for (Address a : t.view().getMembers()) {
      if (Messenger.name(a).equals(s.seed())) {
        source = a;
      }
    }
    return new Decision(Step.JOIN, source, null);
  }

  /**
   * A view's id as text, its coordinator's UUID rather than its name: a member restarted under the
   * same name is another coordinator.
   */
  private static String viewName(Topology t) {
    Address creator = t.view().getViewId().getCreator();
    String c = creator instanceof UUID u ? u.toStringLong() : String.valueOf(creator);
    return c + "|" + t.viewId();
  }

  private static Settled settledOf(Frame f) {
    long generation = ByteBuffer.wrap(f.value()).order(ByteOrder.LITTLE_ENDIAN).getLong();
    return new Settled(generation, f.names().get(0), f.names().get(1));
  }

  /**
   * Makes this member the seed: its owned segments become OWNED with the entries it recovered, if
   * {@code t} is still the installed view. Takes the view lock's read side.
   *
   * @param incoming the segments it owns in {@code t}
   * @param decided how it settled ({@link Decision#settled})
   * @return false if a newer view came first (the next view settles again)
   */
  @SuppressWarnings("ReferenceEquality") // the topology captured earlier is still the installed one
  boolean becomeSeed(Topology t, List<Integer> incoming, Settled decided) {
    Lock lock = membership.viewReadLock();
    lock.lock();
    try {
      if (membership.topology() != t) {
        return false;
      }
      for (int s : incoming) {
        segments.lock(s);
        try {
          if (segments.state(s) == SegmentOwnership.State.INCOMING) {
            segments.set(s, SegmentOwnership.State.OWNED, t.viewId());
          }
        } finally {
          segments.unlock(s);
        }
      }
      settled = decided;
      record(epochOf(t));
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** This member is about to drop its entries and receive the cluster's: records epoch 0. */
  void receiving() {
    if (settled != null) {
      record(0);
    }
  }

  /**
   * A rebalance ended: records {@code t}'s epoch if it is still the installed view, every owned
   * segment is complete and this member is available. Takes the view lock's read side.
   */
  @SuppressWarnings("ReferenceEquality") // the topology captured earlier is still the installed one
  void rebalanced(Topology t) {
    Lock lock = membership.viewReadLock();
    lock.lock();
    try {
      if (settled != null
          && membership.topology() == t
          && segments.incomingCount() == 0
          && quorum.available()) {
        record(epochOf(t));
      }
    } finally {
      lock.unlock();
    }
  }

  /** Answers a T_EPOCH probe (on the delivery thread). */
  void onProbe(Address from, Frame f) {
    answer(messenger, membership, from, f, settled);
  }

  /**
   * Answers a T_EPOCH probe for a member that keeps no record: it counts as a running cluster,
   * generation 0, so a durable member joining it takes its state.
   */
  static void answerNotDurable(Messenger messenger, Membership membership, Address from, Frame f) {
    answer(messenger, membership, from, f, new Settled(0, "", ""));
  }

  private static void answer(
      Messenger messenger, Membership membership, Address from, Frame f, Settled s) {
    long viewId = membership.topology().viewId();
    Frame reply =
        s == null
            ? Frame.reply(f.reqId(), viewId, Frame.S_NOT_AUTHORITATIVE, null)
            : Frame.reply(f.reqId(), viewId, Frame.S_OK, encode(s.generation()))
                .withNames(List.of(s.seed(), s.formedIn()));
    messenger.reply(from, f.reqId(), reply);
  }

  private long epochOf(Topology t) {
    return (settled.generation() << 32) | (t.viewId() & 0xFFFF_FFFFL);
  }

  /** Records an epoch: 0 always (once), otherwise only a larger one than the last. */
  private synchronized void record(long epoch) {
    if (epoch == 0 ? recorded != 0 : epoch > recorded) {
      journal.recordEpoch(epoch);
      recorded = epoch;
    }
  }

  /** For messages: a view's members and the epochs they recovered. */
  private static String describe(List<Address> members) {
    StringBuilder b = new StringBuilder();
    for (Address a : members) {
      b.append(b.isEmpty() ? "" : ", ")
          .append(Messenger.name(a))
          .append(" (epoch ")
          .append(Long.toHexString(recoveredEpochOf(a)))
          .append(')');
    }
    return b.toString();
  }

  private static void pause() {
    try {
      Thread.sleep(PAUSE_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
