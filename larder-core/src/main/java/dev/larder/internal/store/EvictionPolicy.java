package dev.larder.internal.store;

/**
 * The decisions of the eviction policy, kept apart from the mechanics of pages and queues.
 *
 * <p>Implementation notes (docs/design/eviction.md has the full argument and figures). The segment
 * keeps three FIFO queues of entries: a window that new entries enter, and a main region split, as
 * W-TinyLFU's, into a probation queue ({@code main}) and a protected queue. Under pressure the
 * segment consumes entries at the tails and asks this policy what to do with each:
 *
 * <ul>
 *   <li>the window's oldest entry (the candidate) moves to main's head if it was read while in the
 *       window, or if the frequency sketch says it is requested more often than main's next victim
 *       (TinyLFU admission), or if that victim has won every contest for {@link #PATIENCE}
 *       capacities; otherwise it is evicted;
 *   <li>main's oldest entry moves to the protected queue if it was read while in main (its counter
 *       reset), else it is evicted;
 *   <li>when the protected queue holds more than {@link #PROTECTED} of main's share, its oldest
 *       entry gets another round there if read since its last one (counter decremented: CLOCK with
 *       a 2-bit counter), else it goes back to main's head.
 * </ul>
 *
 * The window's share adapts by a <b>shadow gradient</b>: every period (two capacities' worth of
 * requests) the policy compares what moving one step (a twentieth of the capacity) from main to the
 * window would have gained and lost, and the reverse:
 *
 * <ul>
 *   <li>growing the window gains the misses on keys that admission rejected less than a step ago
 *       (in bytes of window outflow: {@link GhostTable}), and loses the hits on main entries within
 *       a step of main's tail (they would have been evicted);
 *   <li>shrinking gains the misses on keys main evicted less than a step ago, and loses the hits on
 *       window entries within a step of the window's tail.
 * </ul>
 *
 * It then moves the target one step the better way, or stays. If it would stay although the period
 * saw no gain event on either side, and the window earned fewer hits per unit of its size than half
 * of main's, it shrinks a step ({@link #IDLE_DENSITY}): the events above cannot see that case when
 * main does not flow. Unlike hill climbing on the hit ratio (Caffeine), this needs no trial moves,
 * so it settles within a few periods even on short traces, and it cannot be fooled by a phase
 * change into a random walk. The idea of estimating the gradient from shadow queues is
 * Cliffhanger's (Cidon et al., NSDI 2016).
 *
 * <p>The same period also moves the sketch's history (increments between halvings, 5 to 20
 * capacities, starting at TinyLFU's 10): shorter when candidates that admission rejected come back
 * (are missed while still remembered as ghosts) clearly more often than the main entries that
 * admitted candidates displaced, longer in the opposite case ({@link #adaptAging}).
 *
 * <p>The same regrets set the margin by which a candidate's count must beat the victim's ({@link
 * AdmissionThreshold}): two counts at first, and whenever the victims that marginal admissions
 * displaced come back clearly more often than rejected candidates (then entries read in the window
 * lose their free pass and compete too); one count (TinyLFU's rule) once marginally rejected
 * candidates come back clearly more often than displaced victims. While at one count, the victims'
 * returns are weighed against what those admissions earn: how often a sample of the candidates they
 * let in ({@link AdmissionSample}) is read in probation, which the segment reports through {@link
 * #onPromoted} and {@link #onEvicted}.
 *
 * <p>A read of an entry in the window raises its count in the sketch only as far as admission
 * relies on counts alone ({@link AdmissionThreshold#countsWindowRead}): the free pass already
 * rewards it.
 *
 * <p>Concurrency: called under the segment's write lock, except {@link #recordAccess} and {@link
 * #onHit}, which readers call without a lock and which only bump counters: a lost increment merely
 * blurs a statistic.
 */
final class EvictionPolicy {

  /** The window's share of the bound when the segment starts. */
  static final double INITIAL_WINDOW = 0.01;

  /** The smallest and largest share the adaptation may give the window. */
  static final double MIN_WINDOW = 0.01;

  static final double MAX_WINDOW = 0.80;

  /** One adaptation step, as a share of the bound. */
  static final double STEP = 0.05;

  /** Requests per adaptation period, as a multiple of the capacity in entries. */
  static final int PERIOD = 2;

  /**
   * A period in which the gradient saw no gain event either way shrinks the window a step if the
   * window earned fewer hits per unit of its size than this share of main's. Half, not all: entries
   * read in the window leave it with the free pass and earn their later hits in main, so the
   * window's own hits understate what it is worth.
   */
  static final double IDLE_DENSITY = 0.5;

