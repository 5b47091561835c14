package dev.larder.internal.store;

/**
 * How much more often than main's victim a window candidate must have been requested to be
 * admitted, adapted per segment from admission's regrets (docs/design/eviction.md, "Adapting
 * admission's threshold").
 *
 * <p>Admission is in one of three states. At first the threshold is 1 (a candidate's count must
 * beat the victim's by two) but entries read in the window keep their free pass, the cautious
 * choice while nothing is known. <i>Strict</i> is the threshold with no free pass. <i>Lenient</i>
 * is TinyLFU's rule (any count more) with the free pass. A newcomer's count includes its latest
 * request while an incumbent's next one is still to come, so where every key is about as frequent,
 * lenient admission churns the cache.
 *
 * <p>The evidence is the regret of the <i>marginal</i> decisions, those strict and lenient
 * admission take differently:
 *
 * <ul>
 *   <li>while lenient, if the victims that marginal admissions displaced come back within {@link
 *       #VICTIM_LIFETIME} entries of main's flow clearly more often than a sample of the candidates
 *       those admissions let in are read in probation ({@link AdmissionSample}), admission turns
 *       strict; until enough of the sample has left probation, and in the initial state, the
 *       victims' returns are weighed against rejected candidates' in general instead;
 *   <li>if marginally rejected candidates come back clearly more often than displaced victims in
 *       general, and not clearly less often than rejected candidates in general, it turns lenient.
 * </ul>
 *
 * "Clearly" is by {@link #MARGIN} and by more than {@link #Z} standard errors, after at least
 * {@link #EVIDENCE} rejections and evictions and {@link #MARGINAL_EVIDENCE} marginal decisions of
 * the kind judged. Only returns of ghosts made since the evidence started count (a ghost's
 * distance, in its queue's flow, tells its age; a position that wrapped, after 128 steps of flow,
 * may count an older one). Otherwise a regime's returns would be divided by the next regime's
 * events: after a lenient spell, the victims it displaced would keep making strictness look right
 * while a strict spell evicts few.
 *
 * <p>Not thread-safe: guarded by the segment's write lock, like every caller in {@link
 * EvictionPolicy} that reaches it, except {@link #countsWindowRead}, which readers call without the
 * lock (a stale state misplaces one sketch increment).
 */
final class AdmissionThreshold {

  /**
   * Rejections and evictions (each) that must have accumulated before the threshold may move: fewer
   * are noise, and on short traces the first few periods see only the returns that come back
   * soonest.
   */
  static final int EVIDENCE = 16;

  /** Marginal decisions of one kind needed before they are judged. */
  static final int MARGINAL_EVIDENCE = 16;

  /**
   * Entries of main's flow within which a victim's return counts against the marginal admission
   * that displaced it, when that is weighed against what marginal admissions earn: had the
   * candidate been rejected, the victim would have stayed at probation's tail only until later
   * candidates beat it. Counted over the ghost table's whole memory instead, P3's victims came back
   * at about 22% and made lenient admission look wrong, which it is not there; within this lifetime
   * about 2% do. 16 to 64 gave the same figures (docs/design/eviction.md).
   */
  static final int VICTIM_LIFETIME = 32;

  /** How much higher one return rate must be than the other. */
  static final double MARGIN = 1.25;

  /**
   * The difference of the two return rates must also exceed this many standard errors (of a
   * difference of two proportions): rare events give a noisy rate.
   */
  static final double Z = 1;

  /**
   * Counts a candidate's frequency must exceed the victim's by, beyond the one of TinyLFU's strict
   * comparison (0 or 1).
   */
  private int threshold = 1;

  /** Whether candidates read in the window compete too (set by evidence, with threshold 1). */
  private boolean strict;

