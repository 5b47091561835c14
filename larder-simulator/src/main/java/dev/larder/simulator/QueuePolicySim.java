package dev.larder.simulator;

import dev.larder.bench.hitratio.Bound;
import dev.larder.bench.hitratio.Contender;
import dev.larder.bench.hitratio.Outcome;
import dev.larder.bench.hitratio.Trace;

/**
 * A fast model of the store's eviction mechanics, for designing its policy: two FIFO queues
 * (window, main) consumed only at their tails, a 2-bit access counter per entry, a count-min sketch
 * of 4-bit counters, and a ghost table of recently evicted keys. Keys are dense ids; no structure
 * here has a per-entry object, matching what the store can afford.
 *
 * <p>Per request: the sketch counts it; a hit raises the entry's counter (saturating at 3); a miss
 * inserts the entry at the window's head. While over capacity, the window's tail is processed if
 * the window is over its target (promoted to main if it was read in the window or if TinyLFU admits
 * it against main's victim; evicted otherwise), else main's tail is processed (reinserted at main's
 * head with its counter decremented if above zero, else evicted). The window target adapts by the
 * shadow gradient the store uses (default), or, for comparison, by hill climbing and/or ARC-style
 * ghost hits ({@link PolicyParams}).
 *
 * <p>Experiment switches are system properties ({@code sim.*}: shadow step and period, sketch
 * density and aging factor, free pass, counter depth...). Their defaults are the policy as the
 * tuning rows of docs/design/eviction.md ran it; the switches documented as "the store's rule" turn
 * on what larder-core's {@code EvictionPolicy} does beyond that. This is a model for designing the
 * policy, not the policy: the store's own code is larder-core's, and the figures of {@code ./larder
 * bench hitratio} come from the real cache. Run through {@link PolicyTuner}.
 */
final class QueuePolicySim implements Contender {

  private static final byte NONE = 0;
  private static final byte WINDOW = 1;
  private static final byte MAIN = 2;
  private static final byte PROTECTED = 3;

  /** Share of main kept as a protected queue (0: none, main is one CLOCK queue). */
  static final double PROTECT = Double.parseDouble(System.getProperty("sim.protect", "0.8"));

  /** Counter an entry keeps when promoted to the protected queue. */
  static final int PROMOTE_KEEP = Integer.getInteger("sim.promoteKeep", 0);

  /** Minimum counter for promotion to protected. */
  static final int PROMOTE_MIN = Integer.getInteger("sim.promoteMin", 1);

  static final int SKETCH_DENSITY = Integer.getInteger("sim.sketchDensity", 16);
  static final boolean FREE_PASS = !Boolean.getBoolean("sim.noFreePass");

  /** Window entries read while in the window get another round at its head (CLOCK). */
  static final boolean WINDOW_CLOCK = Boolean.getBoolean("sim.windowClock");

  // sim.clockStrict: strict admission also takes away the CLOCK window's extra rounds
  static final boolean CLOCK_STRICT = Boolean.getBoolean("sim.clockStrict");

  /** Free pass only for window entries whose counter reached this value. */
  static final int FREE_PASS_MIN = Integer.getInteger("sim.freePassMin", 1);

  static final boolean KEEP_COUNTER = Boolean.getBoolean("sim.keepCounter");
  static final int MAX_COUNTER = Integer.getInteger("sim.maxCounter", 3);
  static final boolean SHADOW = Boolean.parseBoolean(System.getProperty("sim.shadow", "true"));
  static final double SHADOW_STEP =
      Double.parseDouble(System.getProperty("sim.shadowStep", "0.05"));
  static final double SHADOW_PERIOD =
      Double.parseDouble(System.getProperty("sim.shadowPeriod", "2"));
  static final double SHADOW_SHRINK_LOSS =
      Double.parseDouble(System.getProperty("sim.shrinkLoss", "1"));
  static final int SHADOW_MIN_EVENTS = Integer.getInteger("sim.minEvents", 1);
  static final int HIT_BONUS = Integer.getInteger("sim.hitBonus", 0);
  static final boolean NO_ROTATE = Boolean.getBoolean("sim.noRotate");
  static final int SKETCH_MIN = Integer.getInteger("sim.sketchMin", 64);
  static final int SAMPLE_FACTOR = Integer.getInteger("sim.sampleFactor", 10);
  static final double SIGMA = Double.parseDouble(System.getProperty("sim.sigma", "0"));
  // sim.debug=true prints each period's window target and gradient events to stderr, for the
  // first sim.debugLines periods (40)
  static final boolean DEBUG = Boolean.getBoolean("sim.debug");
  static final int DEBUG_LINES = Integer.getInteger("sim.debugLines", 40);

  /**
   * Momentum of the shadow gradient: each further move in the same direction doubles the step, up
   * to this factor (1: off, the store's rule). Tried for traces where the window grows slowly
   * toward LRU's behaviour; it moved no cell by more than 0.1 point.
   */
  static final int MOMENTUM_MAX = Integer.getInteger("sim.momentum", 1);

  // sim.density=G: the window moves by G times the log ratio of the window's hits per unit of
  // its size to main's (capped at sim.densityCap of the bound per period), instead of the gradient
  static final double DENSITY = Double.parseDouble(System.getProperty("sim.density", "0"));
  static final double DENSITY_CAP = Double.parseDouble(System.getProperty("sim.densityCap", "0.3"));
  // sim.densityVeto=1: the gradient may grow the window only while the window's hits per unit
  // of size are at least main's; 2: and shrink it only while they are at most main's
  static final int DENSITY_VETO = Integer.getInteger("sim.densityVeto", 0);
  // sim.idleShrink=R: a period in which the gradient moves neither way shrinks the window one step
  // if the window's hits per unit of its size are under R times main's. The store does this with
  // R = 0.5 (EvictionPolicy.IDLE_DENSITY), together with sim.idleBlind; the defaults stay off so
  // that the rows eviction.md gives for the policy without them still reproduce
  // sim.jitter=K: a rejected candidate whose count is at least sim.jitterMin is admitted anyway
  // once in K such rejections (deterministic, by a counter), as Caffeine admits warm candidates at
  // random so that a victim the sketch overrates cannot hold its place forever (0: off)
  static final int JITTER = Integer.getInteger("sim.jitter", 0);
  static final int JITTER_MIN = Integer.getInteger("sim.jitterMin", 6);
  // sim.patience=F: a victim that has won F x capacity contests in a row without being read is
  // evicted at the next one, whatever the counts say (0: off)
  static final double PATIENCE = Double.parseDouble(System.getProperty("sim.patience", "0"));
  static final double IDLE_SHRINK = Double.parseDouble(System.getProperty("sim.idleShrink", "0"));
  // sim.idleBlind=true: the idle rule applies only to a period with no gain event on either
  // side (no rejected candidate back within a step of the window's flow, no victim back within
  // a step of main's), the store's rule
  static final boolean IDLE_BLIND = Boolean.getBoolean("sim.idleBlind");
  // sim.windowCounts=true: a hit on a window entry raises the key's count in the sketch only while
  // admission is strict, or, in the initial state (threshold 1 with the free pass), on the
  // entry's first read in the window: the store's rule (AdmissionThreshold.countsWindowRead); off
  // by default so that the rows eviction.md gives for the policy without it still reproduce
  static final boolean WINDOW_COUNTS = Boolean.getBoolean("sim.windowCounts");
  // sim.miniWindows=0.01,0.2,...: miniature caches (sampled keys, sim.miniSize entries) with
  // the window fixed at each share; the window target follows the one with the most decayed
  // hits (memory sim.chooserMemory miniature capacities, hysteresis sim.chooserMargin), moving
  // at most sim.miniStep of the bound per period (0: at once)
  static final double[] MINI_WINDOWS =
      System.getProperty("sim.miniWindows") == null
          ? null
          : java.util.Arrays.stream(System.getProperty("sim.miniWindows").split(","))
              .mapToDouble(Double::parseDouble)
              .toArray();
  static final int MINI_SIZE = Integer.getInteger("sim.miniSize", 1024);
  static final double MINI_STEP = Double.parseDouble(System.getProperty("sim.miniStep", "0"));