  /**
   * Contests, in capacities (entries), that main's victim may win in a row before the next
   * candidate is admitted in its place whatever the counts say. In strict admission a victim whose
   * count the sketch overstates (its counters shared with hot keys) can beat every candidate;
   * nothing is then evicted, main does not move, and the same victim meets the next candidate too,
   * so the cache stays frozen on whatever it held (docs/design/eviction.md, "A victim that never
   * loses"). A victim that is read is promoted before the next contest, so only an entry unread for
   * this many capacities of misses is forced out: at most one admission in eight capacities, which
   * left every cell of the trace runs within 0.05 points.
   */
  static final int PATIENCE = 8;

  /**
   * The protected queue's share of main (what main and the protected queue hold together): SLRU's
   * split as W-TinyLFU uses it (Einziger et al.).
   */
  static final double PROTECTED = 0.80;

  /** One change of the sketch's history per period: a factor of 1.25 longer or shorter. */
  static final double AGING_STEP = 1.25;

  /**
   * How much more often one side's ghosts must come back before the history moves: rejected
   * candidates against evicted victims, as a ratio of their return rates.
   */
  static final double AGING_MARGIN = 1.25;

  private final FrequencySketch sketch;
  private final GhostTable ghosts;
  private final AdmissionSample admissionSample;
  private final PageQueue window;
  private final PageQueue main;

  /** The window target in bound units (entries or bytes); -1 until the capacity is known. */
  private double windowTarget = -1;

  /** A step, in bytes of queue flow. */
  private long stepBytes;

  /** Bytes of queue flow that {@link AdmissionThreshold#VICTIM_LIFETIME} entries make. */
  private long victimLifetimeBytes;

  // Racy statistics of the current period.
  private int requests;
  private int growLoss;
  private int shrinkLoss;
  private int growGain;
  private int shrinkGain;
  private int windowHits;
  private int mainHits;
  // Admission's regrets in the current period (under the lock): candidates rejected and main
  // entries evicted, and how many of each came back while their ghost was remembered.
  private int rejected;
  private int rejectedReturned;
  private int evicted;
  private int evictedReturned;
  private final AdmissionThreshold admission = new AdmissionThreshold();
  // The bound in entries (an estimate for byte bounds), and the victim that won the last
  // contests with how many it won in a row.
  private long entryCapacity = 64;
  private long lastVictimHash;
  private long victimWins;

  EvictionPolicy(
      FrequencySketch sketch,
      GhostTable ghosts,
      AdmissionSample admissionSample,
      PageQueue window,
      PageQueue main) {
    this.sketch = sketch;
    this.ghosts = ghosts;
    this.admissionSample = admissionSample;
    this.window = window;
    this.main = main;
  }

  /**
   * Called by readers (racily) for a request that missed (or hit an entry whose page was being
   * recycled): counts the request, and the key in the sketch.
   */
  void recordAccess(long hash) {
    sketch.increment(hash);
    requests++;
  }

  /**
   * Called by readers (racily) on a hit: counts the request; counts the key in the sketch unless
   * the entry is in the window and {@link AdmissionThreshold#countsWindowRead} says no; and, for
   * the gradient, counts the hit if the entry is within a step of its queue's tail, i.e. if it
   * would have been lost had that queue been a step shorter.
   *
   * @param clock the entry's access counter before this hit
   */
  void onHit(Page page, int offset, long hash, int clock) {
    requests++;
    PageQueue queue = page.queue;
    if (queue != window || admission.countsWindowRead(clock == 0)) {
      sketch.increment(hash);
    }
    if (queue == null) {
      return;
    }
    if (queue == window) {
      windowHits++;
    } else {
      mainHits++;
    }
    long distance = page.flowStart + offset - queue.tailPosition();
    if (distance >= 0 && distance < stepBytes) {
      if (queue == main) {
        growLoss++;
      } else if (queue == window) {
        shrinkLoss++;
      }
    }
  }

  /**
   * Called under the lock with reads that the hot tier served for an entry: counted as requests,
   * and the key in the sketch once for each, as {@link #onHit} would have.
   *
   * @param hits reads served, at most 15
   */
  void onTierHits(long hash, int hits) {
    requests += hits;
    for (int i = 0; i < hits; i++) {
      sketch.increment(hash);
    }
  }

