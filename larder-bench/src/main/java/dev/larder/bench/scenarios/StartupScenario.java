package dev.larder.bench.scenarios;

import dev.larder.bench.measure.MemoryProbe;
import dev.larder.bench.measure.MemorySnapshot;
import dev.larder.bench.peer.BenchCache;
import dev.larder.bench.peer.CacheFamily;
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
 * The 2000-caches startup test: create 2000 caches (in one manager where the library has one) and
 * measure the time and the memory they hold. Each cache is bounded to 1,000 entries (and 1 MiB
 * for stores bounded by bytes); Chronicle Map, which cannot evict, is sized for 1,000 entries.
 * A full run measures each library empty and again with 100 entries of 100 B in every cache
 * (what a small cache costs; {@code -P entries=0,100}, a quick run only empty), their
 * keys the scenario's 10-character strings and each value a fresh array.
 */
public final class StartupScenario implements Scenario {

  private static final long ENTRIES_BOUND = 1_000;
  private static final long BYTES = 1L << 20;

  private static final Parameter.WholeNumber CACHES =
      new Parameter.WholeNumber("caches", 1, 1_000_000, 2_000, 100);
  private static final Parameter.WholeNumbers ENTRIES = new Parameter.WholeNumbers("entries", 0,
      ENTRIES_BOUND, List.of(0L, 100L), List.of(0L));
  private static final int VALUE_BYTES = 100;

  @Override
  public String name() {
    return "startup";
  }

  @Override
  public String summary() {
    return "2000-caches startup test: time and memory to create 2000 caches";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(CACHES, ENTRIES);
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    List<Trial> trials = new ArrayList<>();
    for (long entries : ENTRIES.get(options)) {
      for (Peer peer : Subjects.planned(options)) {
        trials.add(new Trial(peer.name(), entries + " entries a cache",
            Map.of("entries", Long.toString(entries))));
      }
    }
    return trials;
  }

  @Override
  public String heapSize(RunOptions options) {
    return options.quick() ? "256m" : "1g";
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws Exception {
    int caches = CACHES.getInt(context.options());
    long entries = trial.longParam("entries");
    Peer peer = Subjects.named(trial.implementation());
    boolean chronicle = peer.name().equals("ChronicleMap");
    CacheSpec<String, byte[]> spec = new CacheSpec<>(String.class, byte[].class, Codecs.bytes(),
        chronicle ? 0 : ENTRIES_BOUND, chronicle ? 0 : BYTES, ENTRIES_BOUND, Keys.KEY_CHARS,
        VALUE_BYTES);
    try {
      warmUp(peer, spec, context.options().quick() ? 2 : 20);
    } catch (PeerUnavailableException e) {
      return List.of(Row.unavailable(peer.name(), e.getMessage()));
    }
    MemoryProbe probe = new MemoryProbe(context.options().quick() ? 10 : 20);
    MemorySnapshot before = probe.settle();
    List<BenchCache<String, byte[]>> list = new ArrayList<>(caches);
    SplittableRandom random = new SplittableRandom(2);
    long t0 = System.nanoTime();
    try (CacheFamily<String, byte[]> family = peer.family(spec)) {
      for (int i = 0; i < caches; i++) {
        BenchCache<String, byte[]> cache = family.newCache("cache-" + i);
        fill(cache, entries, random);
        list.add(cache);
        if (i % 500 == 499 && i + 1 < caches) {
          context.progress((i + 1) + " caches");
        }
      }
      long nanos = System.nanoTime() - t0;
      MemorySnapshot after = probe.settle();
      return List.of(Row.of(peer.name())
          .put("caches", caches)
          .put("entries", entries)
          .put("millis", nanos / 1e6)
          .put("heapBytes", after.heapDelta(before))
          .put("nativeBytes", after.nativeDelta(before))
          .put("bytesPerCache", (double) (after.heapDelta(before) + after.nativeDelta(before))
              / caches)
          .put("heapStable", before.stable() && after.stable()));
    }
  }

  private static void fill(BenchCache<String, byte[]> cache, long entries,
      SplittableRandom random) {
    for (long i = 0; i < entries; i++) {
      cache.put(Keys.key(i), Keys.value(random, VALUE_BYTES));
    }
  }

  private static void warmUp(Peer peer, CacheSpec<String, byte[]> spec, int caches)
      throws Exception {
    try (CacheFamily<String, byte[]> family = peer.family(spec)) {
      for (int i = 0; i < caches; i++) {
        BenchCache<String, byte[]> c = family.newCache("warm-" + i);
        c.put("k", new byte[1]);
        c.get("k");
      }
    }
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            Column.of("implementation"),
            Column.of("caches"),
            Column.of("entries"),
            Column.of("millis"),
            new Column("heapBytes", "heap bytes"),
            new Column("nativeBytes", "native bytes"),
            new Column("bytesPerCache", "bytes/cache")),
        List.of(new ChartSpec("", "Time to create the caches", "implementation", "caches",
            "millis", "milliseconds", false, Map.of())));
  }
}
