package dev.larder.cluster.internal;

import dev.larder.cluster.ClusterDegradedException;
import dev.larder.cluster.PartitionHandling;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.jgroups.Address;
import org.jgroups.MergeView;
import org.jgroups.View;

/**
 * Partition handling: whether this member may serve, and which side of a healed partition keeps its
 * entries. Thread-safe.
 *
 * <p>Implementation notes.
 *
 * <ul>
 *   <li><b>Stable members.</b> Under {@link PartitionHandling#QUORUM} a member keeps the names of
 *       the cluster's stable members: those of its first view that held {@code initialClusterSize}
 *       members, plus every member of each later view it was available in. The set only grows (a
 *       member that crashed is still counted, so two sides of a later partition are measured
 *       against the same set); names, not JGroups addresses, so that a member restarted under its
 *       name counts as itself.
 *   <li><b>Available</b> means this member's view holds more than half of the stable members. Two
 *       disjoint sides cannot both hold more than half of one set, so at most one side of a
 *       partition is available. A member that has not yet seen {@code initialClusterSize} members
 *       is not available (its cache is not handed out anyway).
 *   <li><b>Merges.</b> The side that keeps its entries is the subgroup holding more than half of
 *       this member's stable members; an available member's own side always does, unless a strictly
 *       larger subgroup exists (then it was a member that founded a cluster of its own, whose
 *       stable set is itself, and the larger side wins as under allow-all). With no such subgroup,
 *       no side was available, so none took writes: no side drops its entries (in DISTRIBUTED mode
 *       each side may hold segments whose owners were all on it, which a winner's copy, started
 *       empty or never held, would replace), and the merged view moves segments as any view does. A
 *       member whose stable set is still empty follows {@link MergeWinner}.
 *   <li>{@link #install} runs under the view lock's write side, before the segments move for the
 *       view, so every local write and read sees the availability of the view it runs in.
 * </ul>
 *
 * Under {@link PartitionHandling#ALLOW_ALL} every member is always available and merges follow
 * {@link MergeWinner}.
 */
final class Quorum {

  /**
   * This member's availability in its installed view.
   *
   * @param available whether it serves writes
   * @param present the stable members in its view
   * @param stable the stable members
   */
  record State(boolean available, List<String> present, List<String> stable) {}

  private static final State ALWAYS = new State(true, List.of(), List.of());

  private final PartitionHandling handling;
  private static final System.Logger LOG = System.getLogger(Quorum.class.getName());

  private final boolean minorityReads;
  private final int initialClusterSize;
  private final Supplier<String> selfName;

  /** Guarded by this. */
  private final Set<String> stable = new LinkedHashSet<>();

  private volatile State state;
  private volatile View lastWinner;

  /**
   * Views installed (and LEAVEs heard) in which this member was not available; a write compares it
   * before and after waiting for its backups ({@link #availableSince}).
   */
  private volatile long unavailableStates;

  /**
   * @param handling QUORUM or ALLOW_ALL
   * @param minorityReads whether a member that is not available still serves reads
   * @param initialClusterSize the members of the first view whose names become stable
   * @param selfName this member's name, for messages
   */
  Quorum(
      PartitionHandling handling,
      boolean minorityReads,
      int initialClusterSize,
      Supplier<String> selfName) {
    this.handling = handling;
    this.minorityReads = minorityReads;
    this.initialClusterSize = initialClusterSize;
    this.selfName = selfName;
    this.state =
        handling == PartitionHandling.QUORUM ? new State(false, List.of(), List.of()) : ALWAYS;
  }

  /**
   * Takes a new view into account; called under the view lock's write side.
   *
   * @return whether this member's side lost a merge (it must drop its entries)
   */
  synchronized boolean install(View view, Address self) {
    View winner = winner(view);
    lastWinner = winner;
    boolean lost = winner != null && !winner.containsMember(self);
    if (handling == PartitionHandling.ALLOW_ALL) {
      return lost;
    }
    if (view instanceof MergeView merge && winner != null) {
      boolean wasAvailable = state.available();
      if (!lost && !stable.isEmpty() && !wasAvailable) {
        // A member that was not available took no write while apart, so the side with a majority
        // holds everything it held and more: it lost, whatever the subgroups say. JGroups can name
        // it in the winning subgroup (a merge retried after a partial one); kept as won, its copy
        // from the cut stayed owned and it answered the majority's writes of that time as absent.
        lost = true;
      }
      boolean lostMerge = lost;
      LOG.log(
          System.Logger.Level.INFO,
          () ->
              selfName.get()
                  + ": merge view "
                  + view.getViewId()
                  + ", subgroups "
                  + merge.getSubgroups().stream().map(v -> names(v.getMembers())).toList()
                  + ", winner "
                  + names(winner.getMembers())
                  + (wasAvailable ? "; was available" : "; was not available")
                  + (lostMerge ? ": lost the merge" : ": won the merge"));
    }
    List<String> names = names(view.getMembers());
    if (stable.isEmpty() && view.size() >= initialClusterSize) {
      stable.addAll(names);
    }
    List<String> present = names.stream().filter(stable::contains).toList();
    boolean available = !stable.isEmpty() && present.size() * 2 > stable.size();
    if (available) {
      stable.addAll(names);
    }
    setState(new State(available, present, List.copyOf(stable)));
    return lost;
  }