  /** Called under the lock when a key not in the cache is written: consults the ghosts. */
  void onInsert(long hash) {
    long distance = ghosts.distance(hash, window.tailPosition(), main.tailPosition());
    if (distance < 0) {
      return;
    }
    boolean rejectedCandidate = ghosts.queueOf(hash) == GhostTable.WINDOW;
    if (rejectedCandidate) {
      rejectedReturned++;
    } else {
      evictedReturned++;
    }
    admission.onReturn(
        rejectedCandidate,
        ghosts.marginal(hash),
        distance,
        rejectedCandidate ? window.tailPosition() : main.tailPosition(),
        distance <= victimLifetimeBytes);
    if (distance <= stepBytes) {
      if (rejectedCandidate) {
        growGain++;
      } else {
        shrinkGain++;
      }
      ghosts.remove(hash);
    }
  }

  /** The window's candidate was rejected: remember where the window's flow stood. */
  void onRejected(long hash) {
    rejected++;
    ghosts.add(hash, GhostTable.WINDOW, window.tailPosition(), admission.onRejected());
  }

  /** Main's tail entry was evicted: remember where main's flow stood. */
  void onEvicted(long hash) {
    evicted++;
    if (admissionSample.remove(hash)) {
      admission.onSampledAdmission(false);
    }
    ghosts.add(hash, GhostTable.MAIN, main.tailPosition(), admission.onEvicted());
  }

  /**
   * Returns the window's target size in the bound's unit (bytes or entries).
   *
   * @param capacity the bound, in its unit
   */
  long windowTarget(long capacity) {
    if (windowTarget < 0) {
      windowTarget = capacity * INITIAL_WINDOW;
    }
    return Math.max(1, (long) windowTarget);
  }

  /**
   * Called under the lock on writes: refreshes the step's size in bytes and, once a period has
   * passed, moves the window target.
   *
   * @param capacity the bound, in its unit
   * @param entryCapacity the bound in entries, or an estimate of it for a byte bound
   * @param bytesPerUnit bytes of queue flow per bound unit (mean entry size, or 1)
   * @param windowUnits what the window holds now, in the bound's unit
   * @param mainUnits what main and the protected queue hold now, in the bound's unit
   */
  void adapt(
      long capacity, long entryCapacity, double bytesPerUnit, long windowUnits, long mainUnits) {
    this.entryCapacity = Math.max(64, entryCapacity);
    double step = capacity * STEP;
    stepBytes = (long) Math.max(1, step * bytesPerUnit);
    // in double: an unbounded segment's capacity is near Long.MAX_VALUE (the cast saturates)
    victimLifetimeBytes =
        (long)
            ((double) AdmissionThreshold.VICTIM_LIFETIME
                * capacity
                * bytesPerUnit
                / Math.max(1, entryCapacity));
    ghosts.fitStep(stepBytes);
    if (requests < PERIOD * Math.max(64, entryCapacity)) {
      return;
    }
    int grow = growGain - growLoss;
    int shrink = shrinkGain - shrinkLoss;
    double target = windowTarget(capacity);
    if (grow > Math.max(0, shrink)) {
      target += step;
    } else if (shrink > Math.max(0, grow)
        || (gradientBlind() && windowIdle(windowUnits, mainUnits))) {
      target -= step;
    }
    windowTarget = Math.max(MIN_WINDOW * capacity, Math.min(MAX_WINDOW * capacity, target));
    adaptAging();
    requests = 0;
    growGain = 0;
    growLoss = 0;
    shrinkGain = 0;
    shrinkLoss = 0;
    windowHits = 0;
    mainHits = 0;
  }

  /**
   * Whether the period saw no gain event on either side: no rejected candidate came back within a
   * step of the window's flow, and no evicted entry within a step of main's. Only then does a
   * period without a move mean that the gradient saw nothing. Where gains were seen but losses
   * outweighed them, holding the window is the gradient's judgement and stands. On back-and-forth
   * sweeps (the LIRS set's backf), rejected keys near a turn come back at once while main is hit
   * once a sweep: overriding the gradient there cost 0.4-0.5 points (docs/design/eviction.md,
   * "Phase changes").
   */
  private boolean gradientBlind() {
    return growGain == 0 && shrinkGain == 0;
  }

  /**
   * Whether the window earned, this period, fewer hits per unit of its size than {@link
   * #IDLE_DENSITY} of main's. The gradient cannot see this case: once admission rejects every
   * candidate, as in a loop longer than the cache, main neither flows nor evicts, so no event says
   * that main would use the window's room better. Without this rule a window grown in a
   * recency-heavy phase stays grown through a loop that follows (docs/design/eviction.md, "Phase
   * changes").
   */
  private boolean windowIdle(long windowUnits, long mainUnits) {
    return (double) windowHits * Math.max(1, mainUnits)
        < IDLE_DENSITY * mainHits * Math.max(1, windowUnits);
  }

