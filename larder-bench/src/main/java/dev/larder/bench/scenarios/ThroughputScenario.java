package dev.larder.bench.scenarios;

import dev.larder.Cache;
import dev.larder.CacheBuilder;
import dev.larder.bench.measure.InterleavedLoop;
import dev.larder.bench.measure.MemoryProbe;
import dev.larder.bench.measure.MemorySnapshot;
import dev.larder.bench.measure.Stats;
import dev.larder.bench.measure.TimedLoop;
import dev.larder.bench.measure.ZipfSampler;
import dev.larder.bench.peer.BenchCache;
import dev.larder.bench.peer.CacheSpec;
import dev.larder.bench.peer.LarderPeer;
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
import dev.larder.codec.ValueDictionary;
import dev.larder.model.NodeCodecs;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A CacheBench-style mix (the replicated-cache benchmark's readers asked for it): 90% reads and 10%
 * writes under String keys, Zipf-distributed (exponent 0.99) or uniform, on 1, 2, 4 and 8 threads;
 * also a read-only and a write-only mix. The cache holds half the key space, so eviction runs all
 * along. Values ({@code -P values=}, {@link ThroughputValues}): 1 KiB {@code byte[]} (the default),
 * 1 KiB Strings, or content-node records; for {@code byte[]} values the interleaved method adds
 * {@code Larder-offheap-read}, the same off-heap cache read through {@code read(key, reader)} (the
 * reader takes the first byte) instead of {@code getIfPresent}. With string and record values
 * Larder has its default hot tier (10% of the bound); {@code -P hotTierPercents=0,5,10,25} runs
 * each Larder subject once for each tier size ({@code Larder-heap-tier5} and so on; the default
 * keeps its plain name), its rows giving {@code hotTierPercent}.
 *
 * <p>Memory: the interleaved method also measures what each cache costs once filled and read (its
 * Zipf reads fill Larder's hot tier), as the heap's growth after collections, plus the resident
 * set's for stores off the heap, per entry held ({@code memoryBytesPerEntry}), and over Caffeine's
 * ({@code xCaffeineMemory}); Larder's rows add its own {@code memoryUsed()} per entry ({@code
 * memoryUsedBytesPerEntry}), which does not depend on the machine's load.
 *
 * <p>Two methods ({@code -P method=}):
 *
 * <ul>
 *   <li>{@code interleaved} (the default): every implementation in one JVM, each combination run as
 *       rounds of short slices of each implementation in turn (the order reversed every other
 *       round), counting operations per second of the process's CPU time as well as of wall time
 *       ({@link InterleavedLoop}). Each implementation's row gives the medians over the rounds, and
 *       its ratio to Caffeine's and OHC's operations per CPU second: the median of the ratios of
 *       neighbouring slices. These ratios hold on a machine shared with other work
 *       (docs/design/performance.md, "How to measure on a busy machine").
 *   <li>{@code sequential}: each implementation in its own JVM, one after the other, at least three
 *       timed repetitions after a warm-up, wall-clock only. Its ratios mean something only on an
 *       otherwise idle machine.
 * </ul>
 */
public final class ThroughputScenario implements Scenario {

  private static final int VALUE_BYTES = 1024;

  /** The hot tier's default share of the bound, in percent ({@code CacheBuilder}'s). */
  private static final long DEFAULT_TIER_PERCENT =
      Math.round(100 * CacheBuilder.DEFAULT_HOT_TIER_SHARE);

  private static final Parameter.WholeNumber KEYS =
      new Parameter.WholeNumber("keys", 1, 100_000_000, 100_000, 10_000);
  private static final Parameter.Decimal CAPACITY_FRACTION =
      new Parameter.Decimal("capacityFraction", 0.0001, 1, 0.5, 0.5);
  private static final Parameter.Decimal ZIPF_EXPONENT =
      new Parameter.Decimal("zipfExponent", 0, 10, 0.99, 0.99);
  private static final Parameter.Choices DISTRIBUTIONS =
      new Parameter.Choices(
          "distributions", List.of("zipf", "uniform"), List.of("zipf", "uniform"), List.of("zipf"));
  private static final Parameter.WholeNumbers THREADS =
      new Parameter.WholeNumbers("threads", 1, 1024, List.of(1L, 2L, 4L, 8L), List.of(1L, 2L));

  /** Percentages of reads in the mix: 90/10, read-only and write-only in a full run. */
  private static final Parameter.WholeNumbers READ_PERCENTS =
      new Parameter.WholeNumbers("readPercents", 0, 100, List.of(90L, 100L, 0L), List.of(90L));

