package dev.larder.internal.store;

/**
 * Plays admission decisions into an {@link EvictionPolicy} as the segment makes them: ask {@code
 * admit}, then report the rejected candidate or the displaced victim, and let some of those ghosts
 * come back. Shared by the tests of the admission threshold and of what it decides elsewhere. Not
 * thread-safe.
 */
final class AdmissionPlay {

  static final int ENTRIES = 1000;

  final FrequencySketch sketch = new FrequencySketch(ENTRIES, 16);
  final PageQueue window = new PageQueue("window");
  final PageQueue main = new PageQueue("main");
  final EvictionPolicy policy =
      new EvictionPolicy(
          sketch, new GhostTable(ENTRIES, 8), new AdmissionSample(ENTRIES), window, main);
  private long nextKey = 1;

  static long hashOf(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return h ^ (h >>> 31);
  }

  /**
   * Returns a key the sketch has seen {@code count} times, skipping keys whose estimate a collision
   * already raised.
   */
  long keySeen(int count) {
    while (true) {
      long hash = hashOf(nextKey++);
      if (sketch.frequency(hash) != 0) {
        continue;
      }
      for (int i = 0; i < count; i++) {
        sketch.increment(hash);
      }
      if (sketch.frequency(hash) == count) {
        return hash;
      }
    }
  }

  /**
   * Plays {@code n} decisions on candidates seen {@code candidateCount} times (read in the window
   * if {@code clock > 0}) against fresh victims; {@code back} of the ghosts they leave (the
   * rejected candidate, or the displaced victim) come back.
   */
  void decisions(int n, int back, int candidateCount, int clock) {
    for (int i = 0; i < n; i++) {
      long candidate = keySeen(candidateCount);
      long victim = keySeen(0);
      long ghost;
      if (policy.admit(candidate, clock, victim, true)) {
        policy.onEvicted(victim);
        ghost = victim;
      } else {
        policy.onRejected(candidate);
        ghost = candidate;
      }
      if (i < back) {
        policy.onInsert(ghost);
      }
    }
  }

  /**
   * Plays {@code n} marginal decisions while admission is lenient, so each admits its candidate and
   * displaces a victim; {@code victimsBack} of the victims come back (at once, so within their
   * lifetime), and then every admitted candidate leaves probation, the first {@code candidatesRead}
   * of them read there (promoted) and the rest evicted unread.
   */
  void marginalAdmissions(int n, int victimsBack, int candidatesRead) {
    long[] admitted = new long[n];
    for (int i = 0; i < n; i++) {
      long candidate = keySeen(1);
      long victim = keySeen(0);
      if (!policy.admit(candidate, 0, victim, true)) {
        throw new IllegalStateException("admission is not lenient");
      }
      policy.onEvicted(victim);
      if (i < victimsBack) {
        policy.onInsert(victim);
      }
      admitted[i] = candidate;
    }
    for (int i = 0; i < n; i++) {
      if (i < candidatesRead) {
        policy.onPromoted(admitted[i]);
      } else {
        policy.onEvicted(admitted[i]);
      }
    }
  }

  /** Ordinary rejections: a candidate seen no more than the victim, rejected in any state. */
  void rejections(int n, int back) {
    decisions(n, back, 0, 0);
  }

  /** Ordinary admissions: a candidate seen three times more, admitted in any state. */
  void admissions(int n, int back) {
    decisions(n, back, 3, 0);
  }

  /** Marginal decisions: one count more than the victim, rejected unless admission is lenient. */
  void marginal(int n, int back) {
    decisions(n, back, 1, 0);
  }

  /**
   * One adaptation period of marginal decisions, ordinary rejections and ordinary admissions, each
   * with how many of the ghosts it leaves come back.
   */
  void period(
      int marginal,
      int marginalBack,
      int rejections,
      int rejectionsBack,
      int admissions,
      int admissionsBack) {
    marginal(marginal, marginalBack);
    rejections(rejections, rejectionsBack);
    admissions(admissions, admissionsBack);
    endPeriod();
  }

  /** Ends the adaptation period with requests for keys of their own. */
  void endPeriod() {
    for (int i = 0; i < EvictionPolicy.PERIOD * ENTRIES; i++) {
      policy.recordAccess(hashOf(10_000_000 + i));
    }
    policy.adapt(ENTRIES, ENTRIES, 1, 0, 0);
  }

  /**
   * One period in which most marginal decisions leave ghosts that come back, against few of the
   * ordinary ones: from the initial state this makes admission lenient (the marginal candidates
   * were rejected), and from lenient strict (they were admitted, and their victims come back).
   */
  void marginalRegretsForAPeriod() {
    period(40, 30, 40, 4, 40, 4);
  }
}
