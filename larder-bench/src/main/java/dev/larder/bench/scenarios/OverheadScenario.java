package dev.larder.bench.scenarios;

import dev.larder.bench.measure.MemoryProbe;
import dev.larder.bench.measure.MemorySnapshot;
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
 * The per-entry overhead study: 10-character String keys and byte[] values of 512 B, 1 KiB, 10 KiB
 * and 1 MiB, about 100 MB of payload per run; the memory the process gains, per entry, and the
 * overhead beyond key and value bytes.
 *
 * <p>Method: warm the implementation up on a throwaway cache, wait for the JIT to release its
 * memory, let the heap settle (GC until stable) and take the baseline; load; settle again and take
 * the difference. Heap from the heap in use, native from the resident set (the heap is
 * pre-touched), cross-checked with native memory tracking and the library's own figure.
 */
public final class OverheadScenario implements Scenario {

  private static final Parameter.WholeNumbers SIZES =
      new Parameter.WholeNumbers(
          "sizes", 1, 1L << 28, List.of(512L, 1024L, 10_240L, 1_048_576L), List.of(512L));
  private static final Parameter.WholeNumber PAYLOAD_BYTES =
      new Parameter.WholeNumber("payloadBytes", 1, 1L << 40, 100L << 20, 16L << 20);
  private static final Parameter.WholeNumber QUIET_MILLIS =
      new Parameter.WholeNumber("quietMillis", 0, 600_000, 5_000, 200);

  @Override
  public String name() {
    return "overhead";
  }

  @Override
  public String summary() {
    return "per-entry overhead study: bytes per entry and overhead for String keys and byte[] values";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(SIZES, PAYLOAD_BYTES, QUIET_MILLIS);
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    long payload = PAYLOAD_BYTES.get(options);
    List<Trial> trials = new ArrayList<>();
    for (Peer peer : Subjects.plannedWithEveryMode(options)) {
      for (long size : SIZES.get(options)) {
        long entries = Math.max(1, payload / size);
        trials.add(
            new Trial(
                peer.name(),
                size + " B",
                Map.of("valueBytes", Long.toString(size), "entries", Long.toString(entries))));
      }
    }
    return trials;
  }

  @Override
  public String heapSize(RunOptions options) {
    return options.quick() ? "512m" : "1g";
  }

  @Override
  public List<String> jvmFlags(RunOptions options) {
    // 4 MiB regions keep 1 MiB arrays ordinary objects: in smaller regions G1 stores them as
    // humongous objects, each taking whole regions.
    return List.of("-XX:NativeMemoryTracking=summary", "-XX:G1HeapRegionSize=4m");
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws Exception {
    int valueBytes = (int) trial.longParam("valueBytes");
    long entries = trial.longParam("entries");
    Peer peer = Subjects.named(trial.implementation());
    RunOptions options = context.options();
    CacheSpec<String, byte[]> spec =
        new CacheSpec<>(
            String.class, byte[].class, Codecs.bytes(), 0, 0, entries, Keys.KEY_CHARS, valueBytes);
    try {
      warmUp(peer, valueBytes, options.quick() ? 2_000 : 20_000);
    } catch (PeerUnavailableException e) {
      return List.of(Row.unavailable(peer.name(), e.getMessage()));
    }
    MemoryProbe probe = new MemoryProbe(options.quick() ? 10 : 30);
    MemoryProbe.quietPeriod(QUIET_MILLIS.get(options));
    MemorySnapshot before = probe.settle();
    try (BenchCache<String, byte[]> cache = peer.create(spec)) {
      load(cache, entries, valueBytes, context);
      MemorySnapshot after = probe.settle();
      return List.of(row(trial, cache, before, after, valueBytes));
    }
  }

  private static void warmUp(Peer peer, int valueBytes, int entries) throws Exception {
    // Enough to get the put path compiled, capped at about 20 MB so the warm-up's garbage stays
    // small beside the measured load.
    int n = (int) Math.max(20, Math.min(entries, (20L << 20) / valueBytes));
    CacheSpec<String, byte[]> spec =
        new CacheSpec<>(
            String.class, byte[].class, Codecs.bytes(), 0, 0, n, Keys.KEY_CHARS, valueBytes);
    try (BenchCache<String, byte[]> cache = peer.create(spec)) {
      load(cache, n, valueBytes, null);
      for (int i = 0; i < n; i++) {
        cache.get(Keys.key(i));
      }
    }
  }

  private static void load(
      BenchCache<String, byte[]> cache, long entries, int valueBytes, TrialContext context) {
    SplittableRandom random = new SplittableRandom(42);
    long lastReport = System.nanoTime();
    for (long i = 0; i < entries; i++) {
      cache.put(Keys.key(i), Keys.value(random, valueBytes));
      if (context != null && System.nanoTime() - lastReport > 2_000_000_000L) {
        context.progress("loading", i + 1, entries, "");
        lastReport = System.nanoTime();
      }
    }
  }

  private static Row row(
      Trial trial,
      BenchCache<String, byte[]> cache,
      MemorySnapshot before,
      MemorySnapshot after,
      int valueBytes) {
    long size = cache.size();
    long heap = after.heapDelta(before);
    long off = after.nativeDelta(before);
    double total = (double) (heap + off) / size;
    Row row =
        Row.of(trial.implementation())
            .put("valueBytes", valueBytes)
            .put("entries", size)
            .put("payloadBytes", size * (Keys.KEY_CHARS + (long) valueBytes))
            .put("heapBytes", heap)
            .put("nativeBytes", off)
            .put("totalBytesPerEntry", total)
            .put("overheadBytesPerEntry", total - Keys.KEY_CHARS - valueBytes);
    long nmt = after.nmtDelta(before);
    if (nmt >= 0) {
      row.put("nmtBytesPerEntry", (double) nmt / size);
    }
    cache.reportedBytes().ifPresent(b -> row.put("reportedBytesPerEntry", (double) b / size));
    row.put("heapStable", before.stable() && after.stable());
    if (size != trial.longParam("entries")) {
      row.put("note", "holds " + size + " of " + trial.longParam("entries") + " entries");
    }
    return row;
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            Column.of("implementation"),
            new Column("valueBytes", "value B"),
            Column.of("entries"),
            new Column("totalBytesPerEntry", "total B/entry"),
            new Column("overheadBytesPerEntry", "overhead B/entry"),
            new Column("nmtBytesPerEntry", "NMT B/entry"),
            new Column("reportedBytesPerEntry", "own figure B/entry"),
            new Column("heapStable", "heap stable")),
        List.of(
            new ChartSpec(
                "",
                "Overhead per entry (10-char String key, byte[] value)",
                "valueBytes",
                "implementation",
                "overheadBytesPerEntry",
                "bytes per entry beyond key and value",
                false,
                Map.of())));
  }
}
