package dev.larder.bench.scenarios;

import dev.larder.bench.measure.MemoryProbe;
import dev.larder.bench.measure.MemorySnapshot;
import dev.larder.bench.measure.NativeMemoryTracking;
import dev.larder.bench.measure.ProcStatus;
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
import java.util.OptionalLong;
import java.util.SplittableRandom;

/**
 * The 2000-caches startup test: create 2000 caches (in one manager where the library has one) and
 * measure the time and the memory they hold. Each cache is bounded to 1,000 entries (and 1 MiB for
 * stores bounded by bytes); Chronicle Map, which cannot evict, is sized for 1,000 entries. A full
 * run measures each library empty and again with 100 entries of 100 B in every cache (what a small
 * cache costs; {@code -P entries=0,100}, a quick run only empty), their keys the scenario's
 * 10-character strings and each value a fresh array.
 *
 * <p>What a row counts: {@code millis} is the time to create (and fill) every cache; {@code
 * heapBytes} the growth of the heap in use after garbage collection (full collections that compact
 * everything), {@code nativeBytes} the growth of the anonymous resident set (RssAnon + RssShmem,
 * after trimming the C heap) beside the pre-touched heap, both from before the first cache is
 * created to after the last is filled, every cache still open; {@code bytesPerCache} their sum over
 * the caches, and {@code reportedBytesPerCache} what the library itself reports (Larder's {@code
 * memoryUsed()}), where it has such a figure.
 *
 * <p>The baseline is taken after a warm-up that creates and fills caches the same way (so the JIT
 * has compiled the paths the measurement runs). The resident set is read after a quiet period
 * ({@code -P quietMillis}) that follows each settling of the heap, before and after, so that
 * HotSpot has given back what its compiler and the settling's own collections took (it frees such
 * memory a few seconds later): without it, several MB either way that are the JVM's own land in the
 * figures. File-backed pages are left out of the resident set because the kernel drops and reloads
 * them (the JVM's code, jars) whatever the caches do: on a busy machine VmRSS moved by several MB
 * either way. What remains of the JVM's own growth is up to a few MB over a run where the caches
 * fill (measured between -0.5 and +4.1 MB over 2,000 caches of 100 entries on a busy machine) and
 * under 0.1 MB where they stay empty; the heap's figure varies far less.
 */
public final class StartupScenario implements Scenario {

  private static final long ENTRIES_BOUND = 1_000;
  private static final long BYTES = 1L << 20;

  private static final Parameter.WholeNumber CACHES =
      new Parameter.WholeNumber("caches", 1, 1_000_000, 2_000, 100);
  private static final Parameter.WholeNumbers ENTRIES =
      new Parameter.WholeNumbers("entries", 0, ENTRIES_BOUND, List.of(0L, 100L), List.of(0L));
  private static final Parameter.WholeNumber QUIET_MILLIS =
      new Parameter.WholeNumber("quietMillis", 0, 600_000, 6_000, 200);
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
    return List.of(CACHES, ENTRIES, QUIET_MILLIS);
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    List<Trial> trials = new ArrayList<>();
    for (long entries : ENTRIES.get(options)) {
      for (Peer peer : Subjects.planned(options)) {
        trials.add(
            new Trial(
                peer.name(),
                entries + " entries a cache",
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
    CacheSpec<String, byte[]> spec =
        new CacheSpec<>(
            String.class,
            byte[].class,
            Codecs.bytes(),
            chronicle ? 0 : ENTRIES_BOUND,
            chronicle ? 0 : BYTES,
            ENTRIES_BOUND,
            Keys.KEY_CHARS,
            VALUE_BYTES);
    try {
      warmUp(peer, spec, context.options().quick() ? 20 : 200, entries);
    } catch (PeerUnavailableException e) {
      return List.of(Row.unavailable(peer.name(), e.getMessage()));
    }
    MemoryProbe probe = new MemoryProbe(context.options().quick() ? 10 : 20);
    long quietMillis = QUIET_MILLIS.get(context.options());
    MemorySnapshot before = probe.settle();
    long residentBefore = residentAfterQuiet(quietMillis);
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
      long residentAfter = residentAfterQuiet(quietMillis);
      long heap = after.heapDelta(before);
      long nativeBytes =
          residentBefore < 0 || residentAfter < 0
              ? after.nativeDelta(before)
              : residentAfter - residentBefore;
      Row row =
          Row.of(peer.name())
              .put("caches", caches)
              .put("entries", entries)
              .put("millis", nanos / 1e6)
              .put("heapBytes", heap)
              .put("nativeBytes", nativeBytes)
              .put("heapBytesPerCache", (double) heap / caches)
              .put("nativeBytesPerCache", (double) nativeBytes / caches)
              .put("bytesPerCache", (double) (heap + nativeBytes) / caches)
              .put("heapStable", before.stable() && after.stable());
      OptionalLong reported = reportedBytes(list);
      if (reported.isPresent()) {
        row.put("reportedBytesPerCache", (double) reported.getAsLong() / caches);
      }
      return List.of(row);
    }
  }

  /**
   * Returns the anonymous resident set after a quiet period and a trim of the C heap, or -1 where
   * it cannot be read.
   */
  private static long residentAfterQuiet(long quietMillis) {
    MemoryProbe.quietPeriod(quietMillis);
    NativeMemoryTracking.trimNativeHeap();
    return ProcStatus.anonymousResidentBytes().orElse(-1);
  }

  /** Returns the sum of what the caches report using, if every one reports it. */
  private static OptionalLong reportedBytes(List<BenchCache<String, byte[]>> caches) {
    long total = 0;
    for (BenchCache<String, byte[]> cache : caches) {
      OptionalLong bytes = cache.reportedBytes();
      if (bytes.isEmpty()) {
        return OptionalLong.empty();
      }
      total += bytes.getAsLong();
    }
    return OptionalLong.of(total);
  }

  private static void fill(
      BenchCache<String, byte[]> cache, long entries, SplittableRandom random) {
    for (long i = 0; i < entries; i++) {
      cache.put(Keys.key(i), Keys.value(random, VALUE_BYTES));
    }
  }

  /**
   * Creates and fills caches as the measurement will (and reads each once), so that the paths it
   * runs are compiled before the baseline; they are closed before it.
   */
  private static void warmUp(Peer peer, CacheSpec<String, byte[]> spec, int caches, long entries)
      throws Exception {
    SplittableRandom random = new SplittableRandom(1);
    try (CacheFamily<String, byte[]> family = peer.family(spec)) {
      for (int i = 0; i < caches; i++) {
        BenchCache<String, byte[]> c = family.newCache("warm-" + i);
        fill(c, Math.max(1, entries), random);
        c.get(Keys.key(0));
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
            new Column("bytesPerCache", "bytes/cache"),
            new Column("reportedBytesPerCache", "reported/cache")),
        List.of(
            new ChartSpec(
                "",
                "Time to create the caches",
                "implementation",
                "caches",
                "millis",
                "milliseconds",
                false,
                Map.of())));
  }
}
