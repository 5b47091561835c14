package dev.larder.bench.scenarios;

import dev.larder.bench.measure.InterleavedLoop;
import dev.larder.bench.measure.Stats;
import dev.larder.bench.measure.TimedLoop;
import dev.larder.bench.measure.ZipfSampler;
import dev.larder.bench.peer.BenchCache;
import dev.larder.bench.peer.CacheSpec;
import dev.larder.bench.peer.Peer;
import dev.larder.bench.peer.PeerUnavailableException;
import dev.larder.bench.scenario.ChartSpec;
import dev.larder.bench.scenario.Parameter;
import dev.larder.bench.scenario.Presentation;
import dev.larder.bench.scenario.Presentation.Column;
import dev.larder.bench.scenario.Row;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Scenario;
import dev.larder.bench.scenario.Trial;
import dev.larder.bench.scenario.TrialContext;
import dev.larder.codec.Codecs;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A CacheBench-style mix (the replicated-cache benchmark's readers asked for it): 90% reads and 10% writes of 1 KiB byte[] values under String
 * keys, Zipf-distributed (exponent 0.99) or uniform, on 1, 2, 4 and 8 threads; also a read-only
 * and a write-only mix. The cache holds half the key space, so eviction runs all
 * along.
 *
 * <p>Two methods ({@code -P method=}):
 * <ul>
 *   <li>{@code interleaved} (the default): every implementation in one JVM, each combination run
 *       as rounds of short slices of each implementation in turn (the order reversed every other
 *       round), counting operations per second of the process's CPU time as well as of wall
 *       time ({@link InterleavedLoop}). Each implementation's row gives the medians over the
 *       rounds, and its ratio to Caffeine's and OHC's operations per CPU second: the median of
 *       the ratios of neighbouring slices. These ratios hold on a machine shared with other work
 *       (docs/design/performance.md, "How to measure on a busy machine").</li>
 *   <li>{@code sequential}: each implementation in its own JVM, one after the other, at least
 *       three timed repetitions after a warm-up, wall-clock only. Its ratios mean something only
 *       on an otherwise idle machine.</li>
 * </ul>
 */
public final class ThroughputScenario implements Scenario {

  private static final int VALUE_BYTES = 1024;

  private static final Parameter.WholeNumber KEYS =
      new Parameter.WholeNumber("keys", 1, 100_000_000, 100_000, 10_000);
  private static final Parameter.Decimal CAPACITY_FRACTION =
      new Parameter.Decimal("capacityFraction", 0.0001, 1, 0.5, 0.5);
  private static final Parameter.Decimal ZIPF_EXPONENT =
      new Parameter.Decimal("zipfExponent", 0, 10, 0.99, 0.99);
  private static final Parameter.Choices DISTRIBUTIONS = new Parameter.Choices("distributions",
      List.of("zipf", "uniform"), List.of("zipf", "uniform"), List.of("zipf"));
  private static final Parameter.WholeNumbers THREADS = new Parameter.WholeNumbers("threads", 1,
      1024, List.of(1L, 2L, 4L, 8L), List.of(1L, 2L));
  /** Percentages of reads in the mix: 90/10, read-only and write-only in a full run. */
  private static final Parameter.WholeNumbers READ_PERCENTS = new Parameter.WholeNumbers(
      "readPercents", 0, 100, List.of(90L, 100L, 0L), List.of(90L));
  private static final Parameter.Choices METHOD = new Parameter.Choices("method",
      List.of("interleaved", "sequential"), List.of("interleaved"), List.of("interleaved"));
  private static final Parameter.WholeNumber WARMUP_MILLIS =
      new Parameter.WholeNumber("warmupMillis", 0, 600_000, 1_000, 100);
  /** A repetition's length (sequential), or a slice's (interleaved). */
  private static final Parameter.WholeNumber MILLIS =
      new Parameter.WholeNumber("millis", 1, 600_000, 300, 100);
  /** Repetitions (sequential), or rounds of slices (interleaved). */
  private static final Parameter.WholeNumber REPETITIONS =
      new Parameter.WholeNumber("repetitions", 3, 1000, 7, 3);
  /** The trial of the interleaved method, which measures every implementation in one JVM. */
  static final String INTERLEAVED = "interleaved";

  @Override
  public String name() {
    return "throughput";
  }

  @Override
  public String summary() {
    return "CacheBench-style mix: 90/10, read-only and write-only ops/s, Zipf and uniform keys, 1-8 threads,"
        + " under eviction";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(KEYS, CAPACITY_FRACTION, ZIPF_EXPONENT, DISTRIBUTIONS, THREADS, READ_PERCENTS,
        METHOD, WARMUP_MILLIS, MILLIS, REPETITIONS);
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    List<String> names = Subjects.planned(options).stream().map(Peer::name).toList();
    if (interleaved(options)) {
      if (METHOD.get(options).size() != 1) {
        throw new IllegalArgumentException("-P method takes one method: interleaved or"
            + " sequential");
      }
      return names.isEmpty() ? List.of() : List.of(new Trial(INTERLEAVED,
          String.join(", ", names), Map.of(Trial.IMPLEMENTATIONS, String.join(",", names))));
    }
    List<Trial> trials = new ArrayList<>();
    for (String name : names) {
      trials.add(new Trial(name, "", Map.of()));
    }
    return trials;
  }

  private static boolean interleaved(RunOptions options) {
    return METHOD.get(options).contains(INTERLEAVED);
  }

  @Override
  public String heapSize(RunOptions options) {
    if (interleaved(options)) {
      // every implementation's entries at once (about 100 MiB each at the defaults)
      return options.quick() ? "1g" : "3g";
    }
    return options.quick() ? "256m" : "1g";
  }

  @Override
  public int trialTimeoutSeconds(RunOptions options) {
    // the interleaved trial runs every implementation
    return interleaved(options) ? (options.quick() ? 600 : 7200) : Scenario.super
        .trialTimeoutSeconds(options);
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws Exception {
    if (trial.implementation().equals(INTERLEAVED)) {
      return runInterleaved(trial, context);
    }
    RunOptions o = context.options();
    int keySpace = KEYS.getInt(o);
    long capacity = Math.max(1, (long) (keySpace * CAPACITY_FRACTION.get(o)));
    Peer peer = Subjects.named(trial.implementation());
    CacheSpec<String, byte[]> spec =
        new CacheSpec<>(String.class, byte[].class, Codecs.bytes(), capacity, 0, capacity,
            Keys.KEY_CHARS, VALUE_BYTES);
    BenchCache<String, byte[]> cache;
    try {
      cache = peer.create(spec);
    } catch (PeerUnavailableException e) {
      return List.of(Row.unavailable(peer.name(), e.getMessage()));
    }
    try (cache) {
      return measure(trial, context, cache, keySpace, capacity);
    }
  }

  private List<Row> measure(Trial trial, TrialContext context, BenchCache<String, byte[]> cache,
      int keySpace, long capacity) throws InterruptedException {
    RunOptions o = context.options();
    String[] keys = new String[keySpace];
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < keySpace; i++) {
      keys[i] = Keys.key(i);
      cache.put(keys[i], Keys.value(random, VALUE_BYTES));
    }
    shuffle(keys, random);
    double exponent = ZIPF_EXPONENT.get(o);
    List<Row> rows = new ArrayList<>();
    for (String distribution : DISTRIBUTIONS.get(o)) {
      ZipfSampler sampler = new ZipfSampler(keySpace, distribution.equals("uniform") ? 0 : exponent);
      for (long readPercent : READ_PERCENTS.get(o)) {
        for (long t : THREADS.get(o)) {
          int threads = (int) t;
          context.progress(distribution + ", " + readPercent + "% reads, " + threads
              + " thread(s)");
          rows.add(run(trial, o, cache, keys, sampler, distribution, (int) readPercent, threads,
              capacity));
        }
      }
    }
    return rows;
  }

  private static Row run(Trial trial, RunOptions o, BenchCache<String, byte[]> cache,
      String[] keys, ZipfSampler sampler, String distribution, int readPercent, int threads,
      long capacity) throws InterruptedException {
    List<MixWorker> workers = new ArrayList<>();
    double[] samples = TimedLoop.run(threads, i -> {
      MixWorker w = new MixWorker(cache, keys, sampler, readPercent,
          new SplittableRandom(1000L + i));
      workers.add(w);
      return w;
    }, WARMUP_MILLIS.get(o), MILLIS.get(o), REPETITIONS.getInt(o));
    Stats stats = Stats.of(samples);
    long hits = 0;
    long reads = 0;
    for (MixWorker w : workers) {
      hits += w.hits;
      reads += w.reads;
    }
    Row row = Row.of(trial.implementation())
        .put("distribution", distribution)
        .put("readPercent", readPercent)
        .put("threads", threads)
        .put("opsPerSecond", stats.median())
        .put("opsPerSecondMin", stats.min())
        .put("opsPerSecondMax", stats.max())
        .put("spreadPercent", 100 * stats.relativeSpread())
        .put("repetitions", stats.count())
        .put("hitRatio", reads == 0 ? 0.0 : (double) hits / reads)
        .put("keySpace", keys.length)
        .put("capacityEntries", capacity);
    long held = cache.size();
    if (held >= keys.length) {
      row.put("note", "never evicts: holds all " + held + " keys");
    } else if (held > capacity * 21 / 20) {
      row.put("note", "holds " + held + " entries for a bound of " + capacity);
    }
    return row;
  }

  /**
   * The interleaved method: creates and fills every implementation of the trial, then for each
   * combination runs rounds of one slice of each (see {@link InterleavedLoop}).
   */
  private List<Row> runInterleaved(Trial trial, TrialContext context) throws Exception {
    RunOptions o = context.options();
    int keySpace = KEYS.getInt(o);
    long capacity = Math.max(1, (long) (keySpace * CAPACITY_FRACTION.get(o)));
    CacheSpec<String, byte[]> spec =
        new CacheSpec<>(String.class, byte[].class, Codecs.bytes(), capacity, 0, capacity,
            Keys.KEY_CHARS, VALUE_BYTES);
    String[] keys = new String[keySpace];
    for (int i = 0; i < keySpace; i++) {
      keys[i] = Keys.key(i);
    }
    shuffle(keys, new SplittableRandom(7));
    List<Row> rows = new ArrayList<>();
    List<String> names = new ArrayList<>();
    List<BenchCache<String, byte[]>> caches = new ArrayList<>();
    try {
      for (String name : trial.implementations()) {
        Peer peer = Subjects.named(name);
        context.progress("filling " + name);
        try {
          BenchCache<String, byte[]> cache = peer.create(spec);
          caches.add(cache);
          names.add(name);
          SplittableRandom random = new SplittableRandom(7);
          for (int i = 0; i < keySpace; i++) {
            cache.put(Keys.key(i), Keys.value(random, VALUE_BYTES));
          }
        } catch (PeerUnavailableException e) {
          rows.add(Row.unavailable(peer.name(), e.getMessage()));
        }
      }
      double exponent = ZIPF_EXPONENT.get(o);
      for (String distribution : DISTRIBUTIONS.get(o)) {
        ZipfSampler sampler =
            new ZipfSampler(keySpace, distribution.equals("uniform") ? 0 : exponent);
        for (long readPercent : READ_PERCENTS.get(o)) {
          for (long t : THREADS.get(o)) {
            int threads = (int) t;
            context.progress(distribution + ", " + readPercent + "% reads, " + threads
                + " thread(s), " + names.size() + " implementations interleaved");
            rows.addAll(interleave(o, names, caches, keys, sampler, distribution,
                (int) readPercent, threads, capacity));
          }
        }
      }
    } finally {
      for (BenchCache<String, byte[]> cache : caches) {
        cache.close();
      }
    }
    return rows;
  }

  private static List<Row> interleave(RunOptions o, List<String> names,
      List<BenchCache<String, byte[]>> caches, String[] keys, ZipfSampler sampler,
      String distribution, int readPercent, int threads, long capacity)
      throws InterruptedException {
    List<List<TimedLoop.Worker>> subjects = new ArrayList<>();
    List<List<MixWorker>> mixes = new ArrayList<>();
    for (BenchCache<String, byte[]> cache : caches) {
      List<TimedLoop.Worker> workers = new ArrayList<>();
      List<MixWorker> mix = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        MixWorker w = new MixWorker(cache, keys, sampler, readPercent,
            new SplittableRandom(1000L + i));
        workers.add(w);
        mix.add(w);
      }
      subjects.add(workers);
      mixes.add(mix);
    }
    List<List<InterleavedLoop.Slice>> slices = InterleavedLoop.run(subjects,
        WARMUP_MILLIS.get(o), MILLIS.get(o), REPETITIONS.getInt(o));
    List<Row> rows = new ArrayList<>();
    for (int s = 0; s < names.size(); s++) {
      List<InterleavedLoop.Slice> mine = slices.get(s);
      Stats cpu = Stats.of(mine.stream().mapToDouble(InterleavedLoop.Slice::opsPerCpuSecond)
          .toArray());
      Stats wall = Stats.of(mine.stream().mapToDouble(InterleavedLoop.Slice::opsPerSecond)
          .toArray());
      long hits = 0;
      long reads = 0;
      for (MixWorker w : mixes.get(s)) {
        hits += w.hits;
        reads += w.reads;
      }
      Row row = Row.of(names.get(s))
          .put("distribution", distribution)
          .put("readPercent", readPercent)
          .put("threads", threads)
          .put("opsPerCpuSecond", cpu.median())
          .put("opsPerSecond", wall.median())
          .put("spreadPercent", 100 * cpu.relativeSpread());
      ratio(row, "xCaffeine", mine, names, slices, "Caffeine");
      ratio(row, "xOhc", mine, names, slices, "OHC");
      row.put("repetitions", cpu.count())
          .put("method", INTERLEAVED)
          .put("hitRatio", reads == 0 ? 0.0 : (double) hits / reads)
          .put("keySpace", keys.length)
          .put("capacityEntries", capacity);
      long held = caches.get(s).size();
      if (held >= keys.length) {
        row.put("note", "never evicts: holds all " + held + " keys");
      } else if (held > capacity * 21 / 20) {
        row.put("note", "holds " + held + " entries for a bound of " + capacity);
      }
      rows.add(row);
    }
    return rows;
  }

  /**
   * Puts the median, over the rounds, of the ratio of this subject's operations per CPU second
   * to {@code peer}'s in the same round, if {@code peer} ran.
   */
  private static void ratio(Row row, String field, List<InterleavedLoop.Slice> mine,
      List<String> names, List<List<InterleavedLoop.Slice>> slices, String peer) {
    int p = names.indexOf(peer);
    if (p < 0) {
      return;
    }
    List<InterleavedLoop.Slice> theirs = slices.get(p);
    double[] ratios = new double[mine.size()];
    for (int r = 0; r < ratios.length; r++) {
      ratios[r] = mine.get(r).opsPerCpuSecond() / theirs.get(r).opsPerCpuSecond();
    }
    row.put(field, Stats.of(ratios).median());
  }

  private static void shuffle(String[] keys, SplittableRandom random) {
    for (int i = keys.length - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      String t = keys[i];
      keys[i] = keys[j];
      keys[j] = t;
    }
  }

  /** One thread's mix of reads and writes; counts its own hits so no counter is shared. */
  private static final class MixWorker implements TimedLoop.Worker {
    private final BenchCache<String, byte[]> cache;
    private final String[] keys;
    private final ZipfSampler sampler;
    private final int readPercent;
    private final SplittableRandom random;
    long hits;
    long reads;

    MixWorker(BenchCache<String, byte[]> cache, String[] keys, ZipfSampler sampler,
        int readPercent, SplittableRandom random) {
      this.cache = cache;
      this.keys = keys;
      this.sampler = sampler;
      this.readPercent = readPercent;
      this.random = random;
    }

    @Override
    public void step() {
      String key = keys[sampler.next(random)];
      if (random.nextInt(100) >= readPercent) {
        cache.put(key, Keys.value(random, VALUE_BYTES));
      } else {
        reads++;
        if (cache.get(key) != null) {
          hits++;
        }
      }
    }
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            Column.of("implementation"),
            Column.of("distribution"),
            new Column("readPercent", "reads %"),
            Column.of("threads"),
            new Column("opsPerCpuSecond", "ops/CPU s (median)"),
            new Column("opsPerSecond", "ops/s (median)"),
            new Column("spreadPercent", "spread %"),
            new Column("xCaffeine", "x Caffeine (per CPU s)"),
            new Column("xOhc", "x OHC (per CPU s)"),
            new Column("hitRatio", "hit ratio")),
        List.of(
            new ChartSpec("", "90% reads / 10% writes, Zipf 0.99 keys (median of repetitions)",
                "threads", "implementation", "opsPerSecond", "operations per second", false,
                Map.of("distribution", "zipf", "readPercent", 90)),
            new ChartSpec("-uniform", "90% reads / 10% writes, uniform keys",
                "threads", "implementation", "opsPerSecond", "operations per second", false,
                Map.of("distribution", "uniform", "readPercent", 90)),
            new ChartSpec("-reads", "100% reads, Zipf 0.99 keys", "threads", "implementation",
                "opsPerSecond", "operations per second", false,
                Map.of("distribution", "zipf", "readPercent", 100)),
            new ChartSpec("-writes", "100% writes, Zipf 0.99 keys", "threads", "implementation",
                "opsPerSecond", "operations per second", false,
                Map.of("distribution", "zipf", "readPercent", 0))));
  }
}