  private static final Parameter.Choices METHOD =
      new Parameter.Choices(
          "method",
          List.of("interleaved", "sequential"),
          List.of("interleaved"),
          List.of("interleaved"));
  private static final Parameter.WholeNumber WARMUP_MILLIS =
      new Parameter.WholeNumber("warmupMillis", 0, 600_000, 1_000, 100);

  /** A repetition's length (sequential), or a slice's (interleaved). */
  private static final Parameter.WholeNumber MILLIS =
      new Parameter.WholeNumber("millis", 1, 600_000, 300, 100);

  /** Repetitions (sequential), or rounds of slices (interleaved). */
  private static final Parameter.WholeNumber REPETITIONS =
      new Parameter.WholeNumber("repetitions", 3, 1000, 7, 3);

  private static final Parameter.Choices VALUES =
      new Parameter.Choices(
          "values", List.of("bytes", "string", "record"), List.of("bytes"), List.of("bytes"));

  /**
   * Larder's hot tier as percentages of its bound, one Larder subject for each (string and record
   * values only: byte[] values have no tier); the default share is the builder's.
   */
  private static final Parameter.WholeNumbers HOT_TIER_PERCENTS =
      new Parameter.WholeNumbers(
          "hotTierPercents", 0, 90, List.of(DEFAULT_TIER_PERCENT), List.of(DEFAULT_TIER_PERCENT));

  /** The trial of the interleaved method, which measures every implementation in one JVM. */
  static final String INTERLEAVED = "interleaved";

  /** Larder's off-heap cache read in place, a subject of byte[] runs. */
  static final String READ_IN_PLACE = "Larder-offheap-read";

