package dev.larder.cluster.internal;

import dev.larder.cluster.RebalanceStats;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jgroups.Address;

/**
 * Moves segments to their new owners after a view change, while the cluster keeps serving.
 *
 * <p>Implementation notes. The receiving side pulls. After each view, one background task (a single
 * thread, so views are handled in order and a newer view abandons an older task):
 *
 * <ol>
 *   <li>drops local entries of segments in state NONE, and the non-live entries of INCOMING
 *       segments (left over from an abandoned transfer or an old ownership);
 *   <li>for each INCOMING segment, asks candidate sources in turn (the previous view's owners, then
 *       this view's, then everyone) with a PULL; a source serves the segments it holds complete for
 *       this view (OWNED, or RETIRED by this very view, or RETIRED and pending: {@link
 *       SegmentOwnership#servable}) and names the others as not ready. A source in another view
 *       than the pull's (views do not change everywhere at once) says so, and is asked again a
 *       little later instead of being passed over: its segments may be complete, and a puller that
 *       took its answer as final could run out of candidates and mark a segment lost while its
 *       entries exist;
 *   <li>applies the entries of each STATE chunk unless the key is live (written since the segment
 *       became incoming: a live value is newer than any snapshot), and marks each served segment
 *       OWNED once every chunk of its pull is applied and this member's value dictionary holds
 *       every id the source's entries may name (the last chunk carries the source's dictionary
 *       sizes).
 * </ol>
 *
 * Why no write is lost: a write acknowledged in the previous view was applied by every owner of
 * that view before it installed this one (backups refuse writes from an older view, so the writer
 * retries in the new view instead); a source snapshots after installing this view, so its snapshot
 * holds every such write. Writes of this view reach the incoming owner directly and are live. A
 * segment for which no source is ready (every previous owner left at once) starts empty and is
 * counted in {@link RebalanceStats#segmentsLost()}, unless it is pending, or its holders may return
 * (below), or this member keeps a former owner's copy of it, or this member is not available under
 * quorum partition handling (it takes no writes, and a merge in which no side had a majority keeps
 * the other side's copy, which it then receives): then it is asked for again until a view brings a
 * member that holds it.
 *
 * <p>A former owner made an owner again keeps its copy as a base ({@link SegmentOwnership#base}):
 * the copy is not dropped, and is served to an owner that has received the segment's writes since
 * the view that retired it. While no complete source serves the segment here, this member asks
 * again every {@value #PENDING_PAUSE_MILLIS} ms as long as another owner is in the view (which
 * completes from the base, then serves it here; a non-durable member waits three cluster timeouts
 * at most); once served, the base's entries the source did not send and that were not written here
 * since are dropped (removed meanwhile) before the segment turns OWNED.
 *
 * <p>Every member tells every other member which segments it holds complete (HELD: those it holds
 * when it installs a view, and each it completes), so that a member holding a segment RETIRED (a
 * former owner, or a durable formation's holder of a segment it does not own) drops it once every
 * owner of the view has it, rather than at the next view: two views in quick succession can move a
 * segment's owners again before the new ones received it, and the former owner's copy is then the
 * only complete one. For the same reason a puller that finds no source does not start a segment
 * empty while another member of its view says it is still receiving it (the last STATE chunk names
 * such segments: INCOMING there, and not yet out of sources in that view): that member completes
 * it, from a copy this puller may not be served (a joiner of a later view than the copy's
 * retirement), then serves it here. A member out of sources says it is no longer receiving, so two
 * incomplete owners waiting on each other find out at the next round and start the segment empty as
 * before.
 *
 * <p>Durable members (a {@link Formation}): before dropping entries, the member records epoch 0 for
 * the segments it drops; before a segment turns OWNED, it records the view's epoch for it; and a
 * pending segment stops being pending once every owner of a view holds it. A forming member settles
 * first (holders keep what they hold) and pulls each segment from its seed first. A pending segment
 * that no member in the view serves is asked for again every {@value #PENDING_PAUSE_MILLIS} ms (its
 * newest record is on a member that left, which serves it when it returns) instead of starting
 * empty; and a segment no member serves while the cluster runs (every member holding it complete
 * left) is made pending first ({@link Formation#awaitHolder}), except in a merge view.
 *
 * <p>Memory: received entries are ordinary puts into the bounded local store, so the bound holds;
 * bytes that did not fit under it are counted as {@link RebalanceStats#shortfallBytes()} and
 * logged, so that a member that cannot take its share says so.
 */
final class StateTransfer {

  private static final System.Logger LOG = System.getLogger(StateTransfer.class.getName());
  private static final int CHUNK_BYTES = 256 * 1024;

  private final Duration timeout;
  private final Membership membership;
  private final SegmentOwnership segments;
  private final LocalStore store;
  private final Messenger messenger;

  /** Keeps the value dictionary identical across members, or null. */
  private final DictionarySync dictionary;

  private final Lifecycle lifecycle;
  private final long memoryBound;

  /** A durable member's start and epoch, or null. */
  private final Formation formation;

