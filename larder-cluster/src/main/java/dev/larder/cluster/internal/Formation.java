package dev.larder.cluster.internal;

import dev.larder.cluster.ClusterTimeoutException;
import dev.larder.cluster.StoreJournal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.function.BooleanSupplier;
import org.jgroups.Address;
import org.jgroups.util.ExtendedUUID;
import org.jgroups.util.UUID;

/**
 * A durable member's start (one whose store is recorded by a {@link StoreJournal}): which member's
 * store each segment starts from when every member restarts, and this member's epochs. Thread-safe.
 *
 * <p>Implementation notes.
 *
 * <ul>
 *   <li><b>Epochs</b>, one per segment. An epoch is {@code generation << 32 | viewId << 1 | owner}:
 *       the generation is fixed when a cluster forms (one more than the largest recovered
 *       generation); the view id is JGroups', which only grows while the cluster runs (a new
 *       coordinator or a merge takes the largest id plus one); {@code owner} is 1 for an owner
 *       holding the segment complete in that view, 0 for a member that held it complete as the view
 *       began and that view took it away. A member records the view's epoch for a segment whenever
 *       it holds the segment complete in a view and is available (under quorum, only the majority
 *       side, once the view is confirmed; and nothing in a merge view its side lost, see {@link
 *       #installed}): for every segment OWNED when the view is confirmed (under the view lock, and
 *       before the member becomes available in it, so before it applies any write of the view), and
 *       for a segment it completes by state transfer or seeds at a formation, before the segment
 *       turns OWNED; and the view's retired epoch for every segment the view takes away from it, at
 *       the same moment as the view's epoch. The retired epoch orders a former owner above a member
 *       that left earlier: a primary whose backup crashes acknowledges the writes it applied
 *       meanwhile once the view without the backup comes, and if that view also takes the segment
 *       away from it (it adds a member too), its copy holds writes the backup's record lacks. It
 *       records 0 for a segment before it drops its entries of it (a segment it receives, or no
 *       longer holds).
 *   <li><b>Why the largest epoch of a segment holds every acknowledged write of it.</b> A write is
 *       applied by its primary holding the segment OWNED (in DISTRIBUTED mode a durable primary
 *       whose segment is still incoming refuses writes: {@link Writes}; in REPLICATED mode every
 *       complete member is an owner), which recorded the view's epoch for it first; so a write
 *       acknowledged after a member last recorded epoch {@code e} for a segment was applied by a
 *       member that recorded a larger epoch for it, and a member whose epoch for the segment is the
 *       largest missed none. A member keeps recording while it stays a complete owner, so its
 *       record and its epoch advance together.
 *   <li><b>Forming.</b> A durable member starts forming: it owns nothing complete, keeps the
 *       entries it recovered, and answers pulls with "ask again". After each view it asks every
 *       other member whether it has settled ({@link Frame#T_EPOCH}); a forming member answers with
 *       the epochs its journal recovered. If one has settled in a view this member also installed
 *       while forming, that was this formation: it adopts the same seeds. If one settled in a view
 *       this member never saw, the cluster is running: it joins it and takes its state. If none has
 *       and the view holds {@code initialClusterSize} members, each segment's <em>seed</em> is the
 *       member whose recovered epoch of that segment is the largest (the first in view order on a
 *       tie): every forming member computes the same from the same view and answers. Every segment
 *       whose newest epoch is above 0 is <em>pending</em> at that epoch. Each <em>holder</em> of a
 *       segment (a member whose recovered epoch of it is the newest, so there may be several: both
 *       owners of its last view, under SYNC replication) and its seed keep their copy: OWNED where
 *       they own the segment, recording the formation's epoch for it, and RETIRED where they do
 *       not, so they serve it; every member drops its entries of the other segments and pulls the
 *       segments it owns, from their seeds first.
 *   <li><b>Pending.</b> No member applies a write to a pending segment ({@link Writes}), so every
 *       holder's copy stays the segment's whole state: any holder is a valid source for any owner,
 *       in any later view. So a holder keeps a pending segment across views (RETIRED where it does
 *       not own it, OWNED where it does: {@link SegmentOwnership#reassign}); an owner that finds no
 *       source for a pending segment (every holder left) asks again rather than starting it empty,
 *       and its reads and writes wait; and a member that joins the running cluster keeps each
 *       segment every settled member still holds pending, if its record is at least as new, instead
 *       of taking the cluster's state. A segment stops being pending at a member once every owner
 *       of it in one view holds it complete (each durable member tells the others which segments it
 *       holds complete in each view: HELD, {@link StateTransfer}); a holder then drops a RETIRED
 *       copy. A segment also becomes pending while the cluster runs when an owner finds no member
 *       of its view serving it ({@link #awaitHolder}: every member holding it complete left), at
 *       the epoch of the view before, so that a holder returning with that record serves it rather
 *       than the segment starting empty; a merge view ends those waits (a partition's losing side
 *       keeps its copies and serves them, recording nothing in the merge it lost: {@link
 *       #installed}).
 *   <li>A member that does not answer (still joining, or of a build without this frame) is asked
 *       again a little later, until it answers or leaves, or a newer view starts over.
 * </ul>
 */