  private static final String LARDER_OFF_HEAP = "Larder-offheap";

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
    return List.of(
        KEYS,
        CAPACITY_FRACTION,
        ZIPF_EXPONENT,
        DISTRIBUTIONS,
        THREADS,
        READ_PERCENTS,
        METHOD,
        WARMUP_MILLIS,
        MILLIS,
        REPETITIONS,
        VALUES,
        HOT_TIER_PERCENTS);
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    List<String> names = Subjects.planned(options).stream().map(Peer::name).toList();
    if (interleaved(options)) {
      if (METHOD.get(options).size() != 1) {
        throw new IllegalArgumentException(
            "-P method takes one method: interleaved or" + " sequential");
      }
      return names.isEmpty()
          ? List.of()
          : List.of(
              new Trial(
                  INTERLEAVED,
                  String.join(", ", names),
                  Map.of(Trial.IMPLEMENTATIONS, String.join(",", names))));
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
      // every implementation's entries at once (about 100 MiB each at the defaults, 200 MiB
      // for Caffeine's content nodes)
      return options.quick() ? "1g" : "4g";
    }
    return options.quick() ? "256m" : "1g";
  }

  @Override
  public int trialTimeoutSeconds(RunOptions options) {
    // the interleaved trial runs every implementation
    return interleaved(options)
        ? (options.quick() ? 600 : 7200)
        : Scenario.super.trialTimeoutSeconds(options);
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
        new CacheSpec<>(
            String.class,
            byte[].class,
            Codecs.bytes(),
            capacity,
            0,
            capacity,
            Keys.KEY_CHARS,
            VALUE_BYTES);
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

  private List<Row> measure(
      Trial trial,
      TrialContext context,
      BenchCache<String, byte[]> cache,
      int keySpace,
      long capacity)
      throws InterruptedException {
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
      ZipfSampler sampler =
          new ZipfSampler(keySpace, distribution.equals("uniform") ? 0 : exponent);
      for (long readPercent : READ_PERCENTS.get(o)) {
        for (long t : THREADS.get(o)) {
          int threads = (int) t;
          context.progress(
              distribution + ", " + readPercent + "% reads, " + threads + " thread(s)");
          rows.add(
              run(
                  trial,
                  o,
                  cache,
                  keys,
                  sampler,
                  distribution,
                  (int) readPercent,
                  threads,
                  capacity));
        }
      }
    }
    return rows;
  }

  private static Row run(
      Trial trial,
      RunOptions o,
      BenchCache<String, byte[]> cache,
      String[] keys,
      ZipfSampler sampler,
      String distribution,
      int readPercent,
      int threads,
      long capacity)
      throws InterruptedException {
    List<MixWorker<byte[]>> workers = new ArrayList<>();
    double[] samples =
        TimedLoop.run(
            threads,
            i -> {
              MixWorker<byte[]> w =
                  new MixWorker<>(
                      cache,
                      keys,
                      sampler,
                      readPercent,
                      new SplittableRandom(1000L + i),
                      ThroughputValues.BYTES);
              workers.add(w);
              return w;
            },
            WARMUP_MILLIS.get(o),
            MILLIS.get(o),
            REPETITIONS.getInt(o));
    Stats stats = Stats.of(samples);
    long hits = 0;
    long reads = 0;
    for (MixWorker<byte[]> w : workers) {
      hits += w.hits;
      reads += w.reads;
    }
    Row row =
        Row.of(trial.implementation())
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
            .put("capacityEntries", capacity)
            .put("values", ThroughputValues.BYTES.label());
    long held = cache.size();
    if (held >= keys.length) {
      row.put("note", "never evicts: holds all " + held + " keys");
    } else if (held > capacity * 21 / 20) {
      row.put("note", "holds " + held + " entries for a bound of " + capacity);
    }
    return row;
  }

  /**
   * The interleaved method, for each value type of {@code -P values}: creates and fills every
   * implementation of the trial, measuring each one's memory, then for each combination runs rounds
   * of one slice of each (see {@link InterleavedLoop}).
   */
  private List<Row> runInterleaved(Trial trial, TrialContext context) throws Exception {
    List<Row> rows = new ArrayList<>();
    for (String label : VALUES.get(context.options())) {
      rows.addAll(runInterleaved(trial, context, ThroughputValues.of(label)));
    }
    return rows;
  }

  private <V> List<Row> runInterleaved(Trial trial, TrialContext context, ThroughputValues kind)
      throws Exception {
    RunOptions o = context.options();
    int keySpace = KEYS.getInt(o);
    long capacity = Math.max(1, (long) (keySpace * CAPACITY_FRACTION.get(o)));
    String[] keys = new String[keySpace];
    for (int i = 0; i < keySpace; i++) {
      keys[i] = Keys.key(i);
    }
    shuffle(keys, new SplittableRandom(7));
    List<Row> rows = new ArrayList<>();
    List<String> names = new ArrayList<>();
    List<BenchCache<String, V>> caches = new ArrayList<>();
    Map<String, Double> memory = new HashMap<>();
    MemoryProbe probe = new MemoryProbe(o.quick() ? 6 : 20);
    Map<String, Long> tiers = new HashMap<>();
    Map<String, Double> reported = new HashMap<>();
    try {
      for (Subject subject : subjects(trial, kind, HOT_TIER_PERCENTS.get(o))) {
        String name = subject.name();
        Peer peer = Subjects.named(subject.peer());
        context.progress("filling " + name + " with " + kind.label() + " values");
        ValueDictionary dictionary = kind.substitutes() ? NodeCodecs.newDictionary() : null;
        CacheSpec<String, V> spec =
            new CacheSpec<>(
                String.class,
                kind.type(),
                kind.codec(dictionary),
                capacity,
                0,
                capacity,
                Keys.KEY_CHARS,
                kind.averageEncodedBytes(),
                dictionary);
        MemorySnapshot before = probe.settle();
        Cache<String, V> larder = null;
        BenchCache<String, V> cache;
        try {
          if (subject.tierPercent() >= 0) {
            larder = ((LarderPeer) peer).build(spec, subject.tierPercent() / 100.0);
            cache = new LarderBench<>(larder);
            tiers.put(name, subject.tierPercent());
          } else if (name.equals(LARDER_OFF_HEAP)) {
            larder = ((LarderPeer) peer).build(spec);
            cache = new LarderBench<>(larder);
          } else {
            cache = peer.create(spec);
          }
        } catch (PeerUnavailableException e) {
          rows.add(Row.unavailable(peer.name(), e.getMessage()).put("values", kind.label()));
          continue;
        }
        caches.add(cache);
        names.add(name);
        fillAndRead(cache, kind, keys, capacity);
        MemorySnapshot after = probe.settle();
        long bytes = after.heapDelta(before) + (peer.offHeap() ? after.nativeDelta(before) : 0);
        memory.put(name, (double) bytes / Math.max(1, cache.size()));
        if (larder != null) {
          reported.put(name, (double) larder.memoryUsed() / Math.max(1, cache.size()));
        }
        if (larder != null
            && kind == ThroughputValues.BYTES
            && subject.peer().equals(LARDER_OFF_HEAP)) {
          caches.add(readInPlace(larder, cache));
          names.add(READ_IN_PLACE);
          memory.put(READ_IN_PLACE, memory.get(name));
          reported.put(READ_IN_PLACE, reported.get(name));
        }
      }
      double exponent = ZIPF_EXPONENT.get(o);
      for (String distribution : DISTRIBUTIONS.get(o)) {
        ZipfSampler sampler =
            new ZipfSampler(keySpace, distribution.equals("uniform") ? 0 : exponent);
        for (long readPercent : READ_PERCENTS.get(o)) {
          for (long t : THREADS.get(o)) {
            int threads = (int) t;
            context.progress(
                kind.label()
                    + ", "
                    + distribution
                    + ", "
                    + readPercent
                    + "% reads, "
                    + threads
                    + " thread(s), "
                    + names.size()
                    + " implementations interleaved");
            for (Row row :
                interleave(
                    o,
                    names,
                    caches,
                    keys,
                    sampler,
                    distribution,
                    (int) readPercent,
                    threads,
                    capacity,
                    kind)) {
              Long tier = tiers.get(row.implementation());
              if (tier != null) {
                row.put("hotTierPercent", tier);
              }
              Double used = reported.get(row.implementation());
              if (used != null) {
                row.put("memoryUsedBytesPerEntry", used);
              }
              rows.add(withMemory(row, kind, memory));
            }
          }
        }
      }
    } finally {
      for (int i = 0; i < caches.size(); i++) {
        if (!names.get(i).equals(READ_IN_PLACE)) {
          caches.get(i).close();
        }
      }
    }
    return rows;
  }

  /**
   * One cache of the interleaved trial: a peer, and for Larder with string or record values and
   * tier sizes other than the default, a hot tier of {@code tierPercent} of the bound (-1: the peer
   * as it is).
   */
  private record Subject(String name, String peer, long tierPercent) {}

  private static List<Subject> subjects(
      Trial trial, ThroughputValues kind, List<Long> tierPercents) {
    boolean onlyDefault = tierPercents.equals(List.of(DEFAULT_TIER_PERCENT));
    List<Subject> subjects = new ArrayList<>();
    for (String name : trial.implementations()) {
      if (!name.startsWith("Larder") || kind == ThroughputValues.BYTES || onlyDefault) {
        subjects.add(new Subject(name, name, -1));
        continue;
      }
      for (long percent : tierPercents) {
        subjects.add(
            new Subject(
                percent == DEFAULT_TIER_PERCENT ? name : name + "-tier" + percent, name, percent));
      }
    }
    return subjects;
  }

  /**
   * Fills the cache with every key, then reads {@code 4 * capacity} Zipf-chosen keys, so that what
   * it holds is what it holds when read (Larder's hot tier).
   */
  private static <V> void fillAndRead(
      BenchCache<String, V> cache, ThroughputValues kind, String[] keys, long capacity) {
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < keys.length; i++) {
      cache.put(Keys.key(i), kind.fill(random, i));
    }
    ZipfSampler sampler = new ZipfSampler(keys.length, 0.99);
    for (long i = 0; i < 4 * capacity; i++) {
      cache.get(keys[sampler.next(random)]);
    }
  }

  private static Row withMemory(Row row, ThroughputValues kind, Map<String, Double> memory) {
    String name = row.implementation();
    Double mine = memory.get(name);
    Double caffeine = memory.get("Caffeine");
    row.put("values", kind.label());
    if (mine != null) {
      row.put("memoryBytesPerEntry", mine);
      if (caffeine != null && caffeine > 0) {
        row.put("xCaffeineMemory", mine / caffeine);
      }
    }
    return row;
  }

  /**
   * The off-heap cache read through {@code read(key, reader)}: its get hands back a marker for a
   * hit, after a reader that takes the value's first byte (as a caller of an object cache would
   * read its value); writes are the cache's own.
   */
  @SuppressWarnings("unchecked")
  private static <V> BenchCache<String, V> readInPlace(
      Cache<String, V> larder, BenchCache<String, V> plain) {
    V hit = (V) new byte[1];
    return new BenchCache<>() {
      @Override
      public V get(String key) {
        Byte first = larder.read(key, view -> view.get(0));
        return first == null ? null : hit;
      }

      @Override
      public void put(String key, V value) {
        plain.put(key, value);
      }

      @Override
      public long size() {
        return plain.size();
      }

      @Override
      public void close() {
        // the plain subject closes the cache
      }
    };
  }

  /** Larder built here rather than by its peer, so that its read(key, reader) can be reached. */
  private record LarderBench<V>(Cache<String, V> cache) implements BenchCache<String, V> {
    @Override
    public V get(String key) {
      return cache.getIfPresent(key);
    }

    @Override
    public void put(String key, V value) {
      cache.put(key, value);
    }

    @Override
    public long size() {
      return cache.estimatedSize();
    }

    @Override
    public void close() {
      cache.close();
    }
  }

  private static <V> List<Row> interleave(
      RunOptions o,
      List<String> names,
      List<BenchCache<String, V>> caches,
      String[] keys,
      ZipfSampler sampler,
      String distribution,
      int readPercent,
      int threads,
      long capacity,
      ThroughputValues kind)
      throws InterruptedException {
    List<List<TimedLoop.Worker>> subjects = new ArrayList<>();
    List<List<MixWorker<V>>> mixes = new ArrayList<>();
    for (BenchCache<String, V> cache : caches) {
      List<TimedLoop.Worker> workers = new ArrayList<>();
      List<MixWorker<V>> mix = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        MixWorker<V> w =
            new MixWorker<>(
                cache, keys, sampler, readPercent, new SplittableRandom(1000L + i), kind);
        workers.add(w);
        mix.add(w);
      }
      subjects.add(workers);
      mixes.add(mix);
    }
    List<List<InterleavedLoop.Slice>> slices =
        InterleavedLoop.run(subjects, WARMUP_MILLIS.get(o), MILLIS.get(o), REPETITIONS.getInt(o));
    List<Row> rows = new ArrayList<>();
    for (int s = 0; s < names.size(); s++) {
      List<InterleavedLoop.Slice> mine = slices.get(s);
      Stats cpu =
          Stats.of(mine.stream().mapToDouble(InterleavedLoop.Slice::opsPerCpuSecond).toArray());
      Stats wall =
          Stats.of(mine.stream().mapToDouble(InterleavedLoop.Slice::opsPerSecond).toArray());
      long hits = 0;
      long reads = 0;
      for (MixWorker<V> w : mixes.get(s)) {
        hits += w.hits;
        reads += w.reads;
      }
      Row row =
          Row.of(names.get(s))
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
   * Puts the median, over the rounds, of the ratio of this subject's operations per CPU second to
   * {@code peer}'s in the same round, if {@code peer} ran.
   */
  private static void ratio(
      Row row,
      String field,
      List<InterleavedLoop.Slice> mine,
      List<String> names,
      List<List<InterleavedLoop.Slice>> slices,
      String peer) {
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
  private static final class MixWorker<V> implements TimedLoop.Worker {
    private final BenchCache<String, V> cache;
    private final String[] keys;
    private final ZipfSampler sampler;
    private final int readPercent;
    private final SplittableRandom random;
    private final ThroughputValues kind;
    long hits;
    long reads;

    MixWorker(
        BenchCache<String, V> cache,
        String[] keys,
        ZipfSampler sampler,
        int readPercent,
        SplittableRandom random,
        ThroughputValues kind) {
      this.cache = cache;
      this.keys = keys;
      this.sampler = sampler;
      this.readPercent = readPercent;
      this.random = random;
      this.kind = kind;
    }

    @Override
    public void step() {
      String key = keys[sampler.next(random)];
      if (random.nextInt(100) >= readPercent) {
        cache.put(key, kind.next(random));
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
            new Column("hitRatio", "hit ratio"),
            Column.of("values"),
            new Column("hotTierPercent", "hot tier %"),
            new Column("memoryBytesPerEntry", "bytes/entry"),
            new Column("memoryUsedBytesPerEntry", "memoryUsed()/entry"),
            new Column("xCaffeineMemory", "x Caffeine memory")),
        List.of(
            new ChartSpec(
                "",
                "90% reads / 10% writes, Zipf 0.99 keys (median of repetitions)",
                "threads",
                "implementation",
                "opsPerSecond",
                "operations per second",
                false,
                Map.of("distribution", "zipf", "readPercent", 90, "values", "bytes")),
            new ChartSpec(
                "-uniform",
                "90% reads / 10% writes, uniform keys",
                "threads",
                "implementation",
                "opsPerSecond",
                "operations per second",
                false,
                Map.of("distribution", "uniform", "readPercent", 90, "values", "bytes")),
            new ChartSpec(
                "-reads",
                "100% reads, Zipf 0.99 keys",
                "threads",
                "implementation",
                "opsPerSecond",
                "operations per second",
                false,
                Map.of("distribution", "zipf", "readPercent", 100, "values", "bytes")),
            new ChartSpec(
                "-writes",
                "100% writes, Zipf 0.99 keys",
                "threads",
                "implementation",
                "opsPerSecond",
                "operations per second",
                false,
                Map.of("distribution", "zipf", "readPercent", 0, "values", "bytes"))));
  }
}