  /**
   * Admission levels below lenient (0: off, the store's rule): from lenient, threshold -1 admits
   * ties, -2 candidates one count under the victim, and so on down to minus this value. The
   * marginal decisions of a level are those it and its neighbour take differently, judged as
   * lenient's are; going below 0 also needs the marginal rejects' return rate above {@code
   * sim.levelRel} times the evicted baseline by {@code sim.levelZ} standard errors. {@code
   * sim.levelMomentum} doubles each further step down and goes back to 0 in one step. Tried for the
   * recency traces outside the shared set (scarab, sprite), where rejected candidates come back far
   * more often than victims.
   */
  static final int LEVELS = Integer.getInteger("sim.levels", 0);

  static final double LEVEL_REL = Double.parseDouble(System.getProperty("sim.levelRel", "1.25"));
  static final double LEVEL_Z = Double.parseDouble(System.getProperty("sim.levelZ", "1"));
  static final boolean LEVEL_MOMENTUM = Boolean.getBoolean("sim.levelMomentum");

  /**
   * Window entries with a free pass go to the protected queue, not main's probation head: with a
   * large window, probation is so short that free-passed entries leave it before their next read.
   * Tried for the same traces.
   */
  static final boolean PASS_TO_PROTECTED = Boolean.getBoolean("sim.passToProtected");

  /**
   * At this capacity (entries; -1: off), prints how the requests that LRU hits and misses fared
   * here (hit, or a miss on a key with no ghost, a rejected candidate's ghost or an evicted
   * victim's), and, per difference between the candidate's and the victim's sketch counts, how many
   * candidates admission rejected and how many of those came back while their ghost lasted: where
   * the policy loses to LRU, and whether admission's comparison told them apart.
   */
  static final long BREAKDOWN = Long.getLong("sim.breakdown", -1);

  /**
   * A first prototype of the structure chooser (docs/design/eviction.md, "Traces outside the shared
   * set"): miniature copies of the policy and of a CLOCK cache replay a hash-sampled share of the
   * keys (sized to this many entries each, never above the cache's own size; 0: off), and the cache
   * runs as CLOCK (a window of {@code sim.chooserWindow} with reinsertion inside it, no free pass)
   * while the CLOCK miniature's decayed hits (memory {@code sim.chooserMemory} miniature
   * capacities) lead by {@code sim.chooserMargin}, with the same margin to switch back. Entry
   * bounds only.
   */
  static final int CHOOSER = Integer.getInteger("sim.chooser", 0);

  /** The chooser's alternative is admission that admits everything, not the CLOCK window. */
  static final boolean CHOOSER_ADMIT = Boolean.getBoolean("sim.chooserAdmit");

  static final double CHOOSER_MEMORY =
      Double.parseDouble(System.getProperty("sim.chooserMemory", "4"));
  static final double CHOOSER_MARGIN =
      Double.parseDouble(System.getProperty("sim.chooserMargin", "0.02"));
  static final double CHOOSER_WINDOW =
      Double.parseDouble(System.getProperty("sim.chooserWindow", "0.99"));
  static final boolean CHOOSER_DEBUG = Boolean.getBoolean("sim.chooserDebug");

  /** The structure in use is judged by the cache's own hits on the sampled keys. */
  static final boolean CHOOSER_REAL = Boolean.getBoolean("sim.chooserReal");

  /**
   * LIRS's test for admission (0: off): unless admission is strict, a candidate that was rejected
   * and came back is admitted if its reuse distance in requests, times this factor, is under the
   * time since the victim was put at main's head.
   */
  static final double LIRS_ADMIT = Double.parseDouble(System.getProperty("sim.lirsAdmit", "0"));

  /** Prints the hits and admission decisions of every chunk of this many requests (0: off). */
  static final int CHUNK = Integer.getInteger("sim.chunk", 0);

  /**
   * The admission threshold's largest value (0: no threshold, candidates need one count more than
   * the victim): it starts there, and moves between 0 and there by admission's regrets.
   */
  static final int THRESHOLD_MAX = Integer.getInteger("sim.thresholdMax", 1);

  /** Rejections and evictions (each) needed before the threshold moves. */
  static final int THRESHOLD_EVIDENCE = Integer.getInteger("sim.thresholdEvidence", 16);

  /** Counts only the returns of ghosts made since the threshold's evidence started. */
  static final boolean COHORT = !Boolean.getBoolean("sim.noCohort");

  /**
   * Splits the cache into segments as the store does (by the key's hash); it did not bring the
   * simulator closer to the real cache on P3 (the page mechanics differ more).
   */
  static final boolean SEGMENTED = Boolean.getBoolean("sim.segmented");

  /**
   * Judges the threshold on the regrets of the decisions it changes (marginal ones), as the store
   * does; false compares the return rates of all rejections and evictions.
   */
  static final boolean MARGINAL = Boolean.parseBoolean(System.getProperty("sim.marginal", "true"));

  static final int MARGINAL_EVIDENCE = Integer.getInteger("sim.marginalEvidence", 16);

  /** Standard errors by which the two return rates must differ before the threshold moves. */
  static final double THRESHOLD_Z = Double.parseDouble(System.getProperty("sim.thresholdZ", "1"));

  /** Whether a threshold raised by regrets also takes the free pass away. */
  static final boolean STRICT_GATES_PASS = !Boolean.getBoolean("sim.strictKeepsPass");

  static boolean RESET_MAIN = Boolean.getBoolean("sim.resetMain");

  // Experiments on the threshold's judgement that the store did not adopt (docs/design/
  // eviction.md, "What the remaining cells would need"); every default is the store's rule.
  /** Starts strict (no free pass) instead of threshold 1 with the free pass. */
  static final boolean INITIAL_STRICT = Boolean.getBoolean("sim.initialStrict");

  /** Admits ties (candidate count = victim's) until the first judgement: LRU-like at first. */
  static final boolean TIE_INITIAL = Boolean.getBoolean("sim.tieInitial");

  /** Evictions needed before a judgement (the store needs THRESHOLD_EVIDENCE). */
  static final int EVICTED_EVIDENCE = Integer.getInteger("sim.evictedEvidence", THRESHOLD_EVIDENCE);

  /** Returns the other side's baseline must have seen before a move against it. */
  static final int MIN_BASE = Integer.getInteger("sim.minBase", 0);

  /**
   * Turning lenient also needs marginally rejected candidates to come back at least as often as the
   * other rejected ones (and turning strict, marginal victims as often as other victims).
   */
  static final boolean SANE_LENIENT = Boolean.getBoolean("sim.saneLenient");

  static final boolean SANE_STRICT = Boolean.getBoolean("sim.saneStrict");

  /**
   * The store's rule (off by default, as above): while lenient, once enough marginally admitted
   * candidates have left probation, turns strict only if the victims of marginal admissions come
   * back within {@link #VICTIM_LIFETIME} entries of main's flow clearly more often than those
   * candidates were read in probation; otherwise the victims are weighed against rejected
   * candidates as before.
   */
  static final boolean EARNED = Boolean.getBoolean("sim.earned");