  /**
   * A member said it is closing (LEAVE): it stops counting among the stable members, so that
   * members that leave on purpose do not leave the rest without a majority. Only the members that
   * heard it drop it; a member cut off at the time keeps counting it, which only makes it slower to
   * become available.
   *
   * @param name the closing member's name
   * @param current this member's installed view (null before its first view)
   */
  synchronized void onLeave(String name, View current) {
    if (handling == PartitionHandling.ALLOW_ALL || !stable.remove(name) || current == null) {
      return;
    }
    List<String> names = names(current.getMembers());
    names.remove(name);
    List<String> present = names.stream().filter(stable::contains).toList();
    boolean available = !stable.isEmpty() && present.size() * 2 > stable.size();
    setState(new State(available, present, List.copyOf(stable)));
  }

  /** Called with this object's lock held. */
  @SuppressWarnings("NonAtomicVolatileUpdate") // one writer (under the lock); volatile for readers
  private void setState(State next) {
    if (!next.available()) {
      unavailableStates++;
    }
    state = next;
  }

  /** Returns the subgroup of a merge view whose entries win, or null if not a merge view. */
  private View winner(View view) {
    if (!(view instanceof MergeView merge) || handling == PartitionHandling.ALLOW_ALL) {
      return MergeWinner.of(view);
    }
    View quorumSide = null;
    for (View sub : merge.getSubgroups()) {
      if (!stable.isEmpty() && majority(sub)) {
        quorumSide = sub;
      }
    }
    if (quorumSide != null) {
      for (View sub : merge.getSubgroups()) {
        if (sub.size() > quorumSide.size()) {
          return MergeWinner.of(view);
        }
      }
      return quorumSide;
    }
    // no side held a majority, so none took writes: every side's entries are as current as the
    // others', and each may hold segments no other side holds (in DISTRIBUTED mode, those whose
    // owners were all on it), so no side drops its entries; a member that never reached
    // initialClusterSize holds nothing of its own and follows the allow-all rule
    return stable.isEmpty() ? MergeWinner.of(view) : null;
  }

  private boolean majority(View sub) {
    long present = names(sub.getMembers()).stream().filter(stable::contains).count();
    return present * 2 > stable.size();
  }

  private static List<String> names(List<Address> members) {
    List<String> out = new ArrayList<>(members.size());
    for (Address a : members) {
      out.add(Messenger.name(a));
    }
    return out;
  }

  /** Returns the side of the last merge view whose entries win, or null if it was no merge. */
  View winner() {
    return lastWinner;
  }

  /**
   * The member whose value dictionary is the reference after the last view: its coordinator; after
   * a merge, the first member (in the merged view's order) of the side that kept its entries.
   */
  Address dictionaryReference(View view) {
    View winner = lastWinner;
    if (winner != null && view instanceof MergeView) {
      for (Address a : view.getMembers()) {
        if (winner.containsMember(a)) {
          return a;
        }
      }
    }
    return view.getCoord();
  }

  /**
   * A mark to pass to {@link #availableSince}, taken while this member is available (a primary
   * takes it under the view lock as it applies a write).
   *
   * @return the mark
   */
  long mark() {
    return unavailableStates;
  }

  /**
   * Whether this member has stayed available since {@code mark} was taken: under QUORUM, no view
   * (or LEAVE) since then left it without a majority. A primary whose backup left the view instead
   * of acknowledging a write may acknowledge it only then: if this member lost its majority
   * meanwhile, the backup left because this member was cut off, its copy is the only one, and the
   * merge will drop it. Always true under ALLOW_ALL.
   *
   * @param mark a value of {@link #mark}
   * @return whether the member is available now and has been since the mark
   */
  boolean availableSince(long mark) {
    return handling == PartitionHandling.ALLOW_ALL
        || (state.available() && unavailableStates == mark);
  }

  /**
   * @param mark a value of {@link #mark} taken before the operation was applied here
   * @param operation names the operation in the message
   * @throws ClusterDegradedException if this member did not stay available since {@code mark}
   */
  void checkAvailableSince(long mark, String operation) {
    if (!availableSince(mark)) {
      State s = state;
      throw new ClusterDegradedException(selfName.get(), operation, s.present(), s.stable());
    }
  }

  /** Returns whether this member serves writes in its installed view. */
  boolean available() {
    return state.available();
  }

  /** Returns this member's availability, for status pages. */
  State state() {
    return state;
  }

  /** Returns the partition handling. */
  PartitionHandling handling() {
    return handling;
  }

  /**
   * @throws ClusterDegradedException if this member may not serve writes now
   */
  void checkWrite() {
    State s = state;
    if (!s.available()) {
      throw new ClusterDegradedException(selfName.get(), "write", s.present(), s.stable());
    }
  }

  /**
   * @throws ClusterDegradedException if this member may not serve reads now
   */
  void checkRead() {
    State s = state;
    if (!s.available() && !minorityReads) {
      throw new ClusterDegradedException(selfName.get(), "read", s.present(), s.stable());
    }
  }
}
