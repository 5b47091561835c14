package dev.larder.cluster.internal;

import dev.larder.cluster.ClusterDegradedException;
import dev.larder.cluster.PartitionHandling;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
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
 *   <li><b>Available</b> means that more than half of the stable members (as they were when this
 *       member installed the view) installed this very view: each member tells every other of its
 *       view when it installs one (INSTALLED, {@link ViewConfirmations}), naming the view by its
 *       number and its creator, and a member counts the reports for the view it installed, itself
 *       included. A view that merely holds a majority is not enough: a cut of one link can make two
 *       coordinators each install a view with the same number holding the same third member, which
 *       installs only one of them (JGroups refuses a view whose number is not above its own), so
 *       only that one is ever confirmed. Two confirmed views with the same number would need a
 *       member that installed both; so at most one view of each number is confirmed, and two
 *       disjoint sides cannot both be. Between installing a view that holds a majority and its
 *       confirmation a member is <i>confirming</i>: callers wait for the outcome (up to the cluster
 *       timeout) rather than being refused, primaries answer RETRY, backups accept. A durable
 *       member stays confirming after the confirmation until it has recorded the view's epochs
 *       ({@link #recordEpochsWith}): a view that is never confirmed records none, so the cut-off
 *       end of a cut made one link at a time leaves no record that ties with the confirmed view of
 *       the same number at a full restart.
 *   <li><b>Last available.</b> A member keeps the number of the last view it was available in, and
 *       reports it with each INSTALLED. Within a view it stays available until the next view (or a
 *       LEAVE), so a write acknowledged in view v was applied by members whose last available view
 *       is at least v.
 *   <li><b>Merges.</b> Before installing a merge view every member waits (up to the cluster
 *       timeout) for the INSTALLED of every other member of it, so that it knows each one's last
 *       available view. The members whose last available view is the newest keep their entries; the
 *       others drop theirs and receive the winners'. When every member reports the same, no side
 *       was available since they last were together, none took writes, and no member drops its
 *       entries: the merged view moves segments as any view does. The subgroups JGroups lists are
 *       not used: those of a cut made one link at a time overlap, and a subgroup can name a member
 *       that never installed its view. A member whose stable set is still empty (it never saw
 *       {@code initialClusterSize} members) follows {@link MergeWinner}.
 *   <li>{@link #install} runs under the view lock's write side, before the segments move for the
 *       view, so every local write and read sees the availability of the view it runs in;
 *       confirmations arrive later, on the delivery thread, and only ever turn a confirming member
 *       available (a member refused while confirming retries).
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
   * @param confirming whether its view holds a majority of the stable members that has not yet
   *     confirmed it (callers wait for the outcome)
   * @param present the stable members in its view that installed it (when available: every stable
   *     member in its view)
   * @param stable the stable members
   */
  record State(boolean available, boolean confirming, List<String> present, List<String> stable) {}

  /**
   * A view named as INSTALLED names it: its number and its creator.
   *
   * @param number the view's number ({@code ViewId.getId()})
   * @param creator the creator's address in its long form ({@link ViewConfirmations#creatorOf})
   */
  record ViewKey(long number, String creator) {}

  private static final State ALWAYS = new State(true, false, List.of(), List.of());

  private final PartitionHandling handling;
  private static final System.Logger LOG = System.getLogger(Quorum.class.getName());

  private final boolean minorityReads;
  private final int initialClusterSize;
  private final Supplier<String> selfName;
  private final long settleNanos;

  /** Guarded by this. */
  private final Set<String> stable = new LinkedHashSet<>();

  /** The stable members as the installed view began, less those that left; guarded by this. */
  private final Set<String> counted = new LinkedHashSet<>();

  /**
   * Members of the installed view that said LEAVE: not added to the stable members again when this
   * member becomes available in it; guarded by this.
   */
  private final Set<String> departed = new LinkedHashSet<>();

  /** The installed view, or null; guarded by this. */
  private View current;

  /** Its key, or null; guarded by this. */
  private ViewKey currentKey;

  /**
   * INSTALLED reports of the installed view and of views not yet installed here, by view, each name
   * with its last available view; guarded by this.
   */
  private final Map<ViewKey, Map<String, Long>> reports = new HashMap<>();

  /** The number of the last view this member was available in; guarded by this. */
  private long lastAvailable;

  /**
   * What records a durable member's epochs for a confirmed view before the member becomes available
   * in it ({@link #recordEpochsWith}), or null; set once before the first view.
   */
  private volatile Consumer<ViewKey> epochRecorder;

  /** The installed view once its epochs are recorded, else null; guarded by this. */
  private ViewKey recordedKey;

  /** The installed view once its epochs are asked to be recorded, else null; guarded by this. */
  private ViewKey recordingKey;

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
   * @param settle how long a caller waits for a confirming view's outcome (the cluster timeout)
   */
  Quorum(
      PartitionHandling handling,
      boolean minorityReads,
      int initialClusterSize,
      Supplier<String> selfName,
      Duration settle) {
    this.handling = handling;
    this.minorityReads = minorityReads;
    this.initialClusterSize = initialClusterSize;
    this.selfName = selfName;
    this.settleNanos = settle.toNanos();
    this.state =
        handling == PartitionHandling.QUORUM
            ? new State(false, false, List.of(), List.of())
            : ALWAYS;
  }

  /**
   * Takes a new view into account; called under the view lock's write side.
   *
   * @param view the view
   * @param self this member
   * @param mergeReports for a merge view, each other member's last available view as it reported it
   *     ({@link #awaitReports}); ignored otherwise
   * @return whether this member's side lost a merge (it must drop its entries)
   */
  synchronized boolean install(View view, Address self, Map<String, Long> mergeReports) {
    if (handling == PartitionHandling.ALLOW_ALL) {
      View winner = MergeWinner.of(view);
      lastWinner = winner;
      return winner != null && !winner.containsMember(self);
    }
    boolean lost = decideMerge(view, self, mergeReports);
    List<String> names = names(view.getMembers());
    if (stable.isEmpty() && view.size() >= initialClusterSize) {
      stable.addAll(names);
    }
    current = view;
    currentKey = keyOf(view);
    counted.clear();
    counted.addAll(stable);
    departed.retainAll(names);
    reports.keySet().removeIf(k -> k.number() < currentKey.number());
    reevaluate();
    return lost;
  }

  /** Sets {@link #lastWinner} for a view; returns whether this member lost the merge. */
  private boolean decideMerge(View view, Address self, Map<String, Long> mergeReports) {
    if (!(view instanceof MergeView merge)) {
      lastWinner = null;
      return false;
    }
    if (stable.isEmpty()) {
      View winner = MergeWinner.of(view);
      lastWinner = winner;
      return !winner.containsMember(self);
    }
    long best = lastAvailable;
    for (long r : mergeReports.values()) {
      best = Math.max(best, r);
    }
    List<Address> winners = new ArrayList<>();
    for (Address a : view.getMembers()) {
      Long r = a.equals(self) ? Long.valueOf(lastAvailable) : mergeReports.get(Messenger.name(a));
      if (r != null && r == best) {
        winners.add(a);
      }
    }
    boolean lost = lastAvailable < best;
    // every member as current as the others: none took writes apart, none drops its entries
    View winner =
        winners.size() == view.size()
            ? null
            : View.create(
                view.getCoord(), view.getViewId().getId(), winners.toArray(Address[]::new));
    lastWinner = winner;
    long mine = lastAvailable;
    LOG.log(
        System.Logger.Level.INFO,
        () ->
            selfName.get()
                + ": merge view "
                + view.getViewId()
                + ", subgroups "
                + merge.getSubgroups().stream().map(v -> names(v.getMembers())).toList()
                + ", last available views "
                + mergeReports
                + ", here "
                + mine
                + (winner == null
                    ? ": every member as current, none drops its entries"
                    : ", newest kept by "
                        + names(winner.getMembers())
                        + (lost ? ": lost the merge" : ": won the merge")));
    return lost;
  }

  /**
   * An INSTALLED report, on the delivery thread: member {@code from} installed the view {@code key}
   * and was last available in view {@code lastAvailableThere}. Counts toward this member's
   * availability if it is the installed view; kept if the view is newer (it may be installed here
   * next); dropped if older.
   */
  synchronized void report(ViewKey key, String from, long lastAvailableThere) {
    if (handling == PartitionHandling.ALLOW_ALL
        || (currentKey != null && key.number() < currentKey.number())) {
      return;
    }
    reports.computeIfAbsent(key, k -> new HashMap<>()).put(from, lastAvailableThere);
    if (key.equals(currentKey)) {
      reevaluate();
    }
    notifyAll();
  }

  /**
   * Waits until every member of {@code view} but this one has reported that it installed it, the
   * deadline passes or the thread is interrupted.
   *
   * @return each reporting member's last available view (a member that did not report is absent)
   */
  synchronized Map<String, Long> awaitReports(View view, Address self, long deadlineNanos) {
    ViewKey key = keyOf(view);
    List<String> others = new ArrayList<>();
    for (Address a : view.getMembers()) {
      if (!a.equals(self)) {
        others.add(Messenger.name(a));
      }
    }
    awaitWhile(
        () -> !reports.getOrDefault(key, Map.of()).keySet().containsAll(others), deadlineNanos);
    Map<String, Long> got = new HashMap<>(reports.getOrDefault(key, Map.of()));
    got.keySet().retainAll(others);
    if (got.size() < others.size()) {
      LOG.log(
          System.Logger.Level.WARNING,
          () ->
              selfName.get()
                  + ": merge view "
                  + view.getViewId()
                  + ": no INSTALLED within the timeout from "
                  + others.stream().filter(n -> !got.containsKey(n)).toList()
                  + "; deciding the merge on the others' reports");
    }
    return got;
  }

  /** Returns the number of the last view this member was available in (0: none). */
  synchronized long lastAvailable() {
    return lastAvailable;
  }

  /**
   * Makes this a durable member's quorum: once the installed view is confirmed, {@code recorder} is
   * run with its key on a thread of its own, outside this object's lock, and this member becomes
   * available in the view only when the recorder calls {@link #epochsRecorded} (until then it is
   * confirming, and callers wait). So a durable member records a view's epochs only for a view a
   * majority installed, and before it applies any write of it as a primary. Called once, before the
   * channel connects.
   *
   * @param recorder records the epochs of the installed view named by its argument, if still
   *     installed, then calls {@link #epochsRecorded}
   */
  void recordEpochsWith(Consumer<ViewKey> recorder) {
    this.epochRecorder = recorder;
  }

  /**
   * The epochs of the view {@code key} are recorded: if it is still the installed view, this member
   * becomes available in it. Called by the recorder given to {@link #recordEpochsWith}, under the
   * view lock's write side.
   */
  synchronized void epochsRecorded(ViewKey key) {
    if (key.equals(currentKey)) {
      recordedKey = key;
      reevaluate();
    }
  }

  /** Recomputes the state for the installed view; called with this object's lock held. */
  private void reevaluate() {
    List<String> names = names(current.getMembers());
    List<String> present = names.stream().filter(counted::contains).toList();
    Set<String> confirmed = new LinkedHashSet<>();
    confirmed.add(selfName.get());
    Map<String, Long> got = reports.getOrDefault(currentKey, Map.of());
    for (String n : present) {
      if (got.containsKey(n)) {
        confirmed.add(n);
      }
    }
    confirmed.retainAll(present);
    boolean available = !counted.isEmpty() && confirmed.size() * 2 > counted.size();
    if (available && epochRecorder != null && !currentKey.equals(recordedKey)) {
      // confirmed: available once its epochs are recorded
      available = false;
      askToRecord();
    }
    boolean confirming = !available && !counted.isEmpty() && present.size() * 2 > counted.size();
    if (available) {
      lastAvailable = Math.max(lastAvailable, currentKey.number());
      // a member that said LEAVE is still in this view: it must not count again
      names.stream().filter(n -> !departed.contains(n)).forEach(stable::add);
    }
    setState(
        new State(
            available,
            confirming,
            available ? present : List.copyOf(confirmed),
            List.copyOf(stable)));
  }

  /** Starts the epoch recorder for the installed view, once per view; with this lock held. */
  private void askToRecord() {
    if (currentKey.equals(recordingKey)) {
      return;
    }
    recordingKey = currentKey;
    ViewKey key = currentKey;
    Consumer<ViewKey> recorder = epochRecorder;
    Thread.ofVirtual()
        .name("larder-epochs-" + selfName.get())
        .start(
            () -> {
              try {
                recorder.accept(key);
              } catch (RuntimeException e) {
                // the member stays confirming in this view: its writes wait and time out
                LOG.log(
                    System.Logger.Level.ERROR,
                    selfName.get() + ": recording the epochs of view " + key + " failed",
                    e);
              }
            });
  }

  /**
   * Waits while this member's view is being confirmed, up to the cluster timeout; returns at once
   * otherwise.
   */
  void awaitConfirmation() {
    settled(System.nanoTime() + settleNanos);
  }

  /**
   * A member said it is closing (LEAVE): it stops counting among the stable members, so that
   * members that leave on purpose do not leave the rest without a majority. Only the members that
   * heard it drop it; a member cut off at the time keeps counting it, which only makes it slower to
   * become available.
   *
   * @param name the closing member's name
   */
  synchronized void onLeave(String name) {
    if (handling == PartitionHandling.ALLOW_ALL || !stable.remove(name)) {
      return;
    }
    counted.remove(name);
    departed.add(name);
    if (current != null) {
      reevaluate();
    }
  }

  /** Called with this object's lock held. */
  @SuppressWarnings("NonAtomicVolatileUpdate") // one writer (under the lock); volatile for readers
  private void setState(State next) {
    if (!next.available()) {
      unavailableStates++;
    }
    state = next;
    notifyAll();
  }

  static ViewKey keyOf(View view) {
    return new ViewKey(view.getViewId().getId(), ViewConfirmations.creatorOf(view));
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

  /**
   * Returns whether this member's installed view holds a majority of the stable members, confirmed
   * or not yet: what a backup requires of its own view (the primary requires {@link #available}),
   * and what decides, as a view is installed, whether segments whose holders are missing wait for
   * them. (A durable member records a view's epochs only once it is confirmed: {@link
   * #recordEpochsWith}.)
   */
  boolean majorityInView() {
    State s = state;
    return s.available() || s.confirming();
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
   * Waits while this member's view is being confirmed (up to the cluster timeout), then checks.
   *
   * @throws ClusterDegradedException if this member may not serve writes now
   */
  void checkWrite() {
    checkWrite(System.nanoTime() + settleNanos);
  }

  /**
   * As {@link #checkWrite()}, waiting for a confirming view's outcome until {@code deadlineNanos}
   * at most (an operation's own deadline).
   *
   * @throws ClusterDegradedException if this member may not serve writes now
   */
  void checkWrite(long deadlineNanos) {
    State s = settled(deadlineNanos);
    if (!s.available()) {
      throw new ClusterDegradedException(selfName.get(), "write", s.present(), s.stable());
    }
  }

  /**
   * Waits as {@link #checkWrite} does when reads need a majority.
   *
   * @throws ClusterDegradedException if this member may not serve reads now
   */
  void checkRead() {
    if (minorityReads) {
      return;
    }
    State s = settled(System.nanoTime() + settleNanos);
    if (!s.available()) {
      throw new ClusterDegradedException(selfName.get(), "read", s.present(), s.stable());
    }
  }

  /** Returns the state once it is no longer confirming, or at the deadline. */
  private State settled(long deadline) {
    State s = state;
    if (!s.confirming()) {
      return s;
    }
    synchronized (this) {
      awaitWhile(() -> state.confirming(), deadline);
      return state;
    }
  }

  /**
   * Waits on this object's monitor (held by the caller) while {@code waiting} holds, until the
   * deadline or an interrupt (the interrupt status is kept); {@link #report} and {@link #setState}
   * notify.
   */
  private void awaitWhile(BooleanSupplier waiting, long deadlineNanos) {
    while (waiting.getAsBoolean()) {
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        return;
      }
      try {
        TimeUnit.NANOSECONDS.timedWait(this, left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