  /**
   * Moves the sketch's history one step at the end of a period. If candidates that admission
   * rejected come back (are missed while their ghost is remembered) clearly more often than the
   * main entries that admitted candidates displaced, the sketch is favouring incumbents on the
   * strength of old counts: shorten its history. If the displaced come back clearly more often,
   * admission is letting newcomers in too easily: lengthen it. Rates, not counts, are compared, so
   * a loop (where every key comes back) or a scan (where none does) leaves the history where it is;
   * and the ghost table's forgetting scales both rates alike.
   */
  private void adaptAging() {
    admission.endPeriod(rejected, evicted, window.tailPosition(), main.tailPosition());
    admissionSample.endPeriod();
    if (rejected > 0 && evicted > 0) {
      double rejectedRate = (double) rejectedReturned / rejected;
      double evictedRate = (double) evictedReturned / evicted;
      if (rejectedRate > evictedRate * AGING_MARGIN) {
        sketch.agingFactor(sketch.agingFactor() / AGING_STEP);
      } else if (evictedRate > rejectedRate * AGING_MARGIN) {
        sketch.agingFactor(sketch.agingFactor() * AGING_STEP);
      }
    }
    rejected = 0;
    rejectedReturned = 0;
    evicted = 0;
    evictedReturned = 0;
  }

  /** Returns how many counts more than the victim a candidate needs beyond one, for tests. */
  int admissionThreshold() {
    return admission.threshold();
  }

  /** Returns whether candidates read in the window must compete too, for tests. */
  boolean strictAdmission() {
    return admission.strict();
  }

  /**
   * Decides on the window's candidate ({@link AdmissionThreshold}), which also notes whether the
   * decision was marginal for the {@link #onRejected} or {@link #onEvicted} call that follows. A
   * victim that has won {@link #PATIENCE} capacities' worth of contests in a row loses the next
   * one.
   *
   * @param candidateHash the window entry leaving the window
   * @param candidateClock its access counter
   * @param victimHash the main queue's next victim, if {@code hasVictim}
   * @param hasVictim false if the main queue is empty
   * @return true to move the candidate to the main queue, false to evict it
   */
  boolean admit(long candidateHash, int candidateClock, long victimHash, boolean hasVictim) {
    if (!hasVictim) {
      admission.admitUncontested();
      return true;
    }
    boolean admit =
        admission.admit(
            sketch.frequency(candidateHash), candidateClock, sketch.frequency(victimHash));
    if (admit && admission.lastDecisionMarginal()) {
      admissionSample.add(candidateHash);
    }
    if (admit || victimHash != lastVictimHash) {
      lastVictimHash = victimHash;
      victimWins = admit ? 0 : 1;
    } else if (++victimWins > PATIENCE * entryCapacity) {
      // not a marginal decision: the eviction that follows must not count as a regret of one
      admission.admitUncontested();
      victimWins = 0;
      return true;
    }
    return admit;
  }

  /**
   * Returns true to promote it to the protected queue (with its counter reset), false to evict.
   *
   * @param clock the access counter of the main queue's oldest entry
   */
  boolean promote(int clock) {
    return clock > 0;
  }

  /**
   * Main's tail entry was read while in probation and is moving to the protected queue (called
   * before the move, which may still fail for want of room: it was read all the same).
   */
  void onPromoted(long hash) {
    if (admissionSample.remove(hash)) {
      admission.onSampledAdmission(true);
    }
  }

  /**
   * Returns the protected queue's largest size in the bound's unit.
   *
   * @param mainUnits what main and the protected queue hold together, in the bound's unit (live
   *     entries or live bytes: with a byte bound the budget also pays for the index and the pages'
   *     slack, so a share of the budget would never be reached)
   */
  long protectedTarget(long mainUnits) {
    return (long) (mainUnits * PROTECTED);
  }

  /**
   * Returns bytes of the sketch, the ghost table and the admission sample as they are now: an
   * entry-bounded segment's are made when first needed.
   */
  long bytes() {
    return sketch.bytes() + ghosts.bytes() + admissionSample.bytes();
  }

  /** Returns bytes of the three tables once all are made (see {@link #bytes}); for tests. */
  long tableBytes() {
    return sketch.tableBytes() + ghosts.tableBytes() + admissionSample.tableBytes();
  }

  /** Returns the bytes {@link #ensureCapacity} would add. */
  long growthFor(int expectedEntries) {
    return sketch.growthFor(expectedEntries)
        + ghosts.growthFor(expectedEntries)
        + admissionSample.growthFor(expectedEntries);
  }

  void ensureCapacity(int expectedEntries) {
    sketch.ensureCapacity(expectedEntries);
    ghosts.ensureCapacity(expectedEntries);
    admissionSample.ensureCapacity(expectedEntries);
  }
}