final class Formation {

  /**
   * The ExtendedUUID key under which a durable member's address carries the largest epoch its
   * journal recovered (8 bytes, LE): for logs, and for a member whose EPOCH answer names no epochs.
   */
  static final String EPOCH_KEY = "larder.epoch";

  /** What a forming member does in a view. */
  enum Step {
    /** Not enough members yet, and none settled: keep forming. */
    WAIT,
    /** This formation's seeds are settled: seed those segments named here, pull the others. */
    FORM,
    /** The cluster is running: take its state. */
    JOIN
  }

  /**
   * @param step what to do
   * @param settled the formation's seeds and pending segments (FORM), or the running cluster's
   *     (JOIN), else null
   */
  record Decision(Step step, Settled settled) {}

  /**
   * How this member settled.
   *
   * @param generation the cluster's generation
   * @param seeds the name of each segment's seed, or null (a running cluster joined)
   * @param formedIn the JGroups view id (as text) the formation settled in
   * @param pending per segment, the newest recorded epoch of a segment that is pending (every copy
   *     of a record at least that new is current, and the segment takes no write until every owner
   *     holds it), else 0
   */
  @SuppressWarnings("ArrayRecordComponent") // never compared; read by index only, never changed
  record Settled(long generation, List<String> seeds, String formedIn, long[] pending) {

    /** The seed of the most segments (for logs and one-seed readers); "" if none. */
    String mainSeed() {
      if (seeds == null || seeds.isEmpty()) {
        return "";
      }
      Map<String, Integer> counts = new HashMap<>();
      String best = seeds.getFirst();
      for (String n : seeds) {
        int c = counts.merge(n, 1, Integer::sum);
        if (c > counts.get(best)) {
          best = n;
        }
      }
      return best;
    }
  }

  private static final System.Logger LOG = System.getLogger(Formation.class.getName());
  private static final long PAUSE_MILLIS = 100;

  private final StoreJournal journal;
  private final int initialClusterSize;
  private final Membership membership;
  private final SegmentOwnership segments;
  private final Quorum quorum;
  private final Messenger messenger;

  /**
   * The epochs the journal recovered, one per segment: read by {@link #recover} when the member
   * joins, before its channel connects (so before any other thread reads them), never changed.
   */
  private long[] recovered;

  /** The views this member installed while forming, as text. */
  private final Set<String> formingViews = ConcurrentHashMap.newKeySet();

  private volatile Settled settled;

  /** The epochs recorded last, one per segment; guarded by this. */
  private long[] recorded;

  /**
   * Per segment, the epoch a pending segment waits for (a holder's record must be at least that
   * new); each guarded by its segment's lock.
   */
  private final long[] floors;

  /**
   * Per segment, whether it was made pending while the cluster ran because every member holding it
   * complete left ({@link #awaitHolder}); each guarded by its segment's lock.
   */
  private final boolean[] awaitingHolder;

  /**
   * Per segment, why this member is to start it empty where no member of its view serves it, rather
   * than wait for a holder (state transfer's {@code startsEmpty}), or null; each guarded by its
   * segment's lock.
   */
  private final GiveUp[] givenUp;

  /** The id of the view this member last cleared in ({@link #cleared}), or -1. */
  private volatile long clearedIn = -1;

  /** The id of the view whose merge this member's side lost, if it is the installed one, or -1. */
  private volatile long lostIn = -1;

