package dev.larder.bench.scenarios;

import dev.larder.Cache;
import dev.larder.Storage;
import dev.larder.bench.measure.MemoryProbe;
import dev.larder.bench.measure.ProcStatus;
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
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What freeing and giving back page memory costs, for both storage modes: {@code invalidateAll()}
 * and {@code close()} of a full cache, idle and with three threads spinning on unrelated work, and
 * off heap how long until the resident set has given the memory back (the call may return first);
 * the latency of puts of values larger than a page (each frees the over-size page of the value it
 * evicts or replaces); write throughput with and without three readers; and the process's resident
 * memory under churn and after {@code close()}.
 *
 * <p>Resident memory: the baseline is read after a warm-up, a settled heap and a trim of the native
 * heap; during churn the resident set is sampled every 100 ms; after {@code close()} it is read
 * again after a collection but without trimming the native heap, as an application would see it.
 * The heap is pre-touched, so heap storage's pages do not grow the resident set: the heap-storage
 * row is the control for what the churn itself costs outside the store.
 */
public final class OffHeapScenario implements Scenario {

  private static final Parameter.WholeNumber CHURN_SECONDS =
      new Parameter.WholeNumber("churnSeconds", 1, 86_400, 40, 8);
  private static final Parameter.WholeNumber WRITE_SECONDS =
      new Parameter.WholeNumber("writeSeconds", 1, 86_400, 6, 2);
  private static final Parameter.WholeNumber STALL_MIB =
      new Parameter.WholeNumber("stallMib", 1, 65_536, 256, 64);

  private static final int SPINNERS = 3;
  private static final int READERS = 3;
  private static final int WRITERS = 2;
  private static final long MIB = 1L << 20;

  /** How long a stall's measurement waits for the memory to be given back. */
  private static final long RELEASE_WAIT_MILLIS = 30_000;

  @Override
  public String name() {
    return "offheap";
  }

  @Override
  public String summary() {
    return "cost of freeing pages (invalidateAll, close, large puts) idle and busy,"
        + " and resident memory under churn";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(CHURN_SECONDS, WRITE_SECONDS, STALL_MIB);
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    List<Trial> trials = new ArrayList<>();
    for (String part : List.of("stall", "churn")) {
      for (Storage storage : List.of(Storage.OFF_HEAP, Storage.HEAP)) {
        String name = "Larder " + storage;
        if (options.includes(name) || options.includes("Larder")) {
          trials.add(new Trial(name, part, Map.of("part", part, "storage", storage.name())));
        }
      }
    }
    return trials;
  }

  @Override
  public String heapSize(RunOptions options) {
    return options.quick() ? "384m" : "768m";
  }

