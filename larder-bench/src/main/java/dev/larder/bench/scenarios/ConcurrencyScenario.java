package dev.larder.bench.scenarios;

import dev.larder.bench.measure.Stats;
import dev.larder.bench.measure.TimedLoop;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.HdrHistogram.Histogram;

/**
 * The 100x100 tree read-through test: a 100x100 tree (100 folders of 100 nodes each) behind a store
 * with simulated I/O latency (1 ms by default); 20 reader threads each read a random node and its
 * folder, in the read-write variant while one writer rewrites random nodes through the store. The
 * cache holds half the tree, so misses keep happening. Reports read latency percentiles (p10 is the
 * all-hit case; the median and above show the cost of misses, including other threads' misses) and
 * the readers' total throughput, and the hit ratio (1 - store loads / cache reads; in the
 * read-write variant the writer's puts also keep entries warm). Rows count one read as the pair of
 * lookups.
 */
public final class ConcurrencyScenario implements Scenario {

  private static final int FANOUT = 100;

  private static final Parameter.WholeNumber LATENCY_MICROS =
      new Parameter.WholeNumber("latencyMicros", 0, 1_000_000, 1_000, 1_000);
  private static final Parameter.WholeNumber CAPACITY =
      new Parameter.WholeNumber(
          "capacity", 1, 100_000_000, FANOUT * FANOUT / 2, FANOUT * FANOUT / 2);
  private static final Parameter.Choices VARIANTS =
      new Parameter.Choices(
          "variants",
          List.of("read-only", "read-write"),
          List.of("read-only", "read-write"),
          List.of("read-only", "read-write"));
  private static final Parameter.WholeNumber READERS =
      new Parameter.WholeNumber("readers", 1, 1024, 20, 20);
  private static final Parameter.WholeNumber WARMUP_MILLIS =
      new Parameter.WholeNumber("warmupMillis", 0, 600_000, 1_000, 100);
  private static final Parameter.WholeNumber MILLIS =
      new Parameter.WholeNumber("millis", 1, 600_000, 2_000, 100);
  private static final Parameter.WholeNumber REPETITIONS =
      new Parameter.WholeNumber("repetitions", 3, 1000, 3, 3);

  @Override
  public String name() {
    return "concurrency";
  }

  @Override
  public String summary() {
    return "100x100 tree read-through test: 20 readers (+1 writer) over a 100x100 tree behind 1 ms I/O; latency"
        + " percentiles";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(LATENCY_MICROS, CAPACITY, VARIANTS, READERS, WARMUP_MILLIS, MILLIS, REPETITIONS);
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    List<Trial> trials = new ArrayList<>();
    for (Peer peer : Subjects.planned(options)) {
      trials.add(Trial.of(peer.name()));
      if (peer.name().equals("Caffeine") && options.includes(ReadThroughs.SYNCHRONIZED_LRU)) {
        trials.add(Trial.of(ReadThroughs.SYNCHRONIZED_LRU));
      }
    }
    return trials;
  }