  static final int VICTIM_LIFETIME = Integer.getInteger("sim.victimLifetime", 32);

  /**
   * The store's rule (off by default, as above): no lenient verdict while marginally rejected
   * candidates come back clearly less often than rejected candidates in general.
   */
  static final boolean LENIENT_CHECK = Boolean.getBoolean("sim.lenientCheck");

  /**
   * Compares return rates per unit of exposure (ghost age in bytes inserted) instead of per event,
   * with a Poisson test, so that a young cohort is not read as one that does not return.
   */
  static final boolean EXPOSURE = Boolean.getBoolean("sim.exposure");

  /** Admits one in this many marginally rejected candidates anyway, to gather evidence. */
  static final int PROBE = Integer.getInteger("sim.probe", 0);

  /**
   * Probes only while the evidence lacks evictions, after this many periods without a judgement.
   */
  static final boolean PROBE_STARVED = Boolean.getBoolean("sim.probeStarved");

  static final int PROBE_AFTER = Integer.getInteger("sim.probeAfter", 0);

  /**
   * Turns strict when marginally admitted candidates are hit in main clearly less often (by this
   * factor) than candidates admitted otherwise (0: off).
   */
  static final double BENEFIT = Double.parseDouble(System.getProperty("sim.benefit", "0"));

  /** Prints every judgement of the threshold to standard error. */
  static final boolean JUDGE_DEBUG = Boolean.getBoolean("sim.judgeDebug");

  /**
   * Adapts the sketch's aging period between these factors of the capacity, as the store does (0:
   * fixed at {@code sim.sampleFactor}).
   */
  static final double AGE_MIN = Double.parseDouble(System.getProperty("sim.ageMin", "5"));

  static final double AGE_MAX = Double.parseDouble(System.getProperty("sim.ageMax", "20"));
  static final double AGE_STEP = Double.parseDouble(System.getProperty("sim.ageStep", "1.25"));
  static final double AGE_MARGIN = Double.parseDouble(System.getProperty("sim.ageMargin", "0"));

  /** Relative margin: one return rate must exceed the other by this factor. */
  static final double AGE_REL = Double.parseDouble(System.getProperty("sim.ageRel", "1.25"));

  private final String name;
  private final PolicyParams params;