  @Override
  public int trialTimeoutSeconds(RunOptions options) {
    return options.quick() ? 300 : 1800;
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws Exception {
    Storage storage = Storage.valueOf(trial.param("storage"));
    Row row = Row.of(trial.implementation()).put("part", trial.param("part"));
    if (trial.param("part").equals("stall")) {
      stalls(storage, row, context);
    } else {
      churn(storage, row, context);
    }
    return List.of(row);
  }

  // ------------------------------------------------------------------ stalls

  @SuppressWarnings("try") // the spinners are only started and stopped
  private static void stalls(Storage storage, Row row, TrialContext context) throws Exception {
    RunOptions options = context.options();
    long bound = STALL_MIB.get(options) * MIB;
    boolean offHeap = storage == Storage.OFF_HEAP;
    context.progress("invalidateAll");
    try (Cache<Long, byte[]> cache = cache(storage, bound)) {
      fill(cache, bound);
      stall(row, "invalidateAllIdle", cache, cache::invalidateAll, offHeap);
      fill(cache, bound);
      try (Spinners spinners = new Spinners(SPINNERS)) {
        stall(row, "invalidateAllBusy", cache, cache::invalidateAll, offHeap);
      }
    }
    context.progress("close");
    Cache<Long, byte[]> idle = cache(storage, bound);
    fill(idle, bound);
    stall(row, "closeIdle", idle, idle::close, offHeap);
    Cache<Long, byte[]> busy = cache(storage, bound);
    fill(busy, bound);
    try (Spinners spinners = new Spinners(SPINNERS)) {
      stall(row, "closeBusy", busy, busy::close, offHeap);
    }
    context.progress("large puts");
    largePuts(storage, row, false);
    largePuts(storage, row, true);
    context.progress("writes");
    long seconds = WRITE_SECONDS.get(options);
    long alone = writes(storage, seconds, false);
    long withReaders = writes(storage, seconds, true);
    row.put("writesAlone", alone)
        .put("writesWithReaders", withReaders)
        .put("writesKeptPercent", 100.0 * withReaders / Math.max(1, alone));
  }

  private static Cache<Long, byte[]> cache(Storage storage, long bound) {
    return Cache.builder(Long.class, byte[].class).maximumMemory(bound).storage(storage).build();
  }

  /** Puts 1,000-byte values until the cache has evicted: it is then at its bound. */
  private static void fill(Cache<Long, byte[]> cache, long bound) {
    byte[] value = new byte[1000];
    long count = bound / 1000 * 6 / 5;
    for (long key = 0; key < count; key++) {
      cache.put(key, value);
    }
  }

  /**
   * Times {@code action} (an emptying or a close of {@code cache}, full) into {@code <name>Millis},
   * and, off heap, the time from its start until the resident set has shrunk by 90% of what the
   * cache held ({@code memoryUsed()} before) into {@code <name>ReleasedMillis}: the store may give
   * memory back after the call returns, so the call's time alone would not say when the memory is
   * back. -1 if that takes over {@value #RELEASE_WAIT_MILLIS} ms.
   */
  private static void stall(
      Row row, String name, Cache<Long, byte[]> cache, Runnable action, boolean offHeap)
      throws InterruptedException {
    long held = cache.memoryUsed();
    long full = ProcStatus.residentBytes().orElse(-1);
    long t0 = System.nanoTime();
    action.run();
    row.put(name + "Millis", (System.nanoTime() - t0) / 1e6);
    if (offHeap && full > 0) {
      long target = full - held * 9 / 10;
      long deadline = t0 + RELEASE_WAIT_MILLIS * 1_000_000L;
      while (ProcStatus.residentBytes().orElse(-1) > target && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
      boolean released = ProcStatus.residentBytes().orElse(-1) <= target;
      row.put(name + "ReleasedMillis", released ? (System.nanoTime() - t0) / 1e6 : -1);
    }
  }

  /**
   * Puts of 256 KiB values (four pages of a 16 MiB cache) over 1,000 keys: once the cache is full,
   * every put evicts or replaces a value and frees its over-size page.
   */
  @SuppressWarnings("try")
  private static void largePuts(Storage storage, Row row, boolean busy) throws Exception {
    int puts = 2_000;
    long[] nanos = new long[puts];
    byte[] value = new byte[256 * 1024];
    try (Cache<Long, byte[]> cache = cache(storage, 16 * MIB)) {
      for (long key = 0; key < 200; key++) {
        cache.put(key % 1000, value);
      }
      try (Spinners spinners = busy ? new Spinners(SPINNERS) : null) {
        for (int i = 0; i < puts; i++) {
          long t0 = System.nanoTime();
          cache.put((long) (i % 1000), value);
          nanos[i] = System.nanoTime() - t0;
        }
      }
    }
    Arrays.sort(nanos);
    String prefix = busy ? "largePutBusy" : "largePutIdle";
    row.put(prefix + "P50Micros", nanos[puts / 2] / 1e3)
        .put(prefix + "P99Micros", nanos[puts * 99 / 100] / 1e3);
  }

  /**
   * Counts the writes {@value #WRITERS} threads make in {@code seconds} into a 64 MiB cache, values
   * of 100 B to 128 KiB over 10,000 keys (a share larger than a page), with or without {@value
   * #READERS} threads reading random keys meanwhile.
   */
  private static long writes(Storage storage, long seconds, boolean readers) throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong writes = new AtomicLong();
    Churn sizes = new Churn(100, 128 * 1024);
    List<Thread> threads = new ArrayList<>();
    try (Cache<Long, byte[]> cache = cache(storage, 64 * MIB)) {
      for (int t = 0; t < WRITERS; t++) {
        SplittableRandom random = new SplittableRandom(t);
        threads.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      long n = 0;
                      while (!stop.get()) {
                        cache.put(random.nextLong(10_000), new byte[sizes.size(random)]);
                        n++;
                      }
                      writes.addAndGet(n);
                    }));
      }
      for (int t = 0; readers && t < READERS; t++) {
        SplittableRandom random = new SplittableRandom(100 + t);
        threads.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      while (!stop.get()) {
                        cache.getIfPresent(random.nextLong(10_000));
                      }
                    }));
      }
      Thread.sleep(seconds * 1000);
      stop.set(true);
      for (Thread thread : threads) {
        thread.join();
      }
    }
    return writes.get();
  }

  // ------------------------------------------------------------------ resident memory

  private static void churn(Storage storage, Row row, TrialContext context) throws Exception {
    long seconds = CHURN_SECONDS.get(context.options());
    long bound = 64 * MIB;
    warmUp(storage);
    MemoryProbe probe = new MemoryProbe(context.options().quick() ? 10 : 20);
    long baseline = probe.settle().residentBytes();
    Cache<Long, byte[]> cache = cache(storage, bound);
    AtomicBoolean stop = new AtomicBoolean();
    long maxUsed = 0;
    List<Thread> threads = new ArrayList<>();
    Churn sizes = new Churn(1, 1 << 20);
    for (int t = 0; t < WRITERS; t++) {
      SplittableRandom random = new SplittableRandom(t);
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    while (!stop.get()) {
                      cache.put(random.nextLong(20_000), new byte[sizes.size(random)]);
                    }
                  }));
    }
    long peak = 0;
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    long nextReport = System.nanoTime() + 5_000_000_000L;
    while (System.nanoTime() < deadline) {
      Thread.sleep(100);
      peak = Math.max(peak, ProcStatus.residentBytes().orElse(-1));
      maxUsed = Math.max(maxUsed, cache.memoryUsed());
      if (System.nanoTime() > nextReport) {
        context.progress("resident +" + (peak - baseline) / MIB + " MiB");
        nextReport += 5_000_000_000L;
      }
    }
    stop.set(true);
    for (Thread thread : threads) {
      thread.join();
    }
    long end = ProcStatus.residentBytes().orElse(-1);
    cache.close();
    System.gc();
    Thread.sleep(1000);
    long closed = ProcStatus.residentBytes().orElse(-1);
    row.put("boundMib", bound / MIB)
        .put("churnSeconds", seconds)
        .put("maxMemoryUsedMib", (double) maxUsed / MIB)
        .put("peakGrowthMib", (double) (peak - baseline) / MIB)
        .put("endGrowthMib", (double) (end - baseline) / MIB)
        .put("afterCloseGrowthMib", (double) (closed - baseline) / MIB);
  }

  /** Runs the churn's code paths briefly, so that compiled code is resident before the baseline. */
  private static void warmUp(Storage storage) throws InterruptedException {
    Churn sizes = new Churn(1, 64 * 1024);
    SplittableRandom random = new SplittableRandom(42);
    try (Cache<Long, byte[]> cache = cache(storage, 4 * MIB)) {
      for (int i = 0; i < 20_000; i++) {
        cache.put(random.nextLong(2_000), new byte[sizes.size(random)]);
      }
    }
    // HotSpot gives back memory of the JIT's arenas a few seconds after compiling.
    Thread.sleep(5_000);
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            Column.of("implementation"),
            Column.of("part"),
            new Column("invalidateAllIdleMillis", "invalidateAll idle ms"),
            new Column("invalidateAllBusyMillis", "invalidateAll busy ms"),
            new Column("closeIdleMillis", "close idle ms"),
            new Column("closeBusyMillis", "close busy ms"),
            new Column("invalidateAllBusyReleasedMillis", "invalidateAll busy: memory back ms"),
            new Column("closeBusyReleasedMillis", "close busy: memory back ms"),
            new Column("largePutIdleP50Micros", "large put idle p50 µs"),
            new Column("largePutBusyP50Micros", "large put busy p50 µs"),
            new Column("largePutBusyP99Micros", "large put busy p99 µs"),
            new Column("writesAlone", "writes alone"),
            new Column("writesWithReaders", "writes with readers"),
            new Column("maxMemoryUsedMib", "max memoryUsed MiB"),
            new Column("peakGrowthMib", "peak RSS growth MiB"),
            new Column("endGrowthMib", "RSS growth at end MiB"),
            new Column("afterCloseGrowthMib", "RSS growth after close MiB")),
        List.of(
            new ChartSpec(
                "",
                "Resident memory growth under churn (64 MiB bound)",
                "part",
                "implementation",
                "peakGrowthMib",
                "MiB",
                false,
                Map.of("part", "churn"))));
  }
}