  /**
   * Segments state transfer completed in the installed view before it was confirmed: recorded with
   * the view's epochs ({@link #confirmed}). Guarded by the view lock (added under its read side,
   * hence a concurrent set; read and cleared under its write side).
   */
  private final Set<Integer> completedUnrecorded = ConcurrentHashMap.newKeySet();

  /** The id of the last merge view this member installed, or -1. */
  private volatile long mergeViewId = -1;

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
    this.floors = new long[segments.size()];
    this.awaitingHolder = new boolean[segments.size()];
    this.givenUp = new GiveUp[segments.size()];
  }

  /**
   * Reads the epochs the journal recovered: once, when the member joins, before its channel
   * connects (the store and its journal may be filled from the member's own record until then).
   *
   * @throws IllegalStateException if the journal's epochs are not one per segment, or negative
   */
  synchronized void recover() {
    recovered = recoveredEpochs(journal, segments.size());
    recorded = recovered.clone();
  }

  /** Why a member starts a segment it waits for empty, rather than wait on. */
  enum GiveUp {
    /**
     * The cache was cleared: the copies waited for hold only entries the clear removed, so the
     * segment's whole state is empty; nothing acknowledged is lost.
     */
    CLEARED,
    /**
     * The operator gave up the records waited for ({@code abandonWaitingSegments}): the writes only
     * those records held are lost.
     */
    ABANDONED
  }

  /** Returns a journal's recovered epochs, checked: one per segment, none negative. */
  static long[] recoveredEpochs(StoreJournal journal, int segments) {
    long[] e = journal.recordedEpochs(segments);
    if (e == null || e.length != segments) {
      throw new IllegalStateException(
          "the store journal recovered "
              + (e == null ? "no" : String.valueOf(e.length))
              + " epochs for "
              + segments
              + " segments");
    }
    for (long x : e) {
      if (x < 0) {
        throw new IllegalStateException("the store journal recovered a negative epoch: " + x);
      }
    }
    return e.clone();
  }

  /** Returns the 8 bytes an epoch travels as in a member's address. */
  static byte[] encode(long epoch) {
    return ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).putLong(epoch).array();
  }

  /** Returns the largest of some epochs, 0 if none. */
  static long largest(long[] epochs) {
    long max = 0;
    for (long e : epochs) {
      max = Math.max(max, e);
    }
    return max;
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

  /** Whether this member has settled (seeds chosen, or taking the cluster's state). */
  boolean formed() {
    return settled != null;
  }

  /**
   * A view was installed (under the view lock's write side, after every segment was reassigned):
   * remembered while forming; otherwise, once this member is available in it (under quorum: once
   * the view is confirmed, {@link #confirmed}; under allow-all: now), the view's epoch is recorded
   * for every segment it holds OWNED, and the view's retired epoch for every segment the view took
   * away from it (it held it complete until the view). A view that holds a majority but is never
   * confirmed (the cut-off end of a cut made one link at a time, whose view has the number of the
   * confirmed one) records nothing: its epochs would equal the confirmed view's, for a copy without
   * the writes that view acknowledged. A merge view ends every wait for a holder that left ({@link
   * #awaitHolder}): the holders on a partition's losing side are back in the view and serve their
   * copies (they keep them: {@link SegmentOwnership#reassign}), and holders that crashed meanwhile
   * are waited for no longer.
   *
   * <p>A member whose side lost the merge records nothing in it: what it keeps is a copy from
   * before it lost its majority (a member records no epoch while it is not available), not the
   * newest state of every segment it holds, so its records keep the epochs of the views before the
   * partition. The winners recorded the epochs of their views during the partition (newer) for
   * every segment they held complete then, and so rank above the loser's copy at a later full
   * restart; a segment only the losers held, the winners never held complete, so the losers'
   * records of it stay its newest until its owners complete it from their copy (and record the
   * merge view's epoch, or a later one). A retired epoch of the merge view here would rank this
   * stale copy level with a winner's that the merge took away.
   *
   * @param merge whether {@code t} is a merge view
   * @param lost whether this member's side lost that merge
   */
  void installed(Topology t, boolean merge, boolean lost) {
    if (settled == null) {
      formingViews.add(viewName(t));
      return;
    }
    if (merge) {
      mergeViewId = t.viewId();
      for (int s = 0; s < segments.size(); s++) {
        segments.lock(s);
        try {
          if (awaitingHolder[s]) {
            awaitingHolder[s] = false;
            segments.setPending(s, false);
          }
        } finally {
          segments.unlock(s);
        }
      }
    }
    lostIn = lost ? t.viewId() : -1;
    completedUnrecorded.clear();
    if (quorum.available()) {
      // allow-all: available in every view; under quorum a view's epochs wait for its confirmation
      record(t);
    }
  }

  /**
   * The installed view named {@code key} is confirmed (its own thread, see {@link
   * Quorum#recordEpochsWith}): records its epochs as {@link #installed} describes, then lets this
   * member become available in it. Takes the view lock's write side, so that no segment changes
   * state meanwhile and no write of the view is applied before (a primary refuses writes until it
   * is available).
   */
  void confirmed(Quorum.ViewKey key) {
    Lock lock = membership.viewWriteLock();
    lock.lock();
    try {
      Topology t = membership.topology();
      if (t == null || !Quorum.keyOf(t.view()).equals(key)) {
        return; // a newer view came first
      }
      record(t);
      quorum.epochsRecorded(key);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Records the epochs of {@code t}, in which this member is available (or about to be, once they
   * are recorded): nothing while forming or in a merge view its side lost; else {@code t}'s epoch
   * for every segment it holds OWNED or completed in {@code t} meanwhile, and {@code t}'s retired
   * epoch for every segment {@code t} took away from it. Called under the view lock's write side.
   */
  private void record(Topology t) {
    if (settled == null || lostIn == t.viewId()) {
      return;
    }
    List<Integer> owned = new ArrayList<>(completedUnrecorded);
    completedUnrecorded.clear();
    List<Integer> retired = new ArrayList<>();
    for (int s = 0; s < segments.size(); s++) {
      segments.lock(s);
      try {
        SegmentOwnership.State st = segments.state(s);
        if (st == SegmentOwnership.State.OWNED) {
          owned.add(s);
        } else if (st == SegmentOwnership.State.RETIRED && segments.retiredIn(s) == t.viewId()) {
          // held complete until this view: its copy holds every write acknowledged before it,
          // including those acknowledged after the segment's other owner crashed, when this view
          // also dropped that owner
          retired.add(s);
        }
      } finally {
        segments.unlock(s);
      }
    }
    raise(owned, epochOf(t));
    raise(retired, retiredEpochOf(t.viewId()));
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
    return new Decision(Step.WAIT, null);
  }

  /** Returns the decision the answers allow, or null to ask again. */
  private Decision decide(Topology t, Map<Address, Frame> answers) {
    List<Settled> running = new ArrayList<>();
    boolean unknown = false;
    Map<Address, long[]> epochs = new HashMap<>();
    epochs.put(membership.self(), recovered);
    for (Map.Entry<Address, Frame> e : answers.entrySet()) {
      Frame f = e.getValue();
      if (f == null) {
        // left meanwhile: a newer view follows; deciding without its epochs could choose other
        // seeds than the members that heard it
        unknown = true;
        continue;
      }
      if (f.op() == Frame.S_OK && f.names().size() >= 2 && f.value() != null) {
        Settled s = settledOf(f, segments.size());
        if (s == null) {
          unknown = true;
        } else if (formingViews.contains(s.formedIn())) {
          return form(s);
        } else {
          running.add(s);
        }
      } else if (f.op() == Frame.S_NOT_AUTHORITATIVE) {
        epochs.put(e.getKey(), epochsOf(f.value(), e.getKey(), segments.size()));
      } else {
        unknown = true;
      }
    }
    if (!running.isEmpty()) {
      // a cluster that formed in a view this member never saw: it is running; take its state,
      // except for the segments it still waits for, of which this member may hold the record
      return new Decision(Step.JOIN, joined(running));
    }
    if (unknown) {
      return null;
    }
    if (t.members().size() < initialClusterSize) {
      return new Decision(Step.WAIT, null);
    }
    List<Address> members = t.view().getMembers();
    String[] seeds = new String[segments.size()];
    long[] floor = new long[segments.size()];
    long newest = 0;
    for (int s = 0; s < seeds.length; s++) {
      long best = -1;
      for (Address a : members) {
        long[] e = epochs.get(a);
        long epoch = e == null ? 0 : e[s];
        if (epoch > best) {
          best = epoch;
          seeds[s] = Messenger.name(a);
        }
      }
      floor[s] = best;
      newest = Math.max(newest, best);
    }
    Settled s = new Settled((newest >>> 32) + 1, List.of(seeds), viewName(t), floor);
    LOG.log(
        System.Logger.Level.INFO,
        membership.name()
            + ": each segment starts from the newest record of it among "
            + describe(members, epochs)
            + "; "
            + s.mainSeed()
            + " seeds the most");
    return form(s);
  }

  private static Decision form(Settled s) {
    return new Decision(Step.FORM, s);
  }

  /**
   * How a member joining a running cluster settles: the cluster's generation and seeds, and as
   * pending the segments every settled member that answered still holds pending (at the newest of
   * their epochs). A segment one of them no longer holds pending may have taken writes since, so a
   * copy of its old record must not come back.
   */
  private static Settled joined(List<Settled> running) {
    Settled first = running.getFirst();
    long[] need = first.pending().clone();
    for (Settled r : running) {
      for (int s = 0; s < need.length; s++) {
        need[s] = r.pending()[s] == 0 || need[s] == 0 ? 0 : Math.max(need[s], r.pending()[s]);
      }
    }
    return new Settled(first.generation(), first.seeds(), first.formedIn(), need);
  }

  /** Decodes a forming member's recovered epochs; its address's epoch for every segment if none. */
  private static long[] epochsOf(byte[] value, Address member, int n) {
    long[] out = new long[n];
    if (value != null && value.length == n * Long.BYTES) {
      ByteBuffer b = ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN);
      for (int s = 0; s < n; s++) {
        out[s] = Math.max(0, b.getLong());
      }
    } else {
      Arrays.fill(out, recoveredEpochOf(member));
    }
    return out;
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

  /**
   * Reads a settled member's answer: value = generation (i64 LE), then optionally one u16 (LE) per
   * segment, the index in names of that segment's seed (0, or 2 and up), then optionally one i64
   * (LE) per segment, the epoch a pending segment waits for (0: not pending); names = [seed, view
   * it settled in, further seeds]. Returns null if malformed.
   */
  private static Settled settledOf(Frame f, int n) {
    byte[] v = f.value();
    List<String> names = f.names();
    boolean withSeeds = v.length >= Long.BYTES + 2 * n;
    boolean withPending = v.length == Long.BYTES + 2 * n + Long.BYTES * n;
    if (v.length != Long.BYTES && v.length != Long.BYTES + 2 * n && !withPending) {
      return null;
    }
    ByteBuffer b = ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN);
    long generation = b.getLong();
    String[] seeds = new String[n];
    for (int s = 0; s < n; s++) {
      int i = withSeeds ? Short.toUnsignedInt(b.getShort()) : 0;
      if (i == 1 || i >= names.size()) {
        return null;
      }
      seeds[s] = names.get(i);
    }
    long[] pending = new long[n];
    for (int s = 0; s < n && withPending; s++) {
      pending[s] = Math.max(0, b.getLong());
    }
    return new Settled(generation, List.of(seeds), names.get(1), pending);
  }

  /**
   * Takes this member's part in a formation settled in {@code t}'s line, or in the running cluster
   * it joins: marks pending the segments {@code decided} holds pending, and keeps each segment of
   * which its recovered record is at least the pending epoch (a holder), and at a formation each
   * segment it seeds: OWNED where it owns it (INCOMING), recording the formation's epoch for it,
   * and RETIRED in {@code t} where it does not, so it serves it. Takes the view lock's read side.
   *
   * @param decided how this member settled ({@link Decision#settled})
   * @param formation true at a formation (its seeds keep what they seed), false joining
   * @return false if a newer view came first (the next view settles again)
   */
  @SuppressWarnings("ReferenceEquality") // the topology captured earlier is still the installed one
  boolean keep(Topology t, Settled decided, boolean formation) {
    Lock lock = membership.viewReadLock();
    lock.lock();
    try {
      if (membership.topology() != t) {
        return false;
      }
      String self = membership.name();
      List<Integer> owned = new ArrayList<>();
      List<Integer> kept = new ArrayList<>();
      for (int s = 0; s < segments.size(); s++) {
        long need = decided.pending()[s];
        boolean seed = formation && decided.seeds() != null && self.equals(decided.seeds().get(s));
        boolean holder = need > 0 && recovered[s] >= need;
        segments.lock(s);
        try {
          segments.setPending(s, need > 0);
          floors[s] = need;
          if (seed || holder) {
            kept.add(s);
            if (segments.state(s) == SegmentOwnership.State.INCOMING) {
              owned.add(s);
            }
          }
        } finally {
          segments.unlock(s);
        }
      }
      // settled only now: an EPOCH answer names this member's pending segments once they are set
      settled = decided;
      // the epoch first, then OWNED: no write reaches a kept segment before its record says so;
      // in a view not yet confirmed, the segments are OWNED before the view's epochs are recorded
      // (under the view lock's write side, which this read side excludes), and no write is applied
      // before that
      if (quorum.available()) {
        raise(owned, epochOf(t));
      }
      for (int s : kept) {
        segments.lock(s);
        try {
          SegmentOwnership.State st = segments.state(s);
          if (st == SegmentOwnership.State.INCOMING) {
            segments.set(s, SegmentOwnership.State.OWNED, t.viewId());
          } else if (st == SegmentOwnership.State.NONE) {
            segments.set(s, SegmentOwnership.State.RETIRED, t.viewId());
          }
        } finally {
          segments.unlock(s);
        }
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The member each segment should be pulled from first at this formation (its seed, if in {@code
   * t} and not this member), or null entries.
   */
  Address[] seedsIn(Topology t) {
    Address[] out = new Address[segments.size()];
    Settled s = settled;
    if (s == null || s.seeds() == null) {
      return out;
    }
    Map<String, Address> byName = new HashMap<>();
    for (Address a : t.view().getMembers()) {
      byName.put(Messenger.name(a), a);
    }
    byName.remove(membership.name());
    for (int i = 0; i < out.length; i++) {
      out[i] = byName.get(s.seeds().get(i));
    }
    return out;
  }

  /**
   * This member is about to drop its entries of every segment it holds INCOMING or NONE (state
   * transfer's thread): records epoch 0 for them first. An INCOMING segment that keeps a copy as
   * its base ({@link SegmentOwnership#base}) keeps its entries, and its record: a losing side's
   * copy of a segment only it held is the segment's only record until its owners complete it.
   */
  void dropping() {
    if (settled == null) {
      return;
    }
    List<Integer> dropped = new ArrayList<>();
    for (int s = 0; s < segments.size(); s++) {
      segments.lock(s);
      try {
        SegmentOwnership.State st = segments.state(s);
        if ((st == SegmentOwnership.State.INCOMING && !segments.base(s))
            || st == SegmentOwnership.State.NONE) {
          dropped.add(s);
        }
      } finally {
        segments.unlock(s);
      }
    }
    synchronized (this) {
      boolean changed = false;
      for (int s : dropped) {
        changed |= recorded[s] != 0;
        recorded[s] = 0;
      }
      if (changed) {
        journal.recordEpochs(recorded.clone());
      }
    }
  }

  /**
   * State transfer completed some segments in {@code t}: records {@code t}'s epoch for them, before
   * they turn OWNED, if {@code t} is still installed and this member is available. Takes the view
   * lock's read side.
   *
   * @return true if recorded
   */
  @SuppressWarnings("ReferenceEquality") // the topology captured earlier is still the installed one
  boolean completed(Topology t, List<Integer> complete) {
    if (settled == null || complete.isEmpty()) {
      return false;
    }
    for (int s : complete) {
      segments.lock(s);
      try {
        // served, or started empty: nothing left to give up
        givenUp[s] = null;
      } finally {
        segments.unlock(s);
      }
    }
    // a view's epochs are recorded once it is confirmed: wait for that (one round trip), so that
    // the segments are recorded here and announced complete
    quorum.awaitConfirmation();
    Lock lock = membership.viewReadLock();
    lock.lock();
    try {
      if (membership.topology() != t) {
        return false;
      }
      if (quorum.available()) {
        raise(complete, epochOf(t));
        return true;
      }
      if (quorum.majorityInView()) {
        // still confirming: recorded with the view's other epochs if it is confirmed (confirmed),
        // whether or not the segment has turned OWNED by then
        completedUnrecorded.addAll(complete);
      }
      return false;
    } finally {
      lock.unlock();
    }
  }

  /** Answers a T_EPOCH probe (on the delivery thread). */
  void onProbe(Address from, Frame f) {
    Settled s = settled;
    if (s == null) {
      ByteBuffer b =
          ByteBuffer.allocate(recovered.length * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
      for (long e : recovered) {
        b.putLong(e);
      }
      long viewId = membership.topology().viewId();
      messenger.reply(
          from, f.reqId(), Frame.reply(f.reqId(), viewId, Frame.S_NOT_AUTHORITATIVE, b.array()));
    } else {
      answer(messenger, membership, from, f, s, pendingNow());
    }
  }

  /** Per segment, the epoch a pending segment waits for, else 0 (see {@link Settled#pending}). */
  private long[] pendingNow() {
    long[] out = new long[segments.size()];
    for (int s = 0; s < out.length; s++) {
      segments.lock(s);
      try {
        out[s] = segments.pending(s) ? floors[s] : 0;
      } finally {
        segments.unlock(s);
      }
    }
    return out;
  }

  /**
   * State transfer found no member of {@code t} serving segment {@code s}, which this member owns
   * INCOMING and which is not pending: every member that held it complete has left (both owners at
   * once, or the only complete one while the other was still receiving it). Rather than start it
   * empty, this member marks it pending at the epoch of the view before {@code t}: a member that
   * held the segment complete in that view recorded that epoch for it (when it installed the view,
   * or completed the segment in it), and a write acknowledged since was applied by such a member.
   * The segment then takes no write, and its reads wait, until a member with a record at least that
   * new joins (it keeps its copy instead of taking the cluster's state: {@link #keep}) and serves
   * it. Takes the segment lock.
   *
   * @return true if it is pending now; false if this member has not settled, {@code t} is its first
   *     view or a merge view (every member of the view is back: a partition's losing side kept its
   *     copies and serves them, so a segment no member of the merge view serves is held by no
   *     member that could return), the segment is no longer INCOMING, or this member cleared in
   *     {@code t} (the holders' records hold only what the clear removed: it is marked to start
   *     empty, {@link GiveUp#CLEARED})
   */
  boolean awaitHolder(Topology t, int s) {
    if (settled == null || t.previousViewId() < 0 || t.viewId() == mergeViewId) {
      return false;
    }
    long floor = epochOfView(t.previousViewId());
    segments.lock(s);
    try {
      if (segments.state(s) != SegmentOwnership.State.INCOMING || givenUp[s] != null) {
        return false;
      }
      if (clearedIn >= t.viewId()) {
        // cleared since the holders left: their records hold only what the clear removed
        givenUp[s] = GiveUp.CLEARED;
        return false;
      }
      if (!segments.pending(s)) {
        segments.setPending(s, true);
        floors[s] = floor;
        awaitingHolder[s] = true;
      }
      return true;
    } finally {
      segments.unlock(s);
    }
  }

  /**
   * The cache was cleared here (this member's own clear, or another member's CLEAR): no segment
   * waits for a holder any longer. A holder's record holds only entries the clear removed, so a
   * holder returning with it would bring them back, and overwrite writes acknowledged after the
   * clear. So every pending segment stops being pending here at once (a member joining from now on
   * is told so and takes the cluster's state), and each that this member owns INCOMING starts empty
   * where no member of its view serves it ({@link GiveUp#CLEARED}). Takes each segment's lock.
   */
  void cleared() {
    if (settled == null) {
      return;
    }
    // an owner that finds no source later in this view starts the segment empty too (awaitHolder)
    clearedIn = membership.topology().viewId();
    for (int s = 0; s < segments.size(); s++) {
      segments.lock(s);
      try {
        if (segments.pending(s)) {
          endWait(s);
          if (segments.state(s) == SegmentOwnership.State.INCOMING) {
            givenUp[s] = GiveUp.CLEARED;
          }
        }
      } finally {
        segments.unlock(s);
      }
    }
  }

  /**
   * The operator gives up the records some segments wait for: each of {@code waiting} that this
   * member still owns INCOMING and pending starts empty where no member of its view serves it
   * ({@link GiveUp#ABANDONED}); the writes only those records held are lost. Logged as an error.
   * Takes each segment's lock.
   *
   * @param waiting segments no member of the view served when last asked
   * @return the segments marked, in order
   */
  List<Integer> abandon(Collection<Integer> waiting) {
    List<Integer> marked = new ArrayList<>();
    for (int s : new TreeSet<>(waiting)) {
      segments.lock(s);
      try {
        if (segments.state(s) == SegmentOwnership.State.INCOMING && segments.pending(s)) {
          givenUp[s] = GiveUp.ABANDONED;
          marked.add(s);
        }
      } finally {
        segments.unlock(s);
      }
    }
    if (!marked.isEmpty()) {
      LOG.log(
          System.Logger.Level.ERROR,
          membership.name()
              + ": the operator gave up the records segments "
              + marked
              + " wait for: they start empty, and every acknowledged write only those records held"
              + " is lost");
    }
    return marked;
  }

  /**
   * Why this member is to start a segment no member of its view serves empty, rather than wait for
   * a holder, or null to wait. Caller holds the segment's lock.
   */
  GiveUp givenUp(int s) {
    return givenUp[s];
  }

  /**
   * The segment is no longer waited for (it starts empty, or a clear emptied it): not pending, no
   * floor, no give-up. Caller holds the segment's lock.
   */
  void endWait(int s) {
    segments.setPending(s, false);
    floors[s] = 0;
    awaitingHolder[s] = false;
    givenUp[s] = null;
  }

  /**
   * Answers a T_EPOCH probe for a member that keeps no record: it counts as a running cluster,
   * generation 0, so a durable member joining it takes its state.
   */
  static void answerNotDurable(Messenger messenger, Membership membership, Address from, Frame f) {
    answer(messenger, membership, from, f, new Settled(0, null, "", null), null);
  }

  /**
   * @param pending per segment the epoch a pending segment waits for (0: not pending), or null for
   *     a member that keeps no record
   */
  private static void answer(
      Messenger messenger,
      Membership membership,
      Address from,
      Frame f,
      Settled s,
      long[] pending) {
    long viewId = membership.topology().viewId();
    List<String> names = new ArrayList<>(List.of(s.mainSeed(), s.formedIn()));
    ByteBuffer value;
    if (s.seeds() == null) {
      value = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
      value.putLong(s.generation());
    } else {
      int n = s.seeds().size();
      value =
          ByteBuffer.allocate(Long.BYTES + 2 * n + (pending == null ? 0 : Long.BYTES * n))
              .order(ByteOrder.LITTLE_ENDIAN);
      value.putLong(s.generation());
      for (String seed : s.seeds()) {
        int i = seed.equals(names.get(0)) ? 0 : names.indexOf(seed);
        if (i < 2) {
          names.add(seed);
          i = names.size() - 1;
        }
        value.putShort((short) i);
      }
      for (int i = 0; pending != null && i < n; i++) {
        value.putLong(pending[i]);
      }
    }
    messenger.reply(
        from,
        f.reqId(),
        Frame.reply(f.reqId(), viewId, Frame.S_OK, value.array()).withNames(names));
  }

  private long epochOf(Topology t) {
    return epochOfView(t.viewId());
  }

  /** The epoch of an owner holding a segment complete in view {@code viewId}. */
  private long epochOfView(long viewId) {
    return (settled.generation() << 32) | ((viewId & 0x7FFF_FFFFL) << 1) | 1;
  }

  /**
   * The epoch of a member that held a segment complete as view {@code viewId} began, and that view
   * took it away: newer than any epoch of an earlier view, older than that view's owners'.
   */
  private long retiredEpochOf(long viewId) {
    return epochOfView(viewId) - 1;
  }

  /** Records {@code epoch} for some segments, where it is larger than the one recorded. */
  private synchronized void raise(List<Integer> segs, long epoch) {
    boolean changed = false;
    for (int s : segs) {
      if (epoch > recorded[s]) {
        recorded[s] = epoch;
        changed = true;
      }
    }
    if (changed) {
      journal.recordEpochs(recorded.clone());
    }
  }

  /** For messages: a view's members and the largest epoch each recovered. */
  private static String describe(List<Address> members, Map<Address, long[]> epochs) {
    StringBuilder b = new StringBuilder();
    for (Address a : members) {
      long[] e = epochs.get(a);
      b.append(b.isEmpty() ? "" : ", ")
          .append(Messenger.name(a))
          .append(" (newest epoch ")
          .append(Long.toHexString(e == null ? 0 : largest(e)))
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