  private final ExecutorService serial =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "larder-state-transfer");
            t.setDaemon(true);
            return t;
          });
  private final AtomicLong generation = new AtomicLong();
  private final AtomicLong pullIds = new AtomicLong();
  private final AtomicInteger pending = new AtomicInteger();
  private final Map<Long, Pull> pulls = new ConcurrentHashMap<>();

  /** Segments the current rebalance waits for because no member of the view served them. */
  private final Set<Integer> unserved = ConcurrentHashMap.newKeySet();

  /**
   * Per INCOMING segment, the view in which this member last ran out of sources to ask for it: it
   * is then no longer "receiving" it in that view, as its answers to pulls say (see the class
   * notes).
   */
  private final Map<Integer, Long> outOfSources = new ConcurrentHashMap<>();

  /**
   * Per view (this member's current one and any newer one heard of first), per segment, the members
   * that said they hold it complete in that view (HELD); guarded by this.
   */
  private final Map<Long, Map<Integer, Set<Address>>> heldBy = new HashMap<>();

  /** How long a rebalance waits before asking again for a pending segment no member served. */
  private static final long PENDING_PAUSE_MILLIS = 200;

  private final AtomicLong rebalances = new AtomicLong();
  private final AtomicLong segmentsReceived = new AtomicLong();
  private final AtomicLong entriesReceived = new AtomicLong();
  private final AtomicLong bytesReceived = new AtomicLong();
  private final AtomicLong segmentsLost = new AtomicLong();
  private final AtomicLong shortfallBytes = new AtomicLong();
  private volatile long lastSegments;
  private volatile long lastBytes;
  private volatile long lastMillis;
  private final AtomicLong currentSegments = new AtomicLong();
  private final AtomicLong currentBytes = new AtomicLong();

  /** One outstanding PULL. */
  private record Pull(
      long reqId,
      long viewId,
      Set<Integer> segments,
      CompletableFuture<Answer> done,
      AtomicLong lastChunk,
      AtomicInteger unapplied,
      AtomicReference<Answer> answer) {}

  /**
   * How a source answered a pull.
   *
   * @param notReady the segments it did not serve
   * @param otherView true if it was in another view than the pull's: ask it again later
   * @param dictionarySizes the source's value dictionary sizes after its last entry, or null (no
   *     dictionary, or a source that sent none)
   * @param receiving among {@code notReady}, the segments the source is still receiving itself
   *     (empty from a source that does not say)
   */
  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  private record Answer(
      Set<Integer> notReady, boolean otherView, byte[] dictionarySizes, Set<Integer> receiving) {

    /** A last chunk whose sizes are malformed counts as serving nothing: ask the next source. */
    static Answer of(Frame last, Set<Integer> segments) {
      byte[] sizes = last.value();
      if (sizes != null && sizes.length % Integer.BYTES != 0) {
        LOG.log(
            System.Logger.Level.WARNING,
            "a state-transfer source sent dictionary sizes of "
                + sizes.length
                + " bytes, not a multiple of 4; its answer is ignored");
        return none(segments);
      }
      Set<Integer> notReady = new HashSet<>();
      for (int s : last.ints()) {
        notReady.add(s);
      }
      Set<Integer> receiving = new HashSet<>();
      byte[] r = last.expected();
      if (r != null && r.length % Integer.BYTES == 0) {
        ByteBuffer b = ByteBuffer.wrap(r).order(ByteOrder.LITTLE_ENDIAN);
        while (b.hasRemaining()) {
          receiving.add(b.getInt());
        }
        receiving.retainAll(notReady);
      }
      return new Answer(notReady, (last.flags() & Frame.F_OTHER_VIEW) != 0, sizes, receiving);
    }

    static Answer none(Set<Integer> segments) {
      return new Answer(new HashSet<>(segments), false, null, Set.of());
    }
  }

  /** How long a rebalance waits before asking again a source that was in another view. */
  private static final long OTHER_VIEW_PAUSE_MILLIS = 50;

  /** Threads that apply received chunks, so that one source's chunks use several cores. */
  private static final int APPLIERS =
      Math.max(2, Math.min(4, Runtime.getRuntime().availableProcessors()));

  /** Chunks received and not yet applied, at most: beyond, delivery waits (flow control). */
  private static final int CHUNKS_IN_FLIGHT = 16;

  private final ThreadPoolExecutor appliers =
      new ThreadPoolExecutor(
          APPLIERS,
          APPLIERS,
          30,
          TimeUnit.SECONDS,
          new LinkedBlockingQueue<>(),
          r -> {
            Thread t = new Thread(r, "larder-state-apply");
            t.setDaemon(true);
            return t;
          });
  private final Semaphore inFlight = new Semaphore(CHUNKS_IN_FLIGHT);

  /**
   * @param timeout the cluster timeout (a pull waits three of them for a chunk)
   * @param memoryBound the local store's bound in bytes, or Long.MAX_VALUE
   * @param formation a durable member's start and epoch, or null
   */
  StateTransfer(
      Duration timeout,
      Membership membership,
      SegmentOwnership segments,
      LocalStore store,
      Messenger messenger,
      DictionarySync dictionary,
      Lifecycle lifecycle,
      long memoryBound,
      Formation formation) {
    this.timeout = timeout;
    this.formation = formation;
    this.membership = membership;
    this.segments = segments;
    this.store = store;
    this.messenger = messenger;
    this.dictionary = dictionary;
    this.lifecycle = lifecycle;
    this.memoryBound = memoryBound;
    appliers.allowCoreThreadTimeOut(true);
  }

  void onView(Topology t, List<Integer> incoming) {
    long gen = generation.incrementAndGet();
    heldInView(t);
    pending.incrementAndGet();
    serial.execute(
        () -> {
          try {
            if (formation != null && !formation.formed()) {
              form(gen, t, incoming);
            } else {
              announceHeld(t, ownedSegments());
              rebalance(gen, t, incoming, null);
            }
          } catch (RuntimeException e) {
            if (!lifecycle.closed()) {
              LOG.log(System.Logger.Level.WARNING, "state transfer failed", e);
            }
          } finally {
            pending.decrementAndGet();
          }
        });
  }

  boolean busy() {
    return pending.get() > 0;
  }

  /**
   * Waits until this member holds every segment it owns: no rebalance pending and no segment
   * incoming.
   *
   * @param timeoutNanos how long to wait
   * @return true if it does; false on timeout, close or interrupt
   */
  boolean awaitRebalanced(long timeoutNanos) {
    long deadline = System.nanoTime() + timeoutNanos;
    while (busy() || segments.incomingCount() > 0) {
      if (System.nanoTime() >= deadline || lifecycle.closed()) {
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

  private boolean current(long gen) {
    return gen == generation.get() && !lifecycle.closed();
  }

  /**
   * A durable member that has not settled yet: settles for this view, then keeps the segments it
   * seeds and pulls the others it owns from their seeds first, takes the cluster's state, or waits
   * for the next view.
   */
  private void form(long gen, Topology t, List<Integer> incoming) {
    Formation.Decision d = formation.settle(t, () -> current(gen));
    if (d.step() == Formation.Step.WAIT) {
      return;
    }
    boolean forming = d.step() == Formation.Step.FORM;
    if (!formation.keep(t, d.settled(), forming)) {
      return;
    }
    announceHeld(t, ownedSegments());
    // owners' HELD may have come before this member marked its segments pending
    settleHeld(t, allSegments());
    List<Integer> still = new ArrayList<>();
    for (int s : incoming) {
      segments.lock(s);
      try {
        if (segments.state(s) == SegmentOwnership.State.INCOMING) {
          still.add(s);
        }
      } finally {
        segments.unlock(s);
      }
    }
    rebalance(gen, t, still, forming ? formation.seedsIn(t) : null);
  }

  /**
   * @param preferred per segment, the source to ask first (a durable cluster's seed of it), or null
   */
  private void rebalance(long gen, Topology t, List<Integer> incoming, Address[] preferred) {
    long start = System.nanoTime();
    if (formation != null) {
      // about to drop this member's entries of incoming segments and of those it no longer
      // holds: its record no longer holds them complete
      formation.dropping();
    }
    dropStale();
    // what an older view's rebalance waited for is asked for again in this one
    unserved.clear();
    if (incoming.isEmpty() || !current(gen)) {
      return;
    }
    rebalances.incrementAndGet();
    currentSegments.set(0);
    currentBytes.set(0);
    Map<Integer, Iterator<Address>> candidates = new HashMap<>();
    for (int s : incoming) {
      List<Address> c = candidates(t, s);
      if (preferred != null && preferred[s] != null && c.remove(preferred[s])) {
        c.addFirst(preferred[s]);
      }
      candidates.put(s, c.iterator());
    }
    Set<Integer> remaining = new TreeSet<>(incoming);
    // segments whose source was in another view, and that source: asked again
    Map<Integer, Address> askAgain = new HashMap<>();
    // pending segments no member in the view served: every candidate is asked again a little later
    Set<Integer> waiting = new TreeSet<>();
    // segments a source said it is still receiving itself since they were last asked of everyone
    Set<Integer> receivingElsewhere = new HashSet<>();
    // among those waiting, the segments that wait only for a member still receiving them
    Set<Integer> behindReceiver = new HashSet<>();
    boolean told = false;
    // how long a non-durable former owner waits for another owner to complete from its base
    long baseWaitEnd = System.nanoTime() + 3 * timeout.toNanos();
    while ((!remaining.isEmpty() || !waiting.isEmpty()) && current(gen)) {
      if (remaining.isEmpty()) {
        // a side without a majority waits as a matter of course, and so does a segment another
        // member is still receiving: nothing to tell the operator
        if (!told && membership.available() && !behindReceiver.containsAll(waiting)) {
          told = true;
          Set<Integer> shown = new TreeSet<>(waiting);
          shown.removeAll(behindReceiver);
          LOG.log(System.Logger.Level.WARNING, waitingMessage(shown));
        }
        if (!pause(gen, PENDING_PAUSE_MILLIS)) {
          return;
        }
        for (int s : waiting) {
          candidates.put(s, candidates(t, s).iterator());
        }
        // a new round of every candidate: who is still receiving is asked again
        receivingElsewhere.removeAll(waiting);
        behindReceiver.clear();
        remaining.addAll(waiting);
        waiting.clear();
      }
      Map<Address, List<Integer>> bySource = new HashMap<>();
      for (Iterator<Integer> it = remaining.iterator(); it.hasNext(); ) {
        int s = it.next();
        Address again = askAgain.remove(s);
        Iterator<Address> c = candidates.get(s);
        if (again != null && membership.topology().members().contains(again)) {
          bySource.computeIfAbsent(again, a -> new ArrayList<>()).add(s);
        } else if (c.hasNext()) {
          bySource.computeIfAbsent(c.next(), a -> new ArrayList<>()).add(s);
        } else {
          it.remove();
          outOfSources.put(s, t.viewId());
          switch (noSource(s, t, baseWaitEnd, receivingElsewhere.contains(s))) {
            case STARTED -> unserved.remove(s);
            case WAITS_FOR_HOLDER -> {
              waiting.add(s);
              unserved.add(s);
            }
            case WAITS -> waiting.add(s);
            case WAITS_FOR_RECEIVER -> {
              waiting.add(s);
              behindReceiver.add(s);
            }
          }
        }
      }
      // every source at once: they send in parallel, and JGroups delivers each sender's chunks
      // on its own thread, so the joiner applies them in parallel too
      Map<Address, Pull> started = new HashMap<>();
      for (Map.Entry<Address, List<Integer>> e : bySource.entrySet()) {
        started.put(e.getKey(), startPull(e.getKey(), e.getValue(), t));
      }
      for (Map.Entry<Address, Pull> e : started.entrySet()) {
        Answer answer = awaitPull(e.getKey(), e.getValue(), gen);
        if (!awaitDictionary(answer, gen)) {
          return;
        }
        own(e.getValue(), answer, t);
        receivingElsewhere.addAll(answer.receiving());
        for (int s : e.getValue().segments()) {
          if (!answer.notReady().contains(s)) {
            remaining.remove(s);
            unserved.remove(s);
          } else if (answer.otherView()) {
            askAgain.put(s, e.getKey());
          }
        }
      }
      if (!askAgain.isEmpty() && !pause(gen, OTHER_VIEW_PAUSE_MILLIS)) {
        return;
      }
    }
    if (current(gen)) {
      lastSegments = currentSegments.get();
      lastBytes = currentBytes.get();
      lastMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }
  }

  /** What becomes of a segment no candidate served in a round of every candidate. */
  private enum NoSource {
    /** It starts empty, or was settled otherwise (a clear, the operator's give-up). */
    STARTED,
    /** Asked for again a little later, and counted as waiting for a holder that left. */
    WAITS_FOR_HOLDER,
    /** Asked for again a little later. */
    WAITS,
    /** Asked for again a little later: another member of the view is still receiving it. */
    WAITS_FOR_RECEIVER
  }

  /**
   * Decides for a segment that no candidate served in a round of every candidate: waits for a
   * member to serve it, or starts empty (see the class notes). Called on state transfer's thread.
   *
   * @param receivedElsewhere whether a source said in this round that it is still receiving it
   */
  private NoSource noSource(int s, Topology t, long baseWaitEnd, boolean receivedElsewhere) {
    if (formation != null && startsEmpty(s, t)) {
      // a clear emptied it, or the operator gave up its record: nothing left to wait for
      return NoSource.STARTED;
    }
    if (segments.pendingLocked(s)) {
      // its newest record is on a member not in this view: started empty, it would lose every
      // acknowledged write of it; refused until that member returns instead
      return NoSource.WAITS_FOR_HOLDER;
    }
    if (receivedElsewhere) {
      // that member completes it, perhaps from a former owner's copy this member may not be
      // served (it became an owner after the copy was retired), then serves it here; started
      // empty, it would answer that copy's keys as absent
      return NoSource.WAITS_FOR_RECEIVER;
    }
    if (awaitsOwnerOf(t, s, baseWaitEnd)) {
      // a former owner's base, and another owner still receiving the writes made since it was
      // retired: that owner completes from this base, then serves this member
      return NoSource.WAITS;
    }
    if (formation != null && formation.awaitHolder(t, s)) {
      // every member holding it complete left: refused until one returns with its record, rather
      // than started empty
      return NoSource.WAITS_FOR_HOLDER;
    }
    if (membership.available() && membership.awaitsMissingHolders(t, s)) {
      // the members that held it complete are missing, and may be cut off rather than down
      // (quorum): started empty, it would answer its acknowledged keys as absent, and would win
      // the merge over the only copy. Its writes are refused and it is asked for again until a
      // view brings those members back (from the other side they serve it, and the losing side of
      // the merge keeps its copy: Membership; restarted, they hold nothing, and it starts empty)
      return NoSource.WAITS_FOR_HOLDER;
    }
    if (!membership.available()) {
      // a side without a majority takes no writes; started empty here, the segment would replace
      // the copy a member on the other side holds when a merge in which no side had a majority
      // keeps every side's entries: asked again until a view brings a holder
      return NoSource.WAITS;
    }
    if (formation == null || !startsEmpty(s, t)) {
      markLost(s, t);
    }
    return NoSource.STARTED;
  }

  private String waitingMessage(Set<Integer> waiting) {
    String head = membership.name() + ": no member in the view serves segments " + waiting + " yet";
    if (formation == null) {
      return head
          + " (every member that held them is cut off or down, or another owner is completing"
          + " them from this member's former copy); their writes are refused and they are asked"
          + " for again until a member holding them returns, or every member of the cluster is"
          + " back without them (then they start empty)";
    }
    return head
        + " (their newest record is on a member that left, or another owner is completing them"
        + " from this member's former copy); asked again. If the members holding them will never"
        + " return, ClusteredCache.abandonWaitingSegments (the server's CLUSTER ABANDON-WAITING)"
        + " starts them empty, losing what only their records held";
  }

  /**
   * Sources to ask for a segment, best first: previous owners, current owners, everyone. Within
   * each group, members come in view order (oldest first) rather than by their hash score, so that
   * the segments of a rebalance gather on few sources: in REPLICATED mode one source serves every
   * segment, and walks its store once instead of once per source. A member whose side lost the
   * merge of {@code t} and kept its copies asks the winning side's members first.
   */
  private List<Address> candidates(Topology t, int s) {
    Set<Address> order = new LinkedHashSet<>();
    Set<Address> winners = membership.winnersOfLostMerge(t);
    if (winners != null) {
      // this side lost the merge and kept its copies: the winners' copy of a segment, if any, is
      // newer than every copy here, which only serves where no winner holds the segment
      order.addAll(inViewOrder(t.hash().owners(s), t.view().getMembers()));
      order.retainAll(winners);
      for (Address m : t.view().getMembers()) {
        if (winners.contains(m)) {
          order.add(m);
        }
      }
    }
    if (t.previous() != null) {
      order.addAll(inViewOrder(t.previous().owners(s), t.previous().members()));
    }
    order.addAll(inViewOrder(t.hash().owners(s), t.view().getMembers()));
    order.addAll(t.view().getMembers());
    order.remove(membership.self());
    order.retainAll(t.members());
    return new ArrayList<>(order);
  }

  private static List<Address> inViewOrder(Address[] owners, List<Address> members) {
    List<Address> out = new ArrayList<>();
    Set<Address> wanted = Set.of(owners);
    for (Address m : members) {
      if (wanted.contains(m)) {
        out.add(m);
      }
    }
    for (Address o : owners) {
      if (!out.contains(o)) {
        out.add(o);
      }
    }
    return out;
  }

  /**
   * Waits until this member's value dictionary holds every id the pull's entries may name, before
   * their segments become OWNED (and so served). A joiner otherwise learns an id when it first
   * decodes it; a partition that cut it off from every member knowing the id before then, on a side
   * that went on to give the id to another value, would make it decode the entry as that value
   * (cluster.md, "A write's dictionary ids"). Entries of segments still INCOMING are not served and
   * are dropped at the next view. Usually this member already holds them all (it fetched the
   * reference's additions after the view); else it asks the reference again until it answers, or a
   * newer view ends this rebalance.
   *
   * @return false if the rebalance should stop (a newer view, closed, or a diverged dictionary)
   */
  private boolean awaitDictionary(Answer answer, long gen) {
    if (dictionary == null || answer.dictionarySizes() == null) {
      return true;
    }
    while (!dictionary.knowsIdsOf(answer.dictionarySizes())) {
      if (dictionary.diverged() || !pause(gen, OTHER_VIEW_PAUSE_MILLIS)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Waits a little before asking again sources that were in another view, or that served no pending
   * segment: the views converge, or a source joins, or a newer view here ends this rebalance.
   *
   * @return false if the rebalance should stop (a newer view, or closed)
   */
  private boolean pause(long gen, long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
    return current(gen);
  }

  /**
   * Whether a segment no source served is to be asked for again rather than started empty: this
   * member keeps a former owner's copy of it as a base ({@link SegmentOwnership#base}), and another
   * owner in {@code t} may complete it from that copy and then serve it. A non-durable member waits
   * until {@code endNanos} at most; a durable one for as long as the view lasts (started empty, the
   * segment would lose the writes only the base holds). Otherwise the base is given up.
   */
  private boolean awaitsOwnerOf(Topology t, int s, long endNanos) {
    boolean otherOwner = false;
    for (Address o : t.hash().owners(s)) {
      otherOwner |= !o.equals(membership.self());
    }
    boolean wait = otherOwner && (formation != null || System.nanoTime() < endNanos);
    segments.lock(s);
    try {
      if (!segments.base(s)) {
        return false;
      }
      if (wait) {
        return true;
      }
    } finally {
      segments.unlock(s);
    }
    dropBaseEntries(List.of(s), t);
    segments.lock(s);
    try {
      segments.dropBase(s);
    } finally {
      segments.unlock(s);
    }
    return false;
  }

  /**
   * Segments this member owns and waits for because no member of its view served them when last
   * asked (their holders left): what {@link Formation#abandon} may give up. A snapshot.
   */
  Set<Integer> unserved() {
    return new TreeSet<>(unserved);
  }

  /**
   * A segment no member of {@code t} serves, which this member was told to stop waiting for ({@link
   * Formation.GiveUp}): it owns it from now on, empty, recording {@code t}'s epoch for it first,
   * and tells the other members (HELD), so that they stop holding it pending. A segment whose
   * record the operator gave up counts in {@link RebalanceStats#segmentsLost()}; a cleared one does
   * not (the clear removed its entries anyway).
   *
   * @return false if this member was told no such thing: wait on, or start it empty as before
   */
  @SuppressWarnings("ReferenceEquality") // the topology captured earlier is still the installed one
  private boolean startsEmpty(int s, Topology t) {
    Formation.GiveUp why;
    segments.lock(s);
    try {
      why = formation.givenUp(s);
    } finally {
      segments.unlock(s);
    }
    if (why == null) {
      return false;
    }
    boolean recorded = formation.completed(t, List.of(s));
    boolean owned = false;
    segments.lock(s);
    try {
      if (membership.topology() == t && segments.state(s) == SegmentOwnership.State.INCOMING) {
        formation.endWait(s);
        segments.set(s, SegmentOwnership.State.OWNED, t.viewId());
        owned = true;
      }
    } finally {
      segments.unlock(s);
    }
    if (!owned) {
      return true;
    }
    if (why == Formation.GiveUp.ABANDONED) {
      segmentsLost.incrementAndGet();
    }
    LOG.log(
        why == Formation.GiveUp.ABANDONED ? System.Logger.Level.ERROR : System.Logger.Level.INFO,
        membership.name()
            + ": segment "
            + s
            + " starts empty: "
            + (why == Formation.GiveUp.ABANDONED
                ? "the operator gave up the record it waited for"
                : "the cache was cleared while it waited for a holder"));
    if (recorded) {
      announceHeld(t, List.of(s));
    }
    return true;
  }

  @SuppressWarnings("ReferenceEquality") // the topology captured earlier is still the installed one
  private void markLost(int s, Topology t) {
    if (formation != null) {
      // it owns the segment from now on, empty: its later writes are recorded under this view
      formation.completed(t, List.of(s));
    }
    segments.lock(s);
    try {
      if (membership.topology() == t && segments.state(s) == SegmentOwnership.State.INCOMING) {
        segments.set(s, SegmentOwnership.State.OWNED, t.viewId());
        segmentsLost.incrementAndGet();
        LOG.log(
            System.Logger.Level.WARNING,
            membership.name() + ": no member holds segment " + s + " complete; it starts empty");
      }
    } finally {
      segments.unlock(s);
    }
  }

  /**
   * Removes entries this member must not keep: NONE segments, non-live INCOMING entries. The store
   * is walked only if a segment in either state may hold entries (a write or a received entry since
   * it was last emptied): a join in REPLICATED mode, or a joiner's first view, walks nothing.
   */
  private void dropStale() {
    boolean any = false;
    for (int s = 0; s < segments.size(); s++) {
      segments.lock(s);
      try {
        SegmentOwnership.State st = segments.state(s);
        if (st == SegmentOwnership.State.NONE
            || (st == SegmentOwnership.State.INCOMING && !segments.base(s))) {
          any |= segments.mayHold(s, st == SegmentOwnership.State.NONE);
        }
      } finally {
        segments.unlock(s);
      }
    }
    if (!any) {
      return;
    }
    List<byte[]> drop = new ArrayList<>();
    for (byte[] key : store.entries.asMap().keySet()) {
      int s = segments.segmentOf(key);
      segments.lock(s);
      try {
        SegmentOwnership.State st = segments.state(s);
        if (st == SegmentOwnership.State.NONE
            || (st == SegmentOwnership.State.INCOMING
                && !segments.base(s)
                && !segments.isLive(s, new ByteKey(key)))) {
          drop.add(key);
        }
      } finally {
        segments.unlock(s);
      }
    }
    for (byte[] key : drop) {
      int s = segments.segmentOf(key);
      segments.lock(s);
      try {
        SegmentOwnership.State st = segments.state(s);
        if (st == SegmentOwnership.State.NONE
            || (st == SegmentOwnership.State.INCOMING
                && !segments.base(s)
                && !segments.isLive(s, new ByteKey(key)))) {
          store.drop(key);
        }
      } finally {
        segments.unlock(s);
      }
    }
    store.sync();
  }

  /**
   * Drops the entries of the based segments among {@code segs} (a former owner's copy, see {@link
   * SegmentOwnership#base}) that their complete source did not send and that were not written here
   * since they became INCOMING: they were removed while this member did not own them. Does nothing
   * if none is based, or once a newer view than {@code t} is installed.
   */
  @SuppressWarnings("ReferenceEquality") // the topology captured earlier is still the installed one
  private void dropBaseEntries(List<Integer> segs, Topology t) {
    Set<Integer> based = new HashSet<>();
    for (int s : segs) {
      segments.lock(s);
      try {
        if (segments.base(s)) {
          based.add(s);
        }
      } finally {
        segments.unlock(s);
      }
    }
    if (based.isEmpty()) {
      return;
    }
    List<byte[]> drop = new ArrayList<>();
    for (byte[] key : store.entries.asMap().keySet()) {
      if (based.contains(segments.segmentOf(key))) {
        drop.add(key);
      }
    }
    for (byte[] key : drop) {
      int s = segments.segmentOf(key);
      segments.lock(s);
      try {
        if (membership.topology() == t && segments.staleInBase(s, new ByteKey(key))) {
          store.drop(key);
        }
      } finally {
        segments.unlock(s);
      }
    }
    store.sync();
  }

  /** Sends a PULL for some segments to one source. */
  private Pull startPull(Address source, List<Integer> asked, Topology t) {
    long reqId = pullIds.incrementAndGet();
    // unapplied counts chunks being applied, plus one until the last chunk has arrived
    Pull p =
        new Pull(
            reqId,
            t.viewId(),
            Set.copyOf(asked),
            new CompletableFuture<>(),
            new AtomicLong(System.nanoTime()),
            new AtomicInteger(1),
            new AtomicReference<>(Answer.none(Set.of())));
    pulls.put(reqId, p);
    int[] segs = asked.stream().mapToInt(Integer::intValue).toArray();
    // per segment, the view since which this member receives its writes: a former owner's copy
    // retired in that view or later, with them, is the whole segment
    ByteBuffer since = ByteBuffer.allocate(Long.BYTES * segs.length).order(ByteOrder.LITTLE_ENDIAN);
    for (int s : segs) {
      segments.lock(s);
      try {
        since.putLong(
            segments.state(s) == SegmentOwnership.State.INCOMING
                ? segments.incomingSince(s)
                : t.viewId());
      } finally {
        segments.unlock(s);
      }
    }
    messenger.send(
        source,
        new Frame(
            Frame.T_PULL,
            reqId,
            t.viewId(),
            0,
            0,
            null,
            since.array(),
            null,
            segs,
            List.of(),
            List.of()),
        true);
    return p;
  }

  /**
   * Waits for a pull to finish: until its last chunk, the source leaves, a newer view, or no chunk
   * for three cluster timeouts (a large transfer may take longer than that in all, so the wait is
   * measured from the last chunk received, not from the start).
   *
   * @return the source's answer; every segment not ready if it did not answer
   */
  private Answer awaitPull(Address source, Pull p, long gen) {
    try {
      long idle = 3 * timeout.toNanos();
      while (current(gen) && membership.topology().members().contains(source)) {
        try {
          return p.done().get(50, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
          if (System.nanoTime() - p.lastChunk().get() > idle) {
            break;
          }
        } catch (Exception e) {
          break;
        }
      }
      return Answer.none(p.segments());
    } finally {
      pulls.remove(p.reqId());
    }
  }

  /** A source's side: serve the requested segments held complete in this view. */
  void onPull(Address from, Frame f) {
    try {
      serve(from, f);
    } catch (IllegalStateException e) {
      // this member closed its store while serving: the puller asks another source
      if (!lifecycle.closed()) {
        throw e;
      }
    }
  }

  private void serve(Address from, Frame f) {
    membership.awaitView(f.viewId(), messenger.deadline());
    Topology t = membership.topology();
    if (t == null || (formation != null && !formation.formed())) {
      // no view yet, or a durable member still forming: its store may yet be the cluster's
      refuse(from, f);
      return;
    }
    boolean otherView = t.viewId() != f.viewId();
    Set<Integer> servable = new HashSet<>();
    List<Integer> notReady = new ArrayList<>();
    List<Integer> receiving = new ArrayList<>();
    long[] since = sinceOf(f);
    for (int i = 0; i < f.ints().length; i++) {
      int s = f.ints()[i];
      boolean ok = false;
      boolean incoming = false;
      if (!otherView && s >= 0 && s < segments.size()) {
        segments.lock(s);
        try {
          ok = segments.servable(s, since[i]);
          incoming = segments.state(s) == SegmentOwnership.State.INCOMING;
        } finally {
          segments.unlock(s);
        }
      }
      if (ok) {
        servable.add(s);
      } else {
        notReady.add(s);
        if (incoming && outOfSources.getOrDefault(s, -1L) != t.viewId()) {
          receiving.add(s);
        }
      }
    }
    List<byte[]> chunk = new ArrayList<>();
    int bytes = 0;
    if (!servable.isEmpty()) {
      for (Map.Entry<byte[], byte[]> e : store.entries.asMap().entrySet()) {
        if (servable.contains(segments.segmentOf(e.getKey()))) {
          chunk.add(e.getKey());
          chunk.add(e.getValue());
          bytes += e.getKey().length + e.getValue().length;
          if (bytes >= CHUNK_BYTES) {
            sendChunk(from, f, chunk, 0, Frame.NO_INTS, null, null);
            chunk = new ArrayList<>();
            bytes = 0;
          }
        }
      }
    }
    ByteBuffer still = ByteBuffer.allocate(Integer.BYTES * receiving.size());
    still.order(ByteOrder.LITTLE_ENDIAN);
    receiving.forEach(still::putInt);
    // read after the last entry: every id the entries name lies below these sizes
    sendChunk(
        from,
        f,
        chunk,
        Frame.F_LAST | (otherView ? Frame.F_OTHER_VIEW : 0),
        notReady.stream().mapToInt(Integer::intValue).toArray(),
        dictionary == null ? null : dictionary.sizesAsBytes(),
        receiving.isEmpty() ? null : still.array());
  }

  /**
   * Per segment of a PULL, the view since which the puller receives its writes (the PULL's value,
   * one i64 LE each); the PULL's view for each if absent (a puller that sends none).
   */
  private static long[] sinceOf(Frame f) {
    long[] out = new long[f.ints().length];
    byte[] v = f.value();
    if (v != null && v.length == Long.BYTES * out.length) {
      ByteBuffer b = ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < out.length; i++) {
        out[i] = Math.min(b.getLong(), f.viewId());
      }
    } else {
      Arrays.fill(out, f.viewId());
    }
    return out;
  }

  /** Answers a pull with "no segment ready here, ask again": this member has no view yet. */
  void refuse(Address from, Frame f) {
    sendChunk(from, f, List.of(), Frame.F_LAST | Frame.F_OTHER_VIEW, f.ints(), null, null);
  }

  /**
   * @param receiving on a last chunk, among {@code ints}, the segments this member is still
   *     receiving itself (i32 LE each), or null
   */
  private void sendChunk(
      Address to,
      Frame pull,
      List<byte[]> entries,
      int flags,
      int[] ints,
      byte[] dictionarySizes,
      byte[] receiving) {
    messenger.send(
        to,
        new Frame(
            Frame.T_STATE,
            pull.reqId(),
            pull.viewId(),
            0,
            flags,
            null,
            dictionarySizes,
            receiving,
            ints,
            List.of(),
            entries),
        false);
  }

  /**
   * A chunk arrived, on the delivery thread: hand it to an applier (live keys win) and, on the last
   * chunk, finish the pull once every chunk of it is applied. The delivery thread waits while
   * {@link #CHUNKS_IN_FLIGHT} chunks are unapplied, so JGroups' flow control paces the source.
   * Chunks of one pull may be applied in any order: a source sends each key once, and a key written
   * since the segment became incoming is live here and not overwritten.
   */
  void onState(Address from, Frame f) {
    Pull p = pulls.get(f.reqId());
    if (p == null || p.viewId() != f.viewId()) {
      return;
    }
    Topology t = membership.topology();
    if (t.viewId() != p.viewId()) {
      return;
    }
    p.lastChunk().set(System.nanoTime());
    boolean last = (f.flags() & Frame.F_LAST) != 0;
    if (!f.entries().isEmpty()) {
      if (!acquireSlot()) {
        return;
      }
      p.unapplied().incrementAndGet();
      try {
        appliers.execute(
            () -> {
              try {
                apply(p, t, f.entries());
              } catch (IllegalStateException e) {
                // the store closed meanwhile
                if (!lifecycle.closed()) {
                  LOG.log(System.Logger.Level.WARNING, "applying state failed", e);
                }
              } finally {
                inFlight.release();
                if (p.unapplied().decrementAndGet() == 0) {
                  p.done().complete(p.answer().get());
                }
              }
            });
      } catch (RejectedExecutionException e) {
        inFlight.release();
        p.unapplied().decrementAndGet();
        return;
      }
    }
    if (last) {
      Answer answer = Answer.of(f, p.segments());
      p.answer().set(answer);
      if (p.unapplied().decrementAndGet() == 0) {
        p.done().complete(answer);
      }
    }
  }

  /** Waits for room among the chunks in flight; false if this member closed meanwhile. */
  private boolean acquireSlot() {
    try {
      while (!inFlight.tryAcquire(100, TimeUnit.MILLISECONDS)) {
        if (lifecycle.closed()) {
          return false;
        }
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @SuppressWarnings("ReferenceEquality") // the topology captured earlier is still the installed one
  private void apply(Pull p, Topology t, List<byte[]> entries) {
    long chunkBytes = 0;
    noteShortfall(entries);
    for (int i = 0; i + 1 < entries.size(); i += 2) {
      byte[] key = entries.get(i);
      int s = segments.segmentOf(key);
      segments.lock(s);
      try {
        if (membership.topology() == t
            && p.segments().contains(s)
            && segments.state(s) == SegmentOwnership.State.INCOMING
            && !segments.isLive(s, new ByteKey(key))) {
          store.putReceived(key, entries.get(i + 1));
          segments.noteHeld(s);
          segments.noteReceived(s, new ByteKey(key));
          chunkBytes += key.length + entries.get(i + 1).length;
          entriesReceived.incrementAndGet();
        }
      } finally {
        segments.unlock(s);
      }
    }
    bytesReceived.addAndGet(chunkBytes);
    currentBytes.addAndGet(chunkBytes);
    // durable before the segment can be marked OWNED (once its last chunk is applied)
    store.sync();
  }

  /**
   * Marks the segments a source served OWNED, if this member is still in the pull's view; a durable
   * member records them complete first, and then tells every other member (HELD): a member holding
   * them RETIRED drops them, and a pending segment is settled, once every owner has.
   */
  @SuppressWarnings("ReferenceEquality") // the topology captured earlier is still the installed one
  private void own(Pull p, Answer answer, Topology t) {
    List<Integer> complete = new ArrayList<>();
    for (int s : p.segments()) {
      if (!answer.notReady().contains(s)) {
        complete.add(s);
      }
    }
    // a former owner's base: what the complete source did not send was removed meanwhile
    dropBaseEntries(complete, t);
    // every entry of these segments is applied and durable: recorded complete before OWNED
    boolean recorded = formation == null || formation.completed(t, complete);
    for (int s : p.segments()) {
      if (answer.notReady().contains(s)) {
        continue;
      }
      segments.lock(s);
      try {
        if (membership.topology() == t && segments.state(s) == SegmentOwnership.State.INCOMING) {
          segments.set(s, SegmentOwnership.State.OWNED, t.viewId());
          segmentsReceived.incrementAndGet();
          currentSegments.incrementAndGet();
        }
      } finally {
        segments.unlock(s);
      }
    }
    if (recorded && membership.topology() == t) {
      announceHeld(t, complete);
    }
  }

  /** Returns the segments this member holds OWNED. */
  private List<Integer> ownedSegments() {
    List<Integer> owned = new ArrayList<>();
    for (int s = 0; s < segments.size(); s++) {
      segments.lock(s);
      try {
        if (segments.state(s) == SegmentOwnership.State.OWNED) {
          owned.add(s);
        }
      } finally {
        segments.unlock(s);
      }
    }
    return owned;
  }

  /**
   * This member holds some segments complete in {@code t} (it installed {@code t} holding them, a
   * durable member kept them at a formation, or it completed them by state transfer): tells every
   * other member of the view (HELD), and settles what this allows here.
   */
  private void announceHeld(Topology t, List<Integer> held) {
    if (held.isEmpty()) {
      return;
    }
    int[] ints = held.stream().mapToInt(Integer::intValue).toArray();
    Frame f =
        new Frame(Frame.T_HELD, 0, t.viewId(), 0, 0, null, null, null, ints, List.of(), List.of());
    for (Address a : t.members()) {
      if (!a.equals(membership.self())) {
        messenger.send(a, f, true);
      }
    }
    settleHeld(t, held);
  }

  /**
   * Another member holds some segments complete in a view (on the delivery thread, also before this
   * member's first view): remembered for that view; if it is this member's view, what it allows is
   * settled now, else when this member installs it.
   */
  synchronized void onHeld(Address from, Frame f) {
    Topology t = membership.topology();
    if (t != null && f.viewId() < t.viewId()) {
      return;
    }
    Map<Integer, Set<Address>> view = heldBy.computeIfAbsent(f.viewId(), v -> new HashMap<>());
    List<Integer> segs = new ArrayList<>();
    for (int s : f.ints()) {
      if (s >= 0 && s < segments.size()) {
        view.computeIfAbsent(s, x -> new HashSet<>()).add(from);
        segs.add(s);
      }
    }
    if (t != null && f.viewId() == t.viewId()) {
      settleHeld(t, segs);
    }
  }

  /** A view was installed: forgets older views' HELD, and settles what the new one's allow. */
  private synchronized void heldInView(Topology t) {
    heldBy.keySet().removeIf(v -> v < t.viewId());
    settleHeld(t, allSegments());
  }

  private List<Integer> allSegments() {
    List<Integer> all = new ArrayList<>();
    for (int s = 0; s < segments.size(); s++) {
      all.add(s);
    }
    return all;
  }

  /**
   * For each of some segments whose every owner in {@code t} holds it complete (this member by its
   * state, the others by their HELD): it is no longer pending, and if this member holds it RETIRED,
   * its copy is dropped (on state transfer's thread, epoch 0 first). Does nothing once a newer view
   * is installed.
   */
  @SuppressWarnings("ReferenceEquality") // the topology captured earlier is still the installed one
  private synchronized void settleHeld(Topology t, List<Integer> segs) {
    Map<Integer, Set<Address>> view = heldBy.getOrDefault(t.viewId(), Map.of());
    List<Integer> drop = new ArrayList<>();
    for (int s : segs) {
      Set<Address> by = view.getOrDefault(s, Set.of());
      segments.lock(s);
      try {
        if (membership.topology() != t || !everyOwnerHolds(t, s, by)) {
          continue;
        }
        segments.setPending(s, false);
        if (segments.state(s) == SegmentOwnership.State.RETIRED) {
          drop.add(s);
        }
      } finally {
        segments.unlock(s);
      }
    }
    if (drop.isEmpty()) {
      return;
    }
    pending.incrementAndGet();
    try {
      serial.execute(
          () -> {
            try {
              dropHeld(t, drop);
            } catch (RuntimeException e) {
              if (!lifecycle.closed()) {
                LOG.log(System.Logger.Level.WARNING, "dropping retired segments failed", e);
              }
            } finally {
              pending.decrementAndGet();
            }
          });
    } catch (RejectedExecutionException e) {
      pending.decrementAndGet();
    }
  }

  /** Whether every owner of a segment in {@code t} holds it complete. Caller holds its lock. */
  private boolean everyOwnerHolds(Topology t, int s, Set<Address> heldBy) {
    for (Address o : t.hash().owners(s)) {
      boolean holds =
          o.equals(membership.self())
              ? segments.state(s) == SegmentOwnership.State.OWNED
              : heldBy.contains(o);
      if (!holds) {
        return false;
      }
    }
    return true;
  }

  /**
   * Drops RETIRED segments every owner holds (their epoch 0 first), if {@code t} is installed and
   * they are not pending.
   */
  @SuppressWarnings("ReferenceEquality") // the topology captured earlier is still the installed one
  private void dropHeld(Topology t, List<Integer> ready) {
    membership.viewReadLock().lock();
    try {
      if (membership.topology() != t) {
        return;
      }
      for (int s : ready) {
        segments.lock(s);
        try {
          if (segments.state(s) == SegmentOwnership.State.RETIRED && !segments.pending(s)) {
            segments.set(s, SegmentOwnership.State.NONE, t.viewId());
          }
        } finally {
          segments.unlock(s);
        }
      }
    } finally {
      membership.viewReadLock().unlock();
    }
    if (formation != null) {
      formation.dropping();
    }
    dropStale();
  }

  private void noteShortfall(List<byte[]> entries) {
    if (memoryBound == Long.MAX_VALUE) {
      return;
    }
    long incoming = 0;
    for (byte[] b : entries) {
      incoming += b.length;
    }
    long headroom = memoryBound - store.entries.memoryUsed();
    if (incoming > headroom) {
      long over = incoming - Math.max(0, headroom);
      if (shortfallBytes.getAndAdd(over) == 0) {
        LOG.log(
            System.Logger.Level.WARNING,
            membership.name()
                + ": its share of the cluster"
                + " does not fit under its memory bound of "
                + memoryBound
                + " bytes; the store"
                + " evicts to stay within it");
      }
    }
  }

  RebalanceStats stats() {
    return new RebalanceStats(
        rebalances.get(),
        segmentsReceived.get(),
        entriesReceived.get(),
        bytesReceived.get(),
        segmentsLost.get(),
        shortfallBytes.get(),
        lastSegments,
        lastBytes,
        lastMillis,
        busy());
  }

  void close() {
    serial.shutdownNow();
    appliers.shutdownNow();
    for (Pull p : pulls.values()) {
      p.done().complete(Answer.none(p.segments()));
    }
  }
}
