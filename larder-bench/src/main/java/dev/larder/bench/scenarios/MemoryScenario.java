package dev.larder.bench.scenarios;

import dev.larder.bench.measure.GcCounters;
import dev.larder.bench.measure.MemoryProbe;
import dev.larder.bench.measure.MemorySnapshot;
import dev.larder.bench.measure.Stats;
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
import dev.larder.codec.ByteSink;
import dev.larder.codec.Codec;
import dev.larder.codec.ValueDictionary;
import dev.larder.model.Node;
import dev.larder.model.NodeCodecs;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The content-node memory test: N content nodes (10,000, 100,000 and 1,000,000 by default: a small
 * cache's fixed costs show at the first two) loaded from a simulated database into each cache,
 * under Long keys. Measures heap, native and total bytes per node (as the per-entry overhead study
 * measures: GC until stable, before and after), first-load throughput, second-pass read throughput
 * with T threads (the memory test's "second load"), and the collections during both.
 *
 * <p>Variants: on-heap caches hold the node objects ({@code objects}); off-heap peers hold the
 * nodes' compact bytes ({@code plain}: Larder's node codec without substitution); Larder runs with
 * that codec ({@code plain}) and with value substitution ({@code substitution}).
 *
 * <p>Larder's hot tier ({@code -P hotTierPercents=0,10,100}): a tier sized to hold that share of
 * the nodes as decoded objects (its bytes per node measured first on 2,000 nodes, through {@code
 * memoryUsed()}). The second pass (a uniform pass over every node, repeated) fills it in its first
 * repetition; the row also gives the memory per node after the second pass ({@code
 * totalBytesPerEntryAfterReads}), which then includes the tier. Without a tier (0, the default)
 * Larder's unbounded caches have none.
 */
public final class MemoryScenario implements Scenario {

  private static final String SUBSTITUTION = "substitution";
  private static final String PLAIN = "plain";
  private static final String OBJECTS = "objects";

  private static final Parameter.WholeNumbers NODES =
      new Parameter.WholeNumbers(
          "nodes", 1, 100_000_000, List.of(10_000L, 100_000L, 1_000_000L), List.of(10_000L));
  private static final Parameter.WholeNumber THREADS =
      new Parameter.WholeNumber("threads", 1, 1024, 2, 2);
  private static final Parameter.WholeNumber LOAD_LATENCY_MICROS =
      new Parameter.WholeNumber("loadLatencyMicros", 0, 1_000_000, 0, 0);
  private static final Parameter.WholeNumber REPETITIONS =
      new Parameter.WholeNumber("repetitions", 3, 1000, 3, 3);
  private static final Parameter.WholeNumber QUIET_MILLIS =
      new Parameter.WholeNumber("quietMillis", 0, 600_000, 5_000, 200);
  private static final Parameter.WholeNumbers HOT_TIER_PERCENTS =
      new Parameter.WholeNumbers("hotTierPercents", 0, 100, List.of(0L), List.of(0L));

  @Override
  public String name() {
    return "memory";
  }

  @Override
  public String summary() {
    return "content-node memory test: bytes per content node, first-load and second-pass throughput, GC";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(
        NODES, THREADS, LOAD_LATENCY_MICROS, REPETITIONS, QUIET_MILLIS, HOT_TIER_PERCENTS);
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    List<Trial> trials = new ArrayList<>();
    for (long nodes : NODES.get(options)) {
      for (Peer peer : Subjects.planned(options)) {
        List<String> variants =
            !peer.name().startsWith("Larder")
                ? List.of(peer.offHeap() ? PLAIN : OBJECTS)
                : List.of(SUBSTITUTION, PLAIN);
        List<Long> tiers =
            peer.name().startsWith("Larder") ? HOT_TIER_PERCENTS.get(options) : List.of(0L);
        for (String variant : variants) {
          for (long tier : tiers) {
            trials.add(
                new Trial(
                    peer.name(),
                    variant
                        + ", "
                        + String.format("%,d", nodes)
                        + " nodes"
                        + (tier > 0 ? ", hot tier " + tier + "%" : ""),
                    Map.of(
                        "variant",
                        variant,
                        "nodes",
                        Long.toString(nodes),
                        "hotTierPercent",
                        Long.toString(tier))));
          }
        }
      }
    }
    return trials;
  }

  /** Returns the most nodes a trial of this run loads. */
  private static long nodes(RunOptions options) {
    return NODES.get(options).stream().mapToLong(Long::longValue).max().orElse(1);
  }

  @Override
  public String heapSize(RunOptions options) {
    // Object caches need about 4 KB per node (MEASURING.md); G1 needs room to work beyond that.
    long mib = ((nodes(options) * 6_000) >> 20) + 512;
    return mib + "m";
  }

  /**
   * Native memory tracking, and G1 string deduplication for every trial, as the content-node memory
   * test ran: the object caches hold millions of equal strings (each node's names and texts are
   * fresh instances), and deduplication is the JVM's own remedy, so leaving it off would overstate
   * their cost. It has next to nothing to do for caches that hold bytes.
   */
  @Override
  public List<String> jvmFlags(RunOptions options) {
    return List.of("-XX:NativeMemoryTracking=summary", "-XX:+UseStringDeduplication");
  }

  @Override
  public int trialTimeoutSeconds(RunOptions options) {
    return options.quick() ? 90 : 1_800;
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws Exception {
    RunOptions o = context.options();
    long nodes = trial.longParam("nodes");
    String variant = trial.param("variant");
    int threads = THREADS.getInt(o);
    NodeDatabase db = new NodeDatabase(LOAD_LATENCY_MICROS.get(o) * 1_000);
    Peer peer = Subjects.named(trial.implementation());
    try {
      warmUp(peer, variant, db, Math.min(nodes / 2, 20_000), threads);
    } catch (PeerUnavailableException e) {
      return List.of(Row.unavailable(peer.name(), e.getMessage()).put("variant", variant));
    }
    MemoryProbe probe = new MemoryProbe(o.quick() ? 6 : 40);
    MemoryProbe.quietPeriod(QUIET_MILLIS.get(o));
    long tierPercent =
        trial.params().containsKey("hotTierPercent") ? trial.longParam("hotTierPercent") : 0;
    long tierBytes =
        tierPercent == 0
            ? 0
            : (long)
                Math.ceil(
                    tierPercent / 100.0 * nodes * hotBytesPerNode((LarderPeer) peer, variant));
    MemorySnapshot before = probe.settle();
    ValueDictionary dictionary = NodeCodecs.newDictionary();
    try (BenchCache<Long, Node> cache = create(peer, spec(variant, dictionary, nodes), tierBytes)) {
      GcCounters g0 = GcCounters.now();
      long t0 = System.nanoTime();
      Parallel.forEachId(
          nodes,
          threads,
          id -> load(cache, db, id),
          done -> context.progress("loading", done, nodes, ""));
      double loadSeconds = (System.nanoTime() - t0) / 1e9;
      GcCounters loadGc = GcCounters.now().since(g0);
      MemorySnapshot after = probe.settle();
      context.progress("second pass");
      GcCounters g1 = GcCounters.now();
      Stats reads = secondPass(cache, nodes, threads, REPETITIONS.getInt(o));
      GcCounters readGc = GcCounters.now().since(g1);
      MemorySnapshot afterReads = probe.settle();
      Verification.check(cache, db, nodes);
      Row row =
          row(trial, variant, cache, before, after, loadSeconds, reads, threads, loadGc, readGc);
      row.put(
          "totalBytesPerEntryAfterReads",
          (double) (afterReads.heapDelta(before) + afterReads.nativeDelta(before)) / cache.size());
      if (peer.name().startsWith("Larder")) {
        row.put("hotTierPercent", tierPercent).put("hotTierBytes", tierBytes);
      }
      return List.of(row);
    }
  }

  private static CacheSpec<Long, Node> spec(
      String variant, ValueDictionary dictionary, long nodes) {
    Codec<Node> plain = NodeCodecs.node();
    Codec<Node> codec = variant.equals(SUBSTITUTION) ? NodeCodecs.node(dictionary) : plain;
    return new CacheSpec<>(
        Long.class,
        Node.class,
        codec,
        0,
        0,
        nodes,
        8,
        averageEncodedSize(plain),
        variant.equals(SUBSTITUTION) ? dictionary : null);
  }

  /** A cache for the trial: Larder's with a hot tier of {@code tierBytes} if positive. */
  private static BenchCache<Long, Node> create(
      Peer peer, CacheSpec<Long, Node> spec, long tierBytes) throws Exception {
    return tierBytes > 0 ? ((LarderPeer) peer).create(spec, tierBytes) : peer.create(spec);
  }

  /**
   * What one node costs in Larder's hot tier, as {@code memoryUsed()} counts it: 2,000 nodes
   * loaded, then read until hot, over the growth of {@code memoryUsed()}.
   */
  private static double hotBytesPerNode(LarderPeer peer, String variant) throws Exception {
    int sample = 2_000;
    NodeDatabase db = new NodeDatabase(0);
    try (BenchCache<Long, Node> cache =
        peer.create(spec(variant, NodeCodecs.newDictionary(), sample), 1L << 30)) {
      for (long id = 0; id < sample; id++) {
        cache.put(id, db.load(id));
      }
      long before = cache.reportedBytes().orElseThrow();
      for (int round = 0; round < 4; round++) {
        for (long id = 0; id < sample; id++) {
          cache.get(id);
        }
      }
      return (double) (cache.reportedBytes().orElseThrow() - before) / sample;
    }
  }

  private static int averageEncodedSize(Codec<Node> codec) {
    NodeDatabase db = new NodeDatabase(0);
    ByteSink sink = new ByteSink(1024);
    long total = 0;
    for (long id = 0; id < 200; id++) {
      sink.reset();
      codec.encodeLast(db.load(id), sink);
      total += sink.size();
    }
    return (int) (total / 200);
  }

  private static void warmUp(Peer peer, String variant, NodeDatabase db, long nodes, int threads)
      throws Exception {
    try (BenchCache<Long, Node> cache =
        peer.create(spec(variant, NodeCodecs.newDictionary(), nodes))) {
      Parallel.forEachId(nodes, threads, id -> load(cache, db, id), done -> {});
      Parallel.forEachId(nodes, threads, cache::get, done -> {});
    }
  }

  private static void load(BenchCache<Long, Node> cache, NodeDatabase db, long id) {
    if (cache.get(id) == null) {
      cache.put(id, db.load(id));
    }
  }

  private static Stats secondPass(
      BenchCache<Long, Node> cache, long nodes, int threads, int repetitions)
      throws InterruptedException {
    double[] samples = new double[repetitions];
    AtomicLong misses = new AtomicLong();
    for (int r = 0; r < repetitions; r++) {
      long t0 = System.nanoTime();
      Parallel.forEachId(
          nodes,
          threads,
          id -> {
            if (cache.get(id) == null) {
              misses.incrementAndGet();
            }
          },
          done -> {});
      samples[r] = nodes / ((System.nanoTime() - t0) / 1e9);
    }
    if (misses.get() > 0) {
      throw new IllegalStateException(
          misses.get() + " misses in the second pass: the cache " + "evicted or lost nodes");
    }
    return Stats.of(samples);
  }

  private static Row row(
      Trial trial,
      String variant,
      BenchCache<Long, Node> cache,
      MemorySnapshot before,
      MemorySnapshot after,
      double loadSeconds,
      Stats reads,
      int threads,
      GcCounters loadGc,
      GcCounters readGc) {
    long size = cache.size();
    long heap = after.heapDelta(before);
    long off = after.nativeDelta(before);
    double total = (double) (heap + off) / size;
    Row row =
        Row.of(trial.implementation())
            .put("variant", variant)
            .put("nodes", size)
            .put("heapBytesPerEntry", (double) heap / size)
            .put("nativeBytesPerEntry", (double) off / size)
            .put("totalBytesPerEntry", total);
    long nmt = after.nmtDelta(before);
    if (nmt >= 0) {
      row.put("nmtBytesPerEntry", (double) nmt / size);
    }
    cache
        .reportedBytes()
        .ifPresent(
            own -> {
              row.put("reportedBytesPerEntry", (double) own / size);
              row.put("accountingErrorPercent", 100.0 * (own - (heap + off)) / (heap + off));
            });
    return row.put("loadOpsPerSecond", trial.longParam("nodes") / loadSeconds)
        .put("readOpsPerSecond", reads.median())
        .put("readOpsPerSecondMin", reads.min())
        .put("readOpsPerSecondMax", reads.max())
        .put("readThreads", threads)
        .put("gcCount", loadGc.count() + readGc.count())
        .put("gcMillis", loadGc.millis() + readGc.millis())
        .put("heapStable", before.stable() && after.stable());
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            Column.of("implementation"),
            Column.of("variant"),
            Column.of("nodes"),
            new Column("heapBytesPerEntry", "heap B/node"),
            new Column("nativeBytesPerEntry", "native B/node"),
            new Column("totalBytesPerEntry", "total B/node"),
            new Column("reportedBytesPerEntry", "own figure B/node"),
            new Column("loadOpsPerSecond", "first load/s"),
            new Column("readOpsPerSecond", "second pass reads/s"),
            new Column("hotTierPercent", "hot tier %"),
            new Column("totalBytesPerEntryAfterReads", "total B/node after reads"),
            new Column("gcMillis", "GC ms")),
        List.of(
            new ChartSpec(
                "",
                "Memory per content node (heap + native)",
                "implementation",
                "variant",
                "totalBytesPerEntry",
                "bytes per node",
                false,
                Map.of()),
            new ChartSpec(
                "-reads",
                "Second-pass reads per second",
                "implementation",
                "variant",
                "readOpsPerSecond",
                "reads per second",
                false,
                Map.of())));
  }
}