  QueuePolicySim(String name, PolicyParams params) {
    this.name = name;
    this.params = params;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Outcome replay(Trace trace, Bound bound, int run) {
    int segments = SEGMENTED ? segmentsFor(bound) : 1;
    if (segments == 1) {
      return new State(trace, bound, params).replay();
    }
    // as the store: each segment has its share of the bound and its own policy
    State[] states = new State[segments];
    for (int i = 0; i < segments; i++) {
      states[i] = new State(trace, new Bound(bound.value() / segments, bound.bytes()), params);
    }
    int[] ids = states[0].ids;
    int[] sizes = trace.weights();
    long hits = 0;
    long hitBytes = 0;
    long requestBytes = 0;
    for (int i = 0; i < ids.length; i++) {
      State state = states[(int) (states[0].hashes[ids[i]] >>> 32) & (segments - 1)];
      long w = bound.bytes() ? sizes[i] : 1;
      requestBytes += sizes[i];
      if (state.request(ids[i], w)) {
        hits++;
        hitBytes += sizes[i];
      }
    }
    return new Outcome(ids.length, hits, requestBytes, hitBytes);
  }

  /** The store's segment count (StoreSizing): one per 4096 entries or 16 MiB, at most 16. */
  static int segmentsFor(Bound bound) {
    long units = bound.bytes() ? bound.value() / (16L << 20) : bound.value() / 4096;
    return Integer.highestOneBit((int) Math.max(1, Math.min(16, units)));
  }

  private static final class State {
    final Trace trace;
    final int[] ids;
    final long capacity;
    final boolean bytes;
    final PolicyParams p;
    final byte[] where;
    final byte[] counter;
    final int[] weight;
    final long[] hashes;
    final byte[] ghostKind;
    final boolean[] ghostMarginal;
    // 1: admitted marginally, 2: admitted otherwise (for sim.benefit), 0: neither or counted
    final byte[] admittedHow;
    long marginalAdmHit, marginalAdmMiss, otherAdmHit, otherAdmMiss;
    final int[] ghostSeq;
    final IntRing window = new IntRing();
    final IntRing main = new IntRing();
    final IntRing prot = new IntRing();
    long protWeight;
    final IntRing ghostIds = new IntRing();
    final IntRing ghostSeqs = new IntRing();
    final SketchModel sketch;
    long windowWeight;
    long mainWeight;
    int entries;
    int ghostSize;
    int seq;
    double windowTarget;
    // hill climbing
    long sampleHits;
    long sampleRequests;
    double previousRate = -1;
    double stepSize;
    double direction = 1;
    // shadow gradient
    final long[] pos;
    final long[] gseq;
    long wIn;
    long wOut;
    long mIn;
    long mOut;
    double growGain;
    double growLoss;
    double shrinkGain;
    double shrinkLoss;
    long periodRequests;
    // adaptive aging
    double ageFactor = SAMPLE_FACTOR;
    // adaptive admission threshold
    int threshold = THRESHOLD_MAX;
    boolean strict = INITIAL_STRICT;
    long cohortRejectedReturns;
    long cohortEvictedReturns;
    long windowMark;
    long mainMark;
    long pendingMarginal;
    boolean nextGhostMarginal;
    long marginalRejected;
    long marginalRejectedReturns;
    long marginalEvicted;
    long marginalEvictedReturns;
    // victims of marginal admissions back within VICTIM_LIFETIME entries of main's flow
    long marginalEvictedSoon;
    // mean weight of the keys inserted, to turn VICTIM_LIFETIME entries into weight units
    long insertedWeight;
    long insertedKeys;
    long thresholdRejections;
    long thresholdRejectedReturns;
    long thresholdEvictions;
    long thresholdEvictedReturns;
    // chunk statistics (sim.chunk)
    long chunkHits;
    long freePasses;
    long admissions;
    long chunkRejections;
    long rejections;
    long rejectedReturns;
    long mainEvictions;
    long evictedReturns;

    // sim.lirsAdmit: when each key was last rejected, its reuse distance when it came back,
    // and when each main entry was last put at main's head (all in requests)
    long[] rejectedAt;
    long[] reuse;
    long[] mainTick;

    // the structure chooser (sim.chooser): decayed hits of the miniatures and of the cache
    boolean clockMode;
    State miniPolicy;
    State miniClock;
    long sampleBelow;
    double policyScore;
    double clockScore;
    double realScore;
    double decay;

    State(Trace trace, Bound bound, PolicyParams params) {
      this(trace, bound, params, false, (CHOOSER > 0 || MINI_WINDOWS != null) && !bound.bytes());
    }

    /**
     * @param clock runs as CLOCK from the start (the chooser's CLOCK miniature never leaves it, as
     *     it has no miniatures of its own)
     * @param chooser whether this state chooses its structure by miniatures
     */
    State(Trace trace, Bound bound, PolicyParams params, boolean clock, boolean chooser) {
      this.clockMode = clock;
      this.trace = trace;
      this.ids = trace.denseIds();
      int distinct = 0;
      for (int id : ids) {
        distinct = Math.max(distinct, id + 1);
      }
      this.capacity = bound.value();
      this.bytes = bound.bytes();
      this.p = params;
      where = new byte[distinct];
      counter = new byte[distinct];
      weight = new int[distinct];
      hashes = new long[distinct];
      ghostKind = new byte[distinct];
      ghostMarginal = new boolean[distinct];
      admittedHow = new byte[distinct];
      ghostSeq = new int[distinct];
      pos = new long[distinct];
      gseq = new long[distinct];
      long[] keys = trace.keys();
      for (int i = 0; i < ids.length; i++) {
        hashes[ids[i]] = KeyHash.mix(keys[i]);
      }
      long entryCapacity = bytes ? Math.max(64, capacity / 4096) : capacity;
      sketch =
          new SketchModel(
              Math.max(SKETCH_MIN, entryCapacity * SKETCH_DENSITY),
              (int) Math.min(Integer.MAX_VALUE, Math.max(64, SAMPLE_FACTOR * entryCapacity)));
      windowTarget =
          Double.parseDouble(
                  System.getProperty("sim.initialWindow", Double.toString(p.initialWindow())))
              * capacity;
      stepSize = p.step() * capacity;
      if (LIRS_ADMIT > 0) {
        rejectedAt = new long[distinct];
        reuse = new long[distinct];
        mainTick = new long[distinct];
      }
      if (chooser && MINI_WINDOWS != null) {
        double rate = Math.min(1.0, (double) MINI_SIZE / capacity);
        long miniCapacity = Math.max(1, Math.round(capacity * rate));
        sampleBelow = (long) (rate * (1L << 24));
        minis = new State[MINI_WINDOWS.length];
        miniScores = new double[MINI_WINDOWS.length];
        for (int k = 0; k < minis.length; k++) {
          double share = MINI_WINDOWS[k];
          minis[k] =
              new State(
                  trace,
                  Bound.entries(miniCapacity),
                  params.withWindow(share, share, share),
                  false,
                  false);
        }
        decay = 1 - 1.0 / (CHOOSER_MEMORY * miniCapacity);
      } else if (chooser) {
        double rate = Math.min(1.0, (double) CHOOSER / capacity);
        long miniCapacity = Math.max(1, Math.round(capacity * rate));
        sampleBelow = (long) (rate * (1L << 24));
        miniPolicy = new State(trace, Bound.entries(miniCapacity), params, false, false);
        miniClock = new State(trace, Bound.entries(miniCapacity), params, true, false);
        decay = 1 - 1.0 / (CHOOSER_MEMORY * miniCapacity);
      }
    }

    // sim.miniWindows: the miniatures, their decayed hits, and the one the target follows
    State[] minis;
    double[] miniScores;
    int chosenMini = -1;

    /** Feeds a sampled request to every window miniature and notes which is ahead. */
    void chooseWindow(int id, long w) {
      if (((hashes[id] >>> 8) & ((1L << 24) - 1)) >= sampleBelow) {
        return;
      }
      int best = 0;
      for (int k = 0; k < minis.length; k++) {
        miniScores[k] = miniScores[k] * decay + (minis[k].request(id, w) ? 1 : 0);
        if (miniScores[k] > miniScores[best]) {
          best = k;
        }
      }
      if (chosenMini < 0 || miniScores[best] > miniScores[chosenMini] * (1 + CHOOSER_MARGIN)) {
        if (CHOOSER_DEBUG && best != chosenMini) {
          System.err.printf("mini cap %d t=%d -> %.2f%n", capacity, tick, MINI_WINDOWS[best]);
        }
        chosenMini = best;
      }
    }

    /** Feeds a sampled request to both miniatures and serves with the structure that is ahead. */
    void choose(int id, long w, boolean hit) {
      if (((hashes[id] >>> 8) & ((1L << 24) - 1)) >= sampleBelow) {
        return;
      }
      policyScore = policyScore * decay + (miniPolicy.request(id, w) ? 1 : 0);
      clockScore = clockScore * decay + (miniClock.request(id, w) ? 1 : 0);
      realScore = realScore * decay + (hit ? 1 : 0);
      double policy = CHOOSER_REAL && !clockMode ? realScore : policyScore;
      double clockEstimate = CHOOSER_REAL && clockMode ? realScore : clockScore;
      boolean clock =
          clockMode
              ? !(policy > clockEstimate * (1 + CHOOSER_MARGIN))
              : clockEstimate > policy * (1 + CHOOSER_MARGIN);
      if (clock != clockMode && CHOOSER_REAL) {
        realScore = clock ? clockScore : policyScore;
      }
      if (clock != clockMode) {
        if (CHOOSER_DEBUG) {
          System.err.printf(
              "chooser cap %d t=%d -> %s (policy %.1f clock %.1f)%n",
              capacity, tick, clock ? "clock" : "policy", policyScore, clockScore);
        }
        clockMode = clock;
      }
    }

    double target() {
      return clockMode && !CHOOSER_ADMIT ? CHOOSER_WINDOW * capacity : windowTarget;
    }

    Outcome replay() {
      long hits = 0;
      long hitBytes = 0;
      long requestBytes = 0;
      int[] sizes = trace.weights();
      Breakdown breakdown = capacity == BREAKDOWN ? new Breakdown(ids, capacity) : null;
      this.breakdown = breakdown;
      for (int i = 0; i < ids.length; i++) {
        int id = ids[i];
        long w = bytes ? sizes[i] : 1;
        requestBytes += sizes[i];
        missGhost = NONE;
        boolean hit = request(id, w);
        if (hit) {
          hits++;
          hitBytes += sizes[i];
        }
        if (breakdown != null) {
          breakdown.record(i, hit, missGhost);
        }
        if (CHUNK > 0 && (i + 1) % CHUNK == 0) {
          System.err.printf(
              "cap %d chunk %d hits %d window %.0f threshold %d%s"
                  + " free passes %d admissions %d rejections %d%n",
              capacity,
              i / CHUNK,
              hits - chunkHits,
              windowTarget,
              threshold,
              strict ? " strict" : "",
              freePasses,
              admissions,
              chunkRejections);
          chunkHits = hits;
          freePasses = admissions = chunkRejections = 0;
        }
      }
      if (breakdown != null) {
        breakdown.print();
      }
      return new Outcome(ids.length, hits, requestBytes, hitBytes);
    }

    // the sim.breakdown diagnostic: the ghost a missed key had, if any
    Breakdown breakdown;
    byte missGhost;

    // requests so far (for sim.judgeDebug), and the state of the experiments below
    long tick;
    boolean judgedOnce;
    long probes;
    int idlePeriods;
    long inFlow;
    double sumRej;
    double sumEv;
    double sumMRej;
    double sumMEv;

    boolean request(int id, long w) {
      tick++;
      // a key that is present hits whatever size the request names, as in the other caches
      boolean hit = where[id] != NONE;
      if (!hit || where[id] != WINDOW || countsWindowRead(id)) {
        sketch.increment(hashes[id]);
      }
      if (hit && SHADOW) {
        double delta = SHADOW_STEP * capacity;
        if (where[id] == MAIN && pos[id] - mOut < delta) {
          growLoss++;
        } else if (where[id] == WINDOW && pos[id] - wOut < delta) {
          shrinkLoss += SHADOW_SHRINK_LOSS;
        }
      }
      if (hit) {
        if (where[id] == WINDOW) {
          periodWindowHits++;
        } else {
          periodMainHits++;
        }
        if (counter[id] < MAX_COUNTER) {
          counter[id]++;
        }
      } else {
        miss(id, w);
      }
      if (SHADOW) {
        shadow();
      } else {
        climb(hit);
      }
      if (minis != null) {
        chooseWindow(id, w);
      }
      if (miniPolicy != null) {
        choose(id, w, hit);
      }
      return hit;
    }

    /** Whether a hit on window entry {@code id} counts in the sketch (sim.windowCounts). */
    boolean countsWindowRead(int id) {
      return !WINDOW_COUNTS || strict || (threshold == 1 && counter[id] == 0);
    }

    void miss(int id, long w) {
      if (w > capacity) {
        return;
      }
      inFlow += w;
      byte ghost = ghostLookup(id);
      missGhost = ghost;
      if (ghost == WINDOW && breakdown != null) {
        breakdown.rejectedReturned(id);
      }
      if (SHADOW && ghost != NONE) {
        double delta = SHADOW_STEP * capacity;
        if (ghost == WINDOW && wOut - gseq[id] <= delta) {
          growGain++;
        } else if (ghost == MAIN && mOut - gseq[id] <= delta) {
          shrinkGain++;
        }
      }
      if (ghost == WINDOW) {
        rejectedReturns++;
        if (!COHORT || gseq[id] >= windowMark) {
          cohortRejectedReturns++;
          if (ghostMarginal[id]) {
            marginalRejectedReturns++;
          }
        }
      } else if (ghost == MAIN) {
        evictedReturns++;
        if (!COHORT || gseq[id] >= mainMark) {
          cohortEvictedReturns++;
          if (ghostMarginal[id]) {
            marginalEvictedReturns++;
            if (mOut - gseq[id]
                <= VICTIM_LIFETIME * (double) insertedWeight / Math.max(1, insertedKeys)) {
              marginalEvictedSoon++;
            }
          }
        }
      }
      if (ghost != NONE && p.ghostAdapt()) {
        double delta = p.ghostStep() * capacity;
        windowTarget += ghost == WINDOW ? delta : -delta;
        clampWindow();
      }
      counter[id] = 0;
      if (reuse != null) {
        reuse[id] = ghost == WINDOW ? tick - rejectedAt[id] : Long.MAX_VALUE;
      }
      weight[id] = (int) w;
      insertedWeight += weight[id];
      insertedKeys++;
      entries++;
      if (ghost != NONE && p.ghostToMain()) {
        where[id] = MAIN;
        pos[id] = mIn;
        enteredMain(id);
        mIn += w;
        main.add(id);
        mainWeight += w;
      } else {
        where[id] = WINDOW;
        pos[id] = wIn;
        wIn += w;
        window.add(id);
        windowWeight += w;
      }
      evict();
    }

    void clampWindow() {
      windowTarget =
          Math.max(p.minWindow() * capacity, Math.min(p.maxWindow() * capacity, windowTarget));
    }

    void evict() {
      while (windowWeight + mainWeight > capacity) {
        if (windowWeight > target() || mainWeight == 0) {
          processWindowTail();
        } else {
          int victim = mainVictim();
          evictFrom(main, victim, MAIN);
        }
      }
    }

    void processWindowTail() {
      int candidate = pollLive(window, WINDOW);
      wOut += weight[candidate];
      if ((WINDOW_CLOCK
              && counter[candidate] > 0
              && counter[candidate] < FREE_PASS_MIN
              && !(CLOCK_STRICT && strict))
          || (clockMode && !CHOOSER_ADMIT && counter[candidate] > 0)) {
        counter[candidate]--;
        pos[candidate] = wIn;
        wIn += weight[candidate];
        window.add(candidate);
        return;
      }
      if (counter[candidate] >= FREE_PASS_MIN && FREE_PASS && !(strict && STRICT_GATES_PASS)) {
        freePasses++;
        if (MARGINAL
            && mainWeight > 0
            && !(LEVELS > 0 && threshold < 0)
            && mainWeight + weight[candidate] > capacity - target()) {
          int v = mainVictim();
          if (sketch.frequency(hashes[candidate]) <= sketch.frequency(hashes[v]) + 1) {
            pendingMarginal++;
          }
        }
        if (PASS_TO_PROTECTED) {
          windowWeight -= weight[candidate];
          mainWeight += weight[candidate];
          counter[candidate] = 0;
          addToProtected(candidate);
          return;
        }
        moveToMain(candidate);
        return;
      }
      if (mainWeight == 0 || mainWeight + weight[candidate] <= capacity - target()) {
        // main is not full yet: nothing to compete with
        moveToMain(candidate);
        return;
      }
      int victim = NO_ROTATE ? peekLive(main) : mainVictim();
      int windowBonus = counter[candidate] > 0 ? HIT_BONUS : 0;
      boolean admit =
          (clockMode && CHOOSER_ADMIT)
              || sketch.frequency(hashes[candidate]) + p.bias() + windowBonus
                  > sketch.frequency(hashes[victim]) + threshold
              || (p.ghostAdmit() && ghostKind[candidate] != NONE)
              || (LIRS_ADMIT > 0
                  && !strict
                  && reuse[candidate] * LIRS_ADMIT < tick - mainTick[victim])
              || (TIE_INITIAL
                  && !judgedOnce
                  && sketch.frequency(hashes[candidate]) >= sketch.frequency(hashes[victim]));
      int fc = sketch.frequency(hashes[candidate]);
      int fv = sketch.frequency(hashes[victim]);
      boolean lenientAdmits = counter[candidate] >= FREE_PASS_MIN || fc > fv;
      boolean strictAdmits = fc > fv + 1;
      boolean marginal = MARGINAL && lenientAdmits != strictAdmits;
      if (LEVELS > 0 && !strict && threshold <= 0) {
        // below strict, a level's marginal decisions are those its neighbours take otherwise
        marginal = admit ? fc == fv + threshold + 1 : threshold > -LEVELS && fc == fv + threshold;
      }
      if (JITTER > 0 && !admit && fc >= JITTER_MIN && ++jitterCount % JITTER == 0) {
        admit = true;
      }
      if (PATIENCE > 0) {
        if (victim != patientVictim || counter[victim] > 0) {
          patientVictim = victim;
          victimWins = 0;
        }
        if (!admit && ++victimWins > PATIENCE * capacity) {
          admit = true;
          victimWins = 0;
        }
      }
      if (PROBE > 0
          && marginal
          && !admit
          && (!PROBE_STARVED
              || (thresholdRejections + rejections >= THRESHOLD_EVIDENCE
                  && thresholdEvictions + mainEvictions < THRESHOLD_EVIDENCE
                  && idlePeriods >= PROBE_AFTER))
          && ++probes % PROBE == 0) {
        admit = true;
      }
      if (admit) {
        admissions++;
        if (marginal) {
          pendingMarginal++;
        }
        admittedHow[candidate] = (byte) (marginal ? 1 : 2);
        moveToMain(candidate);
        if (!NO_ROTATE && windowWeight + mainWeight > capacity) {
          evictFrom(main, victim, MAIN);
        }
      } else {
        if (breakdown != null) {
          breakdown.rejected(candidate, fc - fv);
        }
        windowWeight -= weight[candidate];
        where[candidate] = NONE;
        entries--;
        gseq[candidate] = wOut;
        if (rejectedAt != null) {
          rejectedAt[candidate] = tick;
        }
        sumRej += inFlow;
        if (marginal) {
          sumMRej += inFlow;
        }
        rejections++;
        chunkRejections++;
        if (marginal) {
          marginalRejected++;
          nextGhostMarginal = true;
        }
        ghostAdd(candidate, WINDOW);
      }
    }

    void moveToMain(int id) {
      windowWeight -= weight[id];
      mainWeight += weight[id];
      where[id] = MAIN;
      if (!KEEP_COUNTER) {
        counter[id] = 0;
      }
      pos[id] = mIn;
      enteredMain(id);
      mIn += weight[id];
      main.add(id);
    }

    void noteAdmittedLeaves(int id, boolean hit) {
      if (admittedHow[id] == 1) {
        if (hit) {
          marginalAdmHit++;
        } else {
          marginalAdmMiss++;
        }
      } else if (admittedHow[id] == 2) {
        if (hit) {
          otherAdmHit++;
        } else {
          otherAdmMiss++;
        }
      }
      admittedHow[id] = 0;
    }

    /** Rotates main's tail past entries with a counter (clock), leaving the victim at the tail. */
    int mainVictim() {
      while (true) {
        if (PROTECT > 0) {
          demoteOverflow();
        }
        int id = main.peek();
        if (where[id] != MAIN) {
          main.poll();
          continue;
        }
        if (counter[id] == 0) {
          return id;
        }
        if (PROTECT > 0 && counter[id] >= PROMOTE_MIN) {
          noteAdmittedLeaves(id, true);
          main.poll();
          mOut += weight[id];
          counter[id] = (byte) Math.min(counter[id] - 1, PROMOTE_KEEP);
          addToProtected(id);
          continue;
        }
        counter[id] = (byte) (RESET_MAIN ? 0 : counter[id] - 1);
        main.poll();
        mOut += weight[id];
        pos[id] = mIn;
        enteredMain(id);
        mIn += weight[id];
        main.add(id);
      }
    }

    /** Notes when an entry was put at main's head (sim.lirsAdmit). */
    void enteredMain(int id) {
      if (mainTick != null) {
        mainTick[id] = tick;
      }
    }

    /** Puts an entry already counted in main's weight at the protected queue's head. */
    void addToProtected(int id) {
      where[id] = PROTECTED;
      prot.add(id);
      protWeight += weight[id];
    }

    /** Moves protected entries beyond the protected share back to main's head (CLOCK). */
    void demoteOverflow() {
      // the store's rule: a share of what main and protected hold together
      while (protWeight > PROTECT * mainWeight || (protWeight > 0 && protWeight >= mainWeight)) {
        int id = prot.poll();
        if (where[id] != PROTECTED) {
          continue;
        }
        if (counter[id] > 0) {
          counter[id]--;
          prot.add(id);
          continue;
        }
        protWeight -= weight[id];
        where[id] = MAIN;
        pos[id] = mIn;
        enteredMain(id);
        mIn += weight[id];
        main.add(id);
      }
    }

    void evictFrom(IntRing queue, int expected, byte kind) {
      int id = pollLive(queue, kind);
      if (id != expected) {
        throw new IllegalStateException("victim moved");
      }
      noteAdmittedLeaves(id, false);
      mainWeight -= weight[id];
      mOut += weight[id];
      gseq[id] = mOut;
      mainEvictions++;
      sumEv += inFlow;
      if (pendingMarginal > 0) {
        sumMEv += inFlow;
        pendingMarginal--;
        marginalEvicted++;
        nextGhostMarginal = true;
      }
      where[id] = NONE;
      entries--;
      ghostAdd(id, kind);
    }

    int peekLive(IntRing queue) {
      while (where[queue.peek()] != MAIN) {
        queue.poll();
      }
      return queue.peek();
    }

    int pollLive(IntRing queue, byte kind) {
      while (true) {
        int id = queue.poll();
        if (where[id] == kind) {
          return id;
        }
      }
    }

    byte ghostLookup(int id) {
      byte kind = ghostKind[id];
      return kind;
    }

    void ghostAdd(int id, byte kind) {
      seq++;
      ghostKind[id] = kind;
      ghostMarginal[id] = nextGhostMarginal;
      nextGhostMarginal = false;
      ghostSeq[id] = seq;
      ghostIds.add(id);
      ghostSeqs.add(seq);
      ghostSize++;
      long limit = (long) Math.max(16, entries * p.ghostFactor());
      while (ghostSize > limit) {
        int old = ghostIds.poll();
        int oldSeq = ghostSeqs.poll();
        ghostSize--;
        if (ghostSeq[old] == oldSeq) {
          ghostKind[old] = NONE;
        }
      }
    }

    long jitterCount;
    int patientVictim = -1;
    long victimWins;
    long periodWindowHits;
    long periodMainHits;
    int debugLines;
    // consecutive moves of the window target in the same direction (sim.momentum)
    int run;
    int lastDir;

    void shadow() {
      long entryCapacity = bytes ? Math.max(64, entries) : capacity;
      if (++periodRequests < SHADOW_PERIOD * entryCapacity) {
        return;
      }
      double grow = growGain - growLoss;
      double shrink = shrinkGain - shrinkLoss;
      if (DEBUG && debugLines++ < DEBUG_LINES) {
        System.err.printf(
            "cap %d window %.0f gg %.0f gl %.0f sg %.0f sl %.0f w %d m %d p %d%n",
            capacity,
            windowTarget,
            growGain,
            growLoss,
            shrinkGain,
            shrinkLoss,
            windowWeight,
            mainWeight - protWeight,
            protWeight);
      }
      if (minis != null && chosenMini >= 0) {
        double goal = MINI_WINDOWS[chosenMini] * capacity;
        double move = MINI_STEP > 0 ? MINI_STEP * capacity : Double.MAX_VALUE;
        windowTarget += Math.max(-move, Math.min(move, goal - windowTarget));
        endPeriod(entryCapacity);
        return;
      }
      if (DENSITY > 0) {
        double w = Math.max(1, windowWeight);
        double m = Math.max(1, mainWeight);
        double error = Math.log(((periodWindowHits + 0.5) / w) / ((periodMainHits + 0.5) / m));
        windowTarget +=
            Math.signum(error) * Math.min(DENSITY_CAP, Math.abs(error) * DENSITY) * capacity;
        clampWindow();
        endPeriod(entryCapacity);
        return;
      }
      double delta =
          SHADOW_STEP * capacity * Math.min(MOMENTUM_MAX, 1 << Math.min(16, Math.max(0, run - 1)));
      // a net gain smaller than SIGMA standard deviations of the counts is noise
      boolean growSure = grow > SIGMA * Math.sqrt(growGain + growLoss);
      boolean shrinkSure = shrink > SIGMA * Math.sqrt(shrinkGain + shrinkLoss);
      double windowDensity = periodWindowHits / Math.max(1.0, (double) windowWeight);
      double mainDensity = periodMainHits / Math.max(1.0, (double) mainWeight);
      if (DENSITY_VETO >= 1 && windowDensity < mainDensity) {
        growSure = false;
      }
      if (DENSITY_VETO >= 2 && windowDensity > mainDensity) {
        shrinkSure = false;
      }
      if (grow > Math.max(0, shrink) && grow >= SHADOW_MIN_EVENTS && growSure) {
        windowTarget += delta;
        run = lastDir > 0 ? run + 1 : 1;
        lastDir = 1;
      } else if (shrink > Math.max(0, grow) && shrink >= SHADOW_MIN_EVENTS && shrinkSure) {
        windowTarget -= delta;
        run = lastDir < 0 ? run + 1 : 1;
        lastDir = -1;
      } else if (IDLE_SHRINK > 0
          && windowDensity < IDLE_SHRINK * mainDensity
          && (!IDLE_BLIND || growGain + shrinkGain == 0)) {
        // no evidence either way, and the window earns less per entry than main: the gradient is
        // blind when main does not flow (nothing admitted, so nothing evicted from it)
        windowTarget -= delta;
        run = 0;
        lastDir = 0;
      } else {
        run = 0;
        lastDir = 0;
      }
      clampWindow();
      endPeriod(entryCapacity);
    }

    /** Adapts the sketch's history and starts the next period's statistics. */
    void endPeriod(long entryCapacity) {
      adaptAging(entryCapacity);
      growGain = growLoss = shrinkGain = shrinkLoss = 0;
      periodRequests = periodWindowHits = periodMainHits = 0;
    }

    /**
     * Rejected candidates that come back more often than evicted victims do: the sketch favours
     * incumbents too much, so shorten its history; the other way round, lengthen it.
     */
    void adaptAging(long entryCapacity) {
      adaptThreshold();
      if (AGE_MIN <= 0) {
        rejections = rejectedReturns = mainEvictions = evictedReturns = 0;
        return;
      }
      if (rejections > 0 && mainEvictions > 0) {
        double r = (double) rejectedReturns / rejections;
        double a = (double) evictedReturns / mainEvictions;
        if (r > a * AGE_REL + AGE_MARGIN) {
          ageFactor = Math.max(AGE_MIN, ageFactor / AGE_STEP);
        } else if (a > r * AGE_REL + AGE_MARGIN) {
          ageFactor = Math.min(AGE_MAX, ageFactor * AGE_STEP);
        }
        sketch.sampleSize((int) Math.max(64, ageFactor * entryCapacity));
        if (DEBUG && debugLines++ < 80) {
          System.err.printf("cap %d r %.3f a %.3f age %.2f%n", capacity, r, a, ageFactor);
        }
      }
      rejections = rejectedReturns = mainEvictions = evictedReturns = 0;
    }

    /**
     * The store's admission threshold: once enough regrets have accumulated, victims that come back
     * clearly more often than rejected candidates set it (and take the free pass away), the
     * opposite clears it.
     */
    void adaptThreshold() {
      thresholdRejections += rejections;
      thresholdRejectedReturns += cohortRejectedReturns;
      thresholdEvictions += mainEvictions;
      thresholdEvictedReturns += cohortEvictedReturns;
      cohortRejectedReturns = cohortEvictedReturns = 0;
      if (THRESHOLD_MAX == 0
          || thresholdRejections < THRESHOLD_EVIDENCE
          || thresholdEvictions < EVICTED_EVIDENCE) {
        idlePeriods++;
        return;
      }
      if (MARGINAL) {
        judgeMarginal();
        return;
      }
      double r = (double) thresholdRejectedReturns / thresholdRejections;
      double a = (double) thresholdEvictedReturns / thresholdEvictions;
      double pooled =
          (double) (thresholdRejectedReturns + thresholdEvictedReturns)
              / (thresholdRejections + thresholdEvictions);
      double noise =
          THRESHOLD_Z
              * Math.sqrt(
                  pooled * (1 - pooled) * (1.0 / thresholdRejections + 1.0 / thresholdEvictions));
      if (a > r * AGE_REL && a - r > noise) {
        threshold = THRESHOLD_MAX;
        strict = true;
      } else if (r > a * AGE_REL && r - a > noise) {
        threshold = 0;
        strict = false;
      }
      thresholdRejections = thresholdRejectedReturns = thresholdEvictions = 0;
      thresholdEvictedReturns = 0;
      windowMark = wOut;
      mainMark = mOut;
    }

    /**
     * Marginal decisions are those strict and lenient admission would take differently. In whatever
     * state admission is, their regrets are weighed against the other kind's baseline: victims
     * displaced by marginal admissions against all rejected candidates, marginally rejected
     * candidates against all displaced victims.
     */
    void judgeMarginal() {
      idlePeriods = 0;
      boolean moved = EXPOSURE ? judgeByExposure() : judgeByEvents();
      if (BENEFIT > 0 && !strict) {
        long mn = marginalAdmHit + marginalAdmMiss;
        long on = otherAdmHit + otherAdmMiss;
        if (mn >= MARGINAL_EVIDENCE && on >= MARGINAL_EVIDENCE) {
          double mh = (double) marginalAdmHit / mn;
          double oh = (double) otherAdmHit / on;
          if (oh > mh * BENEFIT && differs(oh, on, mh, mn)) {
            threshold = THRESHOLD_MAX;
            strict = true;
          }
          marginalAdmHit = marginalAdmMiss = otherAdmHit = otherAdmMiss = 0;
        }
      }
      if (JUDGE_DEBUG) {
        System.err.printf(
            "judge cap %d t=%d rej %d/%d ev %d/%d mRej %d/%d mEv %d/%d -> thr %d%s%n",
            capacity,
            tick,
            thresholdRejectedReturns,
            thresholdRejections,
            thresholdEvictedReturns,
            thresholdEvictions,
            marginalRejectedReturns,
            marginalRejected,
            marginalEvictedReturns,
            marginalEvicted,
            threshold,
            strict ? " strict" : "");
      }
      if (moved) {
        judgedOnce = true;
        marginalEvicted = marginalEvictedReturns = marginalRejected = marginalRejectedReturns = 0;
        marginalEvictedSoon = 0;
        if (EARNED) {
          marginalAdmHit = marginalAdmMiss = otherAdmHit = otherAdmMiss = 0;
        }
        sumMRej = sumMEv = 0;
      }
      sumRej = sumEv = 0;
      thresholdRejections = thresholdRejectedReturns = thresholdEvictions = 0;
      thresholdEvictedReturns = 0;
      windowMark = wOut;
      mainMark = mOut;
    }

    /** The store's judgement: return rates per event. @return whether evidence was judged */
    boolean judgeByEvents() {
      double r = (double) thresholdRejectedReturns / thresholdRejections;
      double a = (double) thresholdEvictedReturns / thresholdEvictions;
      boolean moved = false;
      if (marginalEvicted >= MARGINAL_EVIDENCE) {
        double mv = (double) marginalEvictedReturns / marginalEvicted;
        long followed = marginalAdmHit + marginalAdmMiss;
        if (EARNED && threshold <= 0 && !strict && followed >= MARGINAL_EVIDENCE) {
          double soon = (double) marginalEvictedSoon / marginalEvicted;
          double read = (double) marginalAdmHit / followed;
          if (soon > read * AGE_REL && differs(soon, marginalEvicted, read, followed)) {
            tighten();
          }
        } else if (mv > r * AGE_REL
            && differs(mv, marginalEvicted, r, thresholdRejections)
            && thresholdRejectedReturns >= MIN_BASE
            && (!SANE_STRICT
                || mv * (thresholdEvictions - marginalEvicted)
                    >= thresholdEvictedReturns - marginalEvictedReturns)) {
          tighten();
        }
        moved = true;
      }
      if (marginalRejected >= MARGINAL_EVIDENCE) {
        double mr = (double) marginalRejectedReturns / marginalRejected;
        if (mr > a * AGE_REL
            && differs(mr, marginalRejected, a, thresholdEvictions)
            && !(LENIENT_CHECK
                && r > mr * AGE_REL
                && differs(r, thresholdRejections, mr, marginalRejected))
            && thresholdEvictedReturns >= MIN_BASE
            && (!SANE_LENIENT
                || mr * (thresholdRejections - marginalRejected)
                    >= thresholdRejectedReturns - marginalRejectedReturns)
            && (LEVELS == 0
                || strict
                || threshold > 0
                || (mr > a * LEVEL_REL
                    && mr - a
                        > LEVEL_Z * standardError(mr, marginalRejected, a, thresholdEvictions)))) {
          loosen();
        }
        moved = true;
      }
      return moved;
    }

    // the step of the next move below lenient (sim.levelMomentum)
    int levelStep = 1;

    /** Admission one level stricter (strict from lenient or from the initial state). */
    void tighten() {
      if (LEVELS > 0 && threshold < 0) {
        threshold = LEVEL_MOMENTUM ? 0 : threshold + 1;
        levelStep = 1;
      } else {
        threshold = THRESHOLD_MAX;
        strict = true;
      }
    }

    /** Admission one level more lenient (below lenient only with sim.levels). */
    void loosen() {
      if (LEVELS > 0 && !strict && threshold <= 0) {
        threshold = Math.max(-LEVELS, threshold - levelStep);
        if (LEVEL_MOMENTUM) {
          levelStep *= 2;
        }
      } else {
        threshold = 0;
        strict = false;
      }
    }

    /** The sim.exposure experiment: returns per unit of ghost age. @return as judgeByEvents */
    boolean judgeByExposure() {
      double xr = thresholdRejections * (double) inFlow - sumRej;
      double xa = thresholdEvictions * (double) inFlow - sumEv;
      double xmr = marginalRejected * (double) inFlow - sumMRej;
      double xmv = marginalEvicted * (double) inFlow - sumMEv;
      boolean moved = false;
      if (marginalEvicted >= MARGINAL_EVIDENCE) {
        if (marginalEvictedReturns / xmv > thresholdRejectedReturns / xr * AGE_REL
            && poissonDiffers(marginalEvictedReturns, xmv, thresholdRejectedReturns, xr)) {
          threshold = THRESHOLD_MAX;
          strict = true;
        }
        moved = true;
      }
      if (marginalRejected >= MARGINAL_EVIDENCE) {
        if (marginalRejectedReturns / xmr > thresholdEvictedReturns / xa * AGE_REL
            && poissonDiffers(marginalRejectedReturns, xmr, thresholdEvictedReturns, xa)) {
          threshold = 0;
          strict = false;
        }
        moved = true;
      }
      return moved;
    }

    /**
     * Returns whether {@code r1} returns over exposure {@code x1} are more than THRESHOLD_Z
     * standard errors above what the pooled rate predicts (conditional binomial test).
     */
    boolean poissonDiffers(long r1, double x1, long r2, double x2) {
      long n = r1 + r2;
      if (n == 0 || x1 <= 0 || x2 <= 0) {
        return false;
      }
      double p0 = x1 / (x1 + x2);
      return (r1 - n * p0) > THRESHOLD_Z * Math.sqrt(n * p0 * (1 - p0));
    }

    /** Returns the standard error of the difference of two rates, from their pooled rate. */
    static double standardError(double p1, long n1, double p2, long n2) {
      double pooled = (p1 * n1 + p2 * n2) / (n1 + n2);
      return Math.sqrt(pooled * (1 - pooled) * (1.0 / n1 + 1.0 / n2));
    }

    boolean differs(double p1, long n1, double p2, long n2) {
      return Math.abs(p1 - p2) > THRESHOLD_Z * standardError(p1, n1, p2, n2);
    }

    void climb(boolean hit) {
      if (!p.climb()) {
        return;
      }
      sampleRequests++;
      if (hit) {
        sampleHits++;
      }
      long entryCapacity = bytes ? Math.max(64, entries) : capacity;
      if (sampleRequests < Math.max(p.minSample(), p.sampleFactor() * entryCapacity)) {
        return;
      }
      double rate = (double) sampleHits / sampleRequests;
      if (previousRate >= 0) {
        double change = rate - previousRate;
        if (change < 0) {
          direction = -direction;
        }
        if (Math.abs(change) >= 0.05) {
          stepSize = p.step() * capacity;
        } else {
          stepSize *= p.decay();
        }
      }
      windowTarget += direction * stepSize;
      clampWindow();
      previousRate = rate;
      sampleHits = 0;
      sampleRequests = 0;
    }
  }

  /**
   * The {@code sim.breakdown} diagnostic for one replay: each request's outcome here against LRU's
   * at the same capacity (LRU hits a key whose stack distance, the distinct keys requested since
   * its last request, is below the capacity; counted with a Fenwick tree over request positions),
   * and admission's rejections by sketch-count difference.
   */
  static final class Breakdown {
    private static final String[] OUTCOMES = {
      "hit",
      "miss, no ghost",
      "miss, rejected",
      "miss, evicted from main",
      "miss, evicted from protected"
    };
    private static final int DIFFERENCES = 21;

    private final int[] ids;
    private final long capacity;
    private final int[] fenwick;
    private final int[] lastRequest;
    private final int[] rejectedDifference;
    private final long[][] outcomes = new long[2][OUTCOMES.length];
    private final long[] rejections = new long[DIFFERENCES];
    private final long[] returns = new long[DIFFERENCES];

    Breakdown(int[] ids, long capacity) {
      this.ids = ids;
      this.capacity = capacity;
      this.fenwick = new int[ids.length + 1];
      int distinct = 0;
      for (int id : ids) {
        distinct = Math.max(distinct, id + 1);
      }
      this.lastRequest = new int[distinct];
      this.rejectedDifference = new int[distinct];
      java.util.Arrays.fill(lastRequest, -1);
    }

    void record(int request, boolean hit, byte ghost) {
      int id = ids[request];
      int previous = lastRequest[id];
      boolean lruHit = false;
      if (previous >= 0) {
        lruHit = prefix(request - 1) - prefix(previous) < capacity;
        add(previous, -1);
      }
      add(request, 1);
      lastRequest[id] = request;
      outcomes[lruHit ? 0 : 1][hit ? 0 : 1 + ghost]++;
    }

    /** Returns the requests so far that an LRU cache of the capacity (in entries) would hit. */
    long lruHits() {
      long hits = 0;
      for (long count : outcomes[0]) {
        hits += count;
      }
      return hits;
    }

    void rejected(int id, int difference) {
      rejectedDifference[id] = difference;
      rejections[bucket(difference)]++;
    }

    void rejectedReturned(int id) {
      returns[bucket(rejectedDifference[id])]++;
    }

    private static int bucket(int difference) {
      return Math.max(0, Math.min(DIFFERENCES - 1, difference + DIFFERENCES / 2));
    }

    private void add(int position, int delta) {
      for (int i = position + 1; i < fenwick.length; i += i & -i) {
        fenwick[i] += delta;
      }
    }

    private int prefix(int position) {
      int sum = 0;
      for (int i = position + 1; i > 0; i -= i & -i) {
        sum += fenwick[i];
      }
      return sum;
    }

    void print() {
      for (int lru = 0; lru < 2; lru++) {
        for (int o = 0; o < OUTCOMES.length; o++) {
          if (outcomes[lru][o] > 0) {
            System.err.printf(
                "breakdown %d LRU %s, here %s: %d%n",
                capacity, lru == 0 ? "hit" : "miss", OUTCOMES[o], outcomes[lru][o]);
          }
        }
      }
      for (int d = 0; d < DIFFERENCES; d++) {
        if (rejections[d] > 0) {
          System.err.printf(
              "breakdown %d candidate - victim %s%d: rejected %d, came back %d%n",
              capacity,
              d == 0 ? "<=" : d == DIFFERENCES - 1 ? ">=" : "",
              d - DIFFERENCES / 2,
              rejections[d],
              returns[d]);
        }
      }
    }
  }
}