  @Override
  public String heapSize(RunOptions options) {
    return options.quick() ? "256m" : "512m";
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws Exception {
    RunOptions o = context.options();
    long latencyMicros = LATENCY_MICROS.get(o);
    long capacity = CAPACITY.get(o);
    SlowStore store = new SlowStore(latencyMicros * 1_000);
    String impl = trial.implementation();
    Peer peer = impl.equals(ReadThroughs.SYNCHRONIZED_LRU) ? null : Subjects.named(impl);
    ReadThroughs.Source source;
    try {
      source = ReadThroughs.source(impl, peer, store, capacity, FANOUT * (FANOUT + 1));
    } catch (PeerUnavailableException e) {
      return List.of(Row.unavailable(impl, e.getMessage()));
    }
    List<Row> rows = new ArrayList<>();
    try (source) {
      for (String variant : VARIANTS.get(o)) {
        context.progress(variant);
        try (ReadThrough cache = source.create()) {
          rows.add(measure(impl, variant, cache, store, o, latencyMicros, capacity));
        }
      }
    }
    return rows;
  }

  private static Row measure(
      String impl,
      String variant,
      ReadThrough cache,
      SlowStore store,
      RunOptions o,
      long latencyMicros,
      long capacity)
      throws InterruptedException {
    int readers = READERS.getInt(o);
    List<Reader> list = new ArrayList<>();
    AtomicBoolean writing = new AtomicBoolean(variant.equals("read-write"));
    Thread writer =
        writing.get()
            ? Thread.ofPlatform().name("writer").start(() -> writeLoop(cache, writing))
            : null;
    long warmup = WARMUP_MILLIS.get(o);
    double[] samples;
    long loadsBefore;
    try {
      // Warm-up fills the cache; the histograms restart for the timed repetitions.
      TimedLoop.run(readers, i -> new Reader(cache, 99L + i), warmup, 1, 1);
      loadsBefore = store.loads();
      samples =
          TimedLoop.run(
              readers,
              i -> {
                Reader r = new Reader(cache, 1L + i);
                list.add(r);
                return r;
              },
              0,
              MILLIS.get(o),
              REPETITIONS.getInt(o));
    } finally {
      writing.set(false);
      if (writer != null) {
        writer.join();
      }
    }
    Histogram all = new Histogram(3);
    for (Reader r : list) {
      all.add(r.latency);
    }
    Stats stats = Stats.of(samples);
    long reads = 2 * all.getTotalCount();
    long misses = store.loads() - loadsBefore;
    return Row.of(impl)
        .put("variant", variant)
        .put("readers", readers)
        .put("p10Micros", all.getValueAtPercentile(10) / 1e3)
        .put("p50Micros", all.getValueAtPercentile(50) / 1e3)
        .put("p90Micros", all.getValueAtPercentile(90) / 1e3)
        .put("p99Micros", all.getValueAtPercentile(99) / 1e3)
        .put("readsPerSecond", stats.median())
        .put("hitRatio", reads == 0 ? 0.0 : Math.max(0, 1 - (double) misses / reads))
        .put("readsPerSecondMin", stats.min())
        .put("readsPerSecondMax", stats.max())
        .put("repetitions", stats.count())
        .put("latencyMicrosPerIo", latencyMicros)
        .put("capacityEntries", capacity);
  }

  private static void writeLoop(ReadThrough cache, AtomicBoolean writing) {
    SplittableRandom random = new SplittableRandom(5);
    while (writing.get()) {
      byte[] value = new byte[SlowStore.VALUE_BYTES];
      random.nextBytes(value);
      cache.write(leaf(random), value);
    }
  }

  private static String leaf(SplittableRandom random) {
    return "/" + random.nextInt(FANOUT) + "/" + random.nextInt(FANOUT);
  }

  /** Reads a random node and its folder, recording the pair's latency. */
  private static final class Reader implements TimedLoop.Worker {
    private final ReadThrough cache;
    private final SplittableRandom random;
    final Histogram latency = new Histogram(3);

    Reader(ReadThrough cache, long seed) {
      this.cache = cache;
      this.random = new SplittableRandom(seed);
    }

    @Override
    public void step() {
      int folder = random.nextInt(FANOUT);
      String path = "/" + folder + "/" + random.nextInt(FANOUT);
      long t0 = System.nanoTime();
      cache.read("/" + folder);
      cache.read(path);
      latency.recordValue(System.nanoTime() - t0);
    }
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            Column.of("implementation"),
            Column.of("variant"),
            new Column("p10Micros", "p10 µs"),
            new Column("p50Micros", "p50 µs"),
            new Column("p90Micros", "p90 µs"),
            new Column("p99Micros", "p99 µs"),
            new Column("readsPerSecond", "reads/s (median)"),
            new Column("hitRatio", "hit ratio")),
        List.of(
            new ChartSpec(
                "",
                "20 readers + 1 writer, 1 ms I/O: reader throughput",
                "implementation",
                "variant",
                "readsPerSecond",
                "reads per second (all readers)",
                false,
                Map.of()),
            new ChartSpec(
                "-latency",
                "Read latency p90 (read-write variant)",
                "implementation",
                "variant",
                "p90Micros",
                "microseconds",
                false,
                Map.of("variant", "read-write"))));
  }
}