  // Whether the last decision was marginal, and the evictions still owed to marginal
  // admissions (the victim an admission displaces is main's next eviction).
  private boolean lastDecisionMarginal;
  private int pendingMarginalEvictions;
  // The evidence since it started: all rejections and evictions, the marginal ones, and the
  // returns of ghosts made since then; and where the window's and main's flows stood then.
  private int rejected;
  private int rejectedReturned;
  private int evicted;
  private int evictedReturned;
  private int marginalRejected;
  private int marginalRejectedReturned;
  private int marginalEvicted;
  private int marginalEvictedReturned;
  private int marginalEvictedReturnedSoon;
  // What sampled marginal admissions earned: read in probation or not (AdmissionSample).
  private int sampledRead;
  private int sampledUnread;
  private long windowMark;
  private long mainMark;

  /**
   * Decides on a window candidate that has a victim to compete with, and notes whether the decision
   * was marginal for the {@link #onRejected} or {@link #onEvicted} call that follows.
   *
   * @param candidate the candidate's sketch frequency
   * @param candidateClock its access counter (above 0: read while in the window)
   * @param victim the victim's sketch frequency
   * @return true to admit the candidate
   */
  boolean admit(int candidate, int candidateClock, int victim) {
    boolean lenientAdmits = candidateClock > 0 || candidate > victim;
    boolean strictAdmits = candidate > victim + 1;
    lastDecisionMarginal = lenientAdmits != strictAdmits;
    boolean admit = (candidateClock > 0 && !strict) || candidate > victim + threshold;
    if (admit && lastDecisionMarginal) {
      pendingMarginalEvictions++;
    }
    return admit;
  }

  /**
   * Whether a read of an entry in the window raises its count in the sketch. An entry read in the
   * window already leaves it with the free pass, so counting the same read in the sketch too
   * rewards short-term reuse twice: the entry then outranks, as a victim in main and as a later
   * candidate, keys requested as often over a longer time. So the window's reads reach the sketch
   * only as far as admission relies on counts alone: none while lenient (the free pass, and any
   * count more, admit), the first read of a window stay in the initial state, and every read once
   * strict (no free pass, so the count is the only trace of the read). Called by readers without
   * the lock; a stale state misplaces one increment.
   *
   * @param firstRead whether this is the entry's first read since it entered the window
   */
  boolean countsWindowRead(boolean firstRead) {
    return strict || (threshold == 1 && firstRead);
  }

  /** Admission without a contest (no victim): never marginal. */
  void admitUncontested() {
    lastDecisionMarginal = false;
  }

  /** Returns whether the last decision (an admission, if it admitted) was marginal. */
  boolean lastDecisionMarginal() {
    return lastDecisionMarginal;
  }

  /**
   * A candidate that a marginal admission let in left probation.
   *
   * @param read whether it was read there (promoted) rather than evicted
   */
  void onSampledAdmission(boolean read) {
    if (read) {
      sampledRead++;
    } else {
      sampledUnread++;
    }
  }

  /** Returns whether the candidate just rejected was rejected by a marginal decision. */
  boolean onRejected() {
    if (lastDecisionMarginal) {
      marginalRejected++;
    }
    return lastDecisionMarginal;
  }

  /** Returns whether the entry just evicted from main was displaced by a marginal admission. */
  boolean onEvicted() {
    boolean marginal = pendingMarginalEvictions > 0;
    if (marginal) {
      pendingMarginalEvictions--;
      marginalEvicted++;
    }
    return marginal;
  }

  /**
   * A ghost came back (its key was missed and written again).
   *
   * @param rejectedCandidate true for a rejected candidate's ghost, false for a victim's
   * @param marginal whether the decision that made the ghost was marginal
   * @param distance the ghost's age in its queue's flow
   * @param queueTail that queue's current tail position
   * @param withinLifetime for a victim, whether main has moved on by fewer than {@link
   *     #VICTIM_LIFETIME} entries since its eviction
   */
  void onReturn(
      boolean rejectedCandidate,
      boolean marginal,
      long distance,
      long queueTail,
      boolean withinLifetime) {
    if (distance > queueTail - (rejectedCandidate ? windowMark : mainMark)) {
      return;
    }
    if (rejectedCandidate) {
      rejectedReturned++;
      marginalRejectedReturned += marginal ? 1 : 0;
    } else {
      evictedReturned++;
      marginalEvictedReturned += marginal ? 1 : 0;
      marginalEvictedReturnedSoon += marginal && withinLifetime ? 1 : 0;
    }
  }

