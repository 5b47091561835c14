package dev.larder.cluster.internal;

import dev.larder.cluster.KeyPartitioner;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What this member holds of each segment of the key space, with one lock per segment. (Who owns a
 * segment in a view is {@link ConsistentHash}; this is how much of it this member has.)
 *
 * <p>Implementation notes. A segment is in one of four states:
 *
 * <ul>
 *   <li>{@code OWNED}: this member owns it and holds every write acknowledged so far;
 *   <li>{@code INCOMING}: this member owns it and receives its writes, but its earlier entries are
 *       still arriving by state transfer. Keys written since it became incoming are <em>live</em>:
 *       their local value is current, and state-transfer entries for them are ignored (a live write
 *       is always newer than a snapshot);
 *   <li>{@code RETIRED}: this member owned it, complete, until view {@code retiredIn} took it away;
 *       its entries are complete up to that view and serve as a state-transfer source;
 *   <li>{@code NONE}: nothing usable.
 * </ul>
 *
 * <p>A member keeps a RETIRED segment across views, until state transfer drops it once every owner
 * of the current view holds it complete (their HELD): views in quick succession can move a
 * segment's owners again before the new ones received it, and then this copy is the only complete
 * one, journal or not. Its copy holds every write acknowledged before the view that retired it, and
 * an owner that has been receiving the segment's writes since that view or earlier ({@link
 * #incomingSince}) misses none after it: so it may be served to such an owner ({@link #servable})
 * in any later view.
 *
 * <p>A member that is made an owner again of a segment it holds RETIRED (a former owner: one view
 * took the segment away, a later one gives it back before every new owner received it) keeps its
 * copy as a <em>base</em> ({@link #base}): the segment is INCOMING, but its entries are not
 * dropped. The base still holds every write acknowledged before the view that retired it, so it is
 * still served, like the RETIRED copy it was, to an owner receiving the segment's writes since that
 * view or earlier ({@link #servable}); without it, a failure of the segment's only complete owner
 * while the new owner was still receiving it would leave no copy anywhere. This member itself
 * completes the segment from a complete source: the keys the source sends are noted ({@link
 * #noteReceived}), and the base's other entries that were not written here since are dropped before
 * the segment turns OWNED (they were removed meanwhile).
 *
 * <p>A durable member's segment may also be <em>pending</em> (set when the member settles a
 * formation, cleared once every owner of the segment in a view holds it complete; see {@link
 * Formation}): no write is applied to it anywhere while it is, so every copy of its newest record
 * is still current. A RETIRED pending segment is served to any owner, and becomes OWNED again if
 * this member owns it again.
 *
 * <p>Every state read or change of a segment, and every local write to its entries, happens under
 * that segment's lock, so a state-transfer entry can never overwrite a live write. A new view moves
 * each segment with {@link #reassign}; state transfer moves INCOMING segments to OWNED.
 */
final class SegmentOwnership {

  enum State {
    NONE,
    INCOMING,
    OWNED,
    RETIRED
  }

  private final State[] states;
  private final long[] retiredIn;
  private final ReentrantLock[] locks;
  private final List<Set<ByteKey>> live;
  private final boolean[] mayHold;
  private final boolean[] pending;
  private final long[] incomingSince;

  /** Per segment, whether an INCOMING segment keeps a former owner's copy as its base. */
  private final boolean[] based;

  /** Per based segment, the view that retired its base (the base holds every write before it). */
  private final long[] baseRetiredIn;

  /**
   * Per INCOMING segment, the names of the members that held it complete, are missing from this
   * member's view and may be cut off rather than down (quorum partition handling), or null: while
   * not null its writes are refused. Cleared by any change of state.
   */
  private final List<Set<String>> awaitedHolders;

  /** Per based segment, the keys received by state transfer since it became INCOMING, or null. */
  private final List<Set<ByteKey>> received;

  /** Maps keys to segments, or null for {@link ConsistentHash#segmentOf}. */
  private final KeyPartitioner partitioner;

  SegmentOwnership(int segments, KeyPartitioner partitioner) {
    this.partitioner = partitioner;
    states = new State[segments];
    retiredIn = new long[segments];
    locks = new ReentrantLock[segments];
    live = new ArrayList<>(Collections.nCopies(segments, (Set<ByteKey>) null));
    mayHold = new boolean[segments];
    pending = new boolean[segments];
    incomingSince = new long[segments];
    based = new boolean[segments];
    baseRetiredIn = new long[segments];
    awaitedHolders = new ArrayList<>(Collections.nCopies(segments, (Set<String>) null));
    received = new ArrayList<>(Collections.nCopies(segments, (Set<ByteKey>) null));
    for (int s = 0; s < segments; s++) {
      states[s] = State.NONE;
      locks[s] = new ReentrantLock();
    }
  }

  int size() {
    return states.length;
  }

  /** Returns the segment an encoded key belongs to. */
  int segmentOf(byte[] key) {
    return partitioner == null
        ? ConsistentHash.segmentOf(key, states.length)
        : partitioner.segmentOf(key, states.length);
  }

  void lock(int s) {
    locks[s].lock();
  }

  void unlock(int s) {
    locks[s].unlock();
  }

  /** Caller holds the segment lock. */
  State state(int s) {
    return states[s];
  }

  /**
   * The view since which this member has owned an INCOMING segment continuously (and so received
   * every write of it). Caller holds the segment lock.
   */
  long incomingSince(int s) {
    return incomingSince[s];
  }

  /** The view that retired a RETIRED segment, else 0. Caller holds the segment lock. */
  long retiredIn(int s) {
    return retiredIn[s];
  }

  /** Caller holds the segment lock. */
  void set(int s, State state, long viewId) {
    if (state == State.INCOMING && states[s] != State.INCOMING) {
      incomingSince[s] = viewId;
    }
    if (state != states[s]) {
      awaitedHolders.set(s, null);
    }
    states[s] = state;
    retiredIn[s] = state == State.RETIRED ? viewId : 0;
    if (state != State.INCOMING) {
      based[s] = false;
      received.set(s, null);
    }
    if (state == State.INCOMING) {
      if (live.get(s) == null) {
        live.set(s, new HashSet<>());
      }
    } else {
      live.set(s, null);
    }
  }

  /**
   * Sets a segment's state for a new view: a founder's own segments and segments already owned stay
   * OWNED; other owned segments become (or stay) INCOMING, a RETIRED one keeping its copy as a base
   * (see the class notes); a segment this member no longer owns is RETIRED if it was complete here,
   * else NONE. A RETIRED segment stays RETIRED (from the view that retired it) where this member
   * does not own it, and so does a based INCOMING one (from the view that retired its base); a
   * durable member's pending one becomes OWNED where it does (no write has been applied to it
   * since). A member whose side lost a merge starts from NONE, unless it keeps its copies on a
   * loss: then a segment it held complete is RETIRED by this view where it does not own it, and
   * INCOMING with its copy as a base (retired by this view) where it does; either copy is served to
   * owners receiving the segment's writes since this view or earlier, so an owner that finds no
   * complete copy on the winning side completes from it (see {@link Membership}). Takes the segment
   * lock.
   *
   * @param keepOnLoss whether a lost merge keeps the copy of a segment held complete here
   * @return true if the segment is INCOMING, so state transfer must fetch it
   */
  boolean reassign(
      int s, boolean owner, boolean founder, boolean lostMerge, boolean keepOnLoss, long viewId) {
    lock(s);
    try {
      if (lostMerge && keepOnLoss && states[s] == State.OWNED) {
        // this side's copy, served (as a former owner's) to any owner receiving the segment's
        // writes since this view or earlier, and kept as a base where this member still owns it
        if (!owner) {
          set(s, State.RETIRED, viewId);
          return false;
        }
        set(s, State.INCOMING, viewId);
        based[s] = true;
        baseRetiredIn[s] = viewId;
        received.set(s, new HashSet<>());
        return true;
      }
      State state = lostMerge ? State.NONE : states[s];
      boolean kept = state == State.RETIRED && pending[s];
      if (owner) {
        if (founder || state == State.OWNED || kept) {
          set(s, State.OWNED, viewId);
          return false;
        }
        if (state == State.RETIRED) {
          long base = retiredIn[s];
          set(s, State.INCOMING, viewId);
          based[s] = true;
          baseRetiredIn[s] = base;
          received.set(s, new HashSet<>());
        } else if (state != State.INCOMING) {
          set(s, State.INCOMING, viewId);
        }
        return true;
      }
      if (state == State.INCOMING && based[s]) {
        set(s, State.RETIRED, baseRetiredIn[s]);
        return false;
      }
      if (!kept && state != State.RETIRED) {
        set(s, state == State.OWNED ? State.RETIRED : State.NONE, viewId);
      }
      return false;
    } finally {
      unlock(s);
    }
  }

  /**
   * Whether an INCOMING segment keeps a former owner's copy as its base (see the class notes).
   * Caller holds the segment lock.
   */
  boolean base(int s) {
    return states[s] == State.INCOMING && based[s];
  }

  /**
   * Records that state transfer stored a key of a based segment (see {@link #base}). Caller holds
   * the segment lock.
   */
  void noteReceived(int s, ByteKey key) {
    if (base(s)) {
      received.get(s).add(key);
    }
  }

  /**
   * Whether a key's local entry in a based segment is to be dropped when the segment completes: it
   * was neither written here since the segment became INCOMING nor received by state transfer, so
   * it is the base's and the complete source no longer holds it. Caller holds the segment lock.
   */
  boolean staleInBase(int s, ByteKey key) {
    return base(s) && !live.get(s).contains(key) && !received.get(s).contains(key);
  }

  /**
   * Gives up a based segment's base: its entries are then dropped like any INCOMING segment's (used
   * when no member can complete the segment from it). Caller holds the segment lock.
   */
  void dropBase(int s) {
    based[s] = false;
    received.set(s, null);
  }

  /**
   * Records that an INCOMING segment waits for the members {@code missing} (which held it complete
   * and are not in the view), on top of those it waited for already, and drops from the record the
   * members {@code present} in the view now (back from the other side of a partition, which serve
   * it, or restarted, which hold nothing of it) and those no longer {@code stable} (they left on
   * purpose). Caller holds the segment lock.
   *
   * @return whether the segment still waits (its writes are refused while it does)
   */
  boolean awaitHolders(
      int s, Collection<String> missing, Collection<String> present, Collection<String> stable) {
    if (states[s] != State.INCOMING) {
      return false;
    }
    Set<String> awaited = awaitedHolders.get(s) == null ? new HashSet<>() : awaitedHolders.get(s);
    awaited.addAll(missing);
    awaited.removeIf(n -> present.contains(n) || !stable.contains(n));
    awaitedHolders.set(s, awaited.isEmpty() ? null : awaited);
    return !awaited.isEmpty();
  }

  /**
   * Whether the segment waits for a missing holder ({@link #awaitHolders}). Caller holds the
   * segment lock.
   */
  boolean awaitingHolder(int s) {
    return awaitedHolders.get(s) != null;
  }

  /** Whether the segment is pending (see the class notes). Caller holds the segment lock. */
  boolean pending(int s) {
    return pending[s];
  }

  /** Sets or clears the segment's pending mark. Caller holds the segment lock. */
  void setPending(int s, boolean p) {
    pending[s] = p;
  }

  /** Whether the segment is pending. Takes the segment lock. */
  boolean pendingLocked(int s) {
    lock(s);
    try {
      return pending[s];
    } finally {
      unlock(s);
    }
  }

  /**
   * Whether this member may serve the segment to a puller that has been receiving its writes since
   * view {@code since}: it holds it OWNED, or RETIRED by that view or a later one, or RETIRED and
   * pending, or INCOMING with a base retired by that view or a later one. Caller holds the segment
   * lock.
   */
  boolean servable(int s, long since) {
    return states[s] == State.OWNED
        || (states[s] == State.RETIRED && (since <= retiredIn[s] || pending[s]))
        || (base(s) && since <= baseRetiredIn[s]);
  }

  /**
   * Records that the local store may now hold entries of the segment (any local write or received
   * entry). Caller holds the segment lock.
   */
  void noteHeld(int s) {
    mayHold[s] = true;
  }

  /**
   * Whether the local store may hold entries of the segment; if {@code forget}, the segment is
   * recorded as empty from now on (the caller is about to drop its entries, and any later write
   * records itself again). Caller holds the segment lock.
   */
  boolean mayHold(int s, boolean forget) {
    boolean held = mayHold[s];
    if (forget) {
      mayHold[s] = false;
    }
    return held;
  }

  /** Records a write (and, while incoming, that its key is live). Caller holds the lock. */
  void markLive(int s, ByteKey key) {
    mayHold[s] = true;
    if (states[s] == State.INCOMING) {
      live.get(s).add(key);
    }
  }

  /** Caller holds the segment lock. */
  boolean isLive(int s, ByteKey key) {
    return states[s] == State.INCOMING && live.get(s).contains(key);
  }

  /** Whether this member's value for a key is current. Caller holds the segment lock. */
  boolean authoritative(int s, ByteKey key) {
    return states[s] == State.OWNED || isLive(s, key);
  }

  /** Whether this member's value for a key is current. Takes the segment lock. */
  boolean authoritativeLocked(int s, ByteKey key) {
    lock(s);
    try {
      return authoritative(s, key);
    } finally {
      unlock(s);
    }
  }

  /** Whether this member owns the segment in its view (OWNED or INCOMING). Takes the lock. */
  boolean ownedOrIncoming(int s) {
    lock(s);
    try {
      return states[s] == State.OWNED || states[s] == State.INCOMING;
    } finally {
      unlock(s);
    }
  }

  /** Returns the number of incoming segments. */
  int incomingCount() {
    int n = 0;
    for (int s = 0; s < states.length; s++) {
      lock(s);
      try {
        if (states[s] == State.INCOMING) {
          n++;
        }
      } finally {
        unlock(s);
      }
    }
    return n;
  }
}