  /**
   * Called at the end of each adaptation period: adds its rejections and evictions to the evidence,
   * judges the evidence once there is enough, and then starts a new cohort at the queues' current
   * tail positions.
   *
   * @param periodRejected candidates rejected during the period
   * @param periodEvicted main entries evicted during the period
   */
  void endPeriod(int periodRejected, int periodEvicted, long windowTail, long mainTail) {
    rejected += periodRejected;
    evicted += periodEvicted;
    if (rejected < EVIDENCE || evicted < EVIDENCE) {
      return;
    }
    boolean judged = false;
    if (marginalEvicted >= MARGINAL_EVIDENCE) {
      if (marginalAdmissionsRegretted()) {
        threshold = 1;
        strict = true;
      }
      judged = true;
    }
    if (marginalRejected >= MARGINAL_EVIDENCE) {
      if (marginalRejectionsRegretted()) {
        threshold = 0;
        strict = false;
      }
      judged = true;
    }
    if (judged) {
      // an admission whose victim was never evicted must not tag a later eviction
      pendingMarginalEvictions = 0;
      marginalEvicted = 0;
      marginalEvictedReturned = 0;
      marginalEvictedReturnedSoon = 0;
      sampledRead = 0;
      sampledUnread = 0;
      marginalRejected = 0;
      marginalRejectedReturned = 0;
    }
    rejected = 0;
    rejectedReturned = 0;
    evicted = 0;
    evictedReturned = 0;
    windowMark = windowTail;
    mainMark = mainTail;
  }

  /**
   * Whether marginal admissions cost more than they earn. While lenient, once enough of them have
   * been followed through probation, their victims' returns within {@link #VICTIM_LIFETIME} are set
   * against how often the admitted candidates were read there: the regime's cost and benefit, not a
   * single decision's. Otherwise (in the initial state, or too few followed) their victims' returns
   * are set against those of rejected candidates in general.
   */
  private boolean marginalAdmissionsRegretted() {
    int sampled = sampledRead + sampledUnread;
    if (threshold == 0 && sampled >= MARGINAL_EVIDENCE) {
      return clearlyMoreOften(marginalEvictedReturnedSoon, marginalEvicted, sampledRead, sampled);
    }
    return clearlyMoreOften(marginalEvictedReturned, marginalEvicted, rejectedReturned, rejected);
  }

  /**
   * Whether marginal rejections cost more than strictness saves: marginally rejected candidates
   * come back clearly more often than displaced victims, and not clearly less often than rejected
   * candidates in general. The second test keeps a first judgement, made before any victim could
   * have come back, from turning lenient on the least valuable rejections (backf's first sweep).
   */
  private boolean marginalRejectionsRegretted() {
    return clearlyMoreOften(marginalRejectedReturned, marginalRejected, evictedReturned, evicted)
        && !clearlyMoreOften(
            rejectedReturned, rejected, marginalRejectedReturned, marginalRejected);
  }

  /**
   * Returns whether {@code returned1} of {@code events1} is a clearly higher return rate than
   * {@code returned2} of {@code events2}: by {@link #MARGIN} and by more than {@link #Z} standard
   * errors of the difference.
   */
  private static boolean clearlyMoreOften(
      long returned1, long events1, long returned2, long events2) {
    double rate1 = (double) returned1 / events1;
    double rate2 = (double) returned2 / events2;
    double pooled = (double) (returned1 + returned2) / (events1 + events2);
    double error = Math.sqrt(pooled * (1 - pooled) * (1.0 / events1 + 1.0 / events2));
    return rate1 > rate2 * MARGIN && rate1 - rate2 > Z * error;
  }

  /** Returns how many counts more than the victim a candidate needs beyond one (0 or 1). */
  int threshold() {
    return threshold;
  }

  /** Returns whether candidates read in the window must compete too. */
  boolean strict() {
    return strict;
  }
}
