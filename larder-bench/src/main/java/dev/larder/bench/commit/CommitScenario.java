package dev.larder.bench.commit;

import dev.larder.bench.harness.DirectoryTrees;
import dev.larder.bench.scenario.ChartSpec;
import dev.larder.bench.scenario.Parameter;
import dev.larder.bench.scenario.Presentation;
import dev.larder.bench.scenario.Presentation.Column;
import dev.larder.bench.scenario.Row;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Scenario;
import dev.larder.bench.scenario.Trial;
import dev.larder.bench.scenario.TrialContext;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.HdrHistogram.Histogram;

/**
 * The commit benchmark: durable single-write commits per second and their latency against client
 * threads and value size, per fsync policy, beside the disk's own limits (one record per
 * write-and-force; forced sequential bandwidth), non-transactional puts, and the embedded stores a
 * Java developer would pick: H2's MVStore with its TransactionStore (forced per commit), JetBrains
 * Xodus with durable writes (forced per commit), and Chronicle Map persisted to a file (no force:
 * not durable against power loss).
 *
 * <p>Rows of the stores that force every commit carry two ratios to the disk's limits: commits/s
 * over the disk's forces/s (the target: at least 10× with 64 threads) and MB/s of values committed
 * over the disk's forced MB/s with 1 MiB writes (target: at least 60% with 50 KiB values and 64
 * threads). The disk of a shared machine swings many-fold from minute to minute, so the disk is
 * measured right beside each measured stretch: before it, and again after it, and each stretch is
 * set against the mean of the two disk figures around it. With {@code repeats} above 1 a cell
 * alternates disk, store, disk, store, ..., disk, and its row gives the medians (of the store's
 * figures, of the disk figures and of the per-stretch ratios), with the lowest and highest
 * per-stretch bandwidth ratio beside them. Every row also gives the JVM's CPU time per commit (all
 * threads), which a busy machine distorts far less than the rates.
 *
 * <p>Parameters: {@code threads} (default 1,4,16,64; quick 1,16), {@code sizes} in bytes (default
 * 100,1024,51200; quick 100,51200), {@code seconds} per cell (default 5; quick 1), {@code keys}
 * (default 10000), {@code repeats}: measured stretches per cell (default 1; quick 1), and {@code
 * diskSeconds}: each disk measurement beside a forcing store's stretch (default 2; quick 0.5).
 */
public final class CommitScenario implements Scenario {

  private static final Parameter.Checked THREADS = new Parameter.Checked("threads");
  private static final Parameter.Checked SIZES = new Parameter.Checked("sizes");
  private static final Parameter.Decimal SECONDS = new Parameter.Decimal("seconds", 0, 1e9, 5, 1);
  private static final Parameter.WholeNumber KEYS =
      new Parameter.WholeNumber("keys", 1, 1_000_000_000, 10_000, 10_000);
  private static final Parameter.WholeNumber REPEATS =
      new Parameter.WholeNumber("repeats", 1, 1000, 1, 1);
  private static final Parameter.Decimal DISK_SECONDS =
      new Parameter.Decimal("diskSeconds", 0.05, 1e9, 2, 0.5);

  static final List<String> IMPLEMENTATIONS =
      List.of(
          "disk",
          "Larder always",
          "Larder interval(10ms)",
          "Larder none",
          "Larder plain puts",
          "H2 MVStore TransactionStore",
          "Xodus durable write",
          "ChronicleMap persisted");

  /** The implementations that force every commit before acknowledging it. */
  static final List<String> FORCED =
      List.of("Larder always", "H2 MVStore TransactionStore", "Xodus durable write");

  @Override
  public String name() {
    return "commit";
  }

  @Override
  public String summary() {
    return "durable commits/s and latency vs threads and size, per fsync policy, "
        + "against the disk's limits, H2 MVStore, Xodus and Chronicle Map";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(THREADS, SIZES, SECONDS, KEYS, REPEATS, DISK_SECONDS);
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    return Trial.eachIncluded(IMPLEMENTATIONS, options);
  }

  @Override
  public int trialTimeoutSeconds(RunOptions options) {
    return 3600;
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws Exception {
    RunOptions options = context.options();
    double seconds = SECONDS.get(options);
    Path directory = Files.createTempDirectory("larder-commit-");
    try {
      if (trial.implementation().equals("disk")) {
        return List.of(
            Row.of("disk")
                .put("forcesPerSecond", DiskLimits.forcesPerSecond(directory, seconds))
                .put("forcedMBps", DiskLimits.forcedMegabytesPerSecond(directory, seconds)));
      }
      List<Row> rows = new ArrayList<>();
      long keys = KEYS.get(options);
      int repeats = REPEATS.getInt(options);
      double diskSeconds = DISK_SECONDS.get(options);
      boolean first = true;
      // Stores that force every commit are set against the disk measured right beside each of
      // their stretches (before and after), so that the ratios compare like with like on a host
      // whose disk swings many-fold between minutes.
      boolean forced = FORCED.contains(trial.implementation());
      for (String size :
          options.listParam("sizes", List.of("100", "1024", "51200"), List.of("100", "51200"))) {
        for (String threads :
            options.listParam("threads", List.of("1", "4", "16", "64"), List.of("1", "16"))) {
          Path cellDirectory = directory.resolve(size + "-" + threads);
          Row row;
          if (forced) {
            row =
                besideDisk(
                    trial.implementation(),
                    Integer.parseInt(threads),
                    Integer.parseInt(size),
                    keys,
                    seconds,
                    cellDirectory,
                    first,
                    repeats,
                    diskSeconds,
                    directory);
          } else {
            List<Row> stretches = new ArrayList<>();
            for (int r = 0; r < repeats; r++) {
              stretches.add(
                  cell(
                      trial.implementation(),
                      Integer.parseInt(threads),
                      Integer.parseInt(size),
                      keys,
                      seconds,
                      cellDirectory.resolve("r" + r),
                      first && r == 0));
            }
            row = medianRow(stretches);
          }
          first = false;
          rows.add(row);
          context.progress(trial.implementation() + " " + size + " B, " + threads + " threads");
        }
      }
      return rows;
    } finally {
      DirectoryTrees.delete(directory);
    }
  }

  /**
   * One cell of a store that forces every commit: disk, stretch, disk, stretch, ..., disk. Each
   * stretch's ratios are against the mean of the disk figures measured just before and just after
   * it; the row holds medians.
   */
  private static Row besideDisk(
      String implementation,
      int threads,
      int size,
      long keys,
      double seconds,
      Path cellDirectory,
      boolean firstOfTrial,
      int repeats,
      double diskSeconds,
      Path directory)
      throws Exception {
    double[] forces = new double[repeats + 1];
    double[] bandwidth = new double[repeats + 1];
    forces[0] = DiskLimits.forcesPerSecond(directory, diskSeconds);
    bandwidth[0] = DiskLimits.forcedMegabytesPerSecond(directory, diskSeconds);
    List<Row> stretches = new ArrayList<>();
    double[] xForces = new double[repeats];
    double[] pctBandwidth = new double[repeats];
    for (int r = 0; r < repeats; r++) {
      Row stretch =
          cell(
              implementation,
              threads,
              size,
              keys,
              seconds,
              cellDirectory.resolve("r" + r),
              firstOfTrial && r == 0);
      forces[r + 1] = DiskLimits.forcesPerSecond(directory, diskSeconds);
      bandwidth[r + 1] = DiskLimits.forcedMegabytesPerSecond(directory, diskSeconds);
      xForces[r] = stretch.number("commitsPerSecond") / ((forces[r] + forces[r + 1]) / 2);
      pctBandwidth[r] =
          100 * stretch.number("megabytesPerSecond") / ((bandwidth[r] + bandwidth[r + 1]) / 2);
      stretches.add(stretch);
    }
    return medianRow(stretches)
        .put("xDiskForces", median(xForces))
        .put("pctDiskBandwidth", median(pctBandwidth))
        .put("pctDiskBandwidthLow", java.util.Arrays.stream(pctBandwidth).min().orElseThrow())
        .put("pctDiskBandwidthHigh", java.util.Arrays.stream(pctBandwidth).max().orElseThrow())
        .put("forcesPerSecond", median(forces))
        .put("forcedMBps", median(bandwidth));
  }

  /** Returns a row of the first stretch's identity with the median of every measured figure. */
  static Row medianRow(List<Row> stretches) {
    Row first = stretches.getFirst();
    Row row =
        Row.of(first.implementation())
            .put("threads", first.get("threads"))
            .put("valueBytes", first.get("valueBytes"))
            .put("repeats", stretches.size());
    for (String figure :
        List.of(
            "commitsPerSecond",
            "p50Micros",
            "p99Micros",
            "commitsPerForce",
            "megabytesPerSecond",
            "cpuMicrosPerCommit")) {
      row.put(figure, median(stretches.stream().mapToDouble(s -> s.number(figure)).toArray()));
    }
    return row;
  }

  /** Returns the median (the mean of the middle two for an even count; NaN ignored unless all). */
  static double median(double[] values) {
    double[] sorted =
        java.util.Arrays.stream(values).filter(v -> !Double.isNaN(v)).sorted().toArray();
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }

  private static Row cell(
      String implementation,
      int threads,
      int size,
      long keys,
      double seconds,
      Path directory,
      boolean firstOfTrial)
      throws Exception {
    Files.createDirectories(directory);
    try (Committer committer = Committers.open(implementation, directory, keys, size)) {
      byte[] value = new byte[size];
      ThreadLocalRandom.current().nextBytes(value);
      // Warm-up: long enough for the JIT to compile the commit path, which is deeper than a
      // plain put's (on a busy machine 1 s left it interpreted and tripled the cost of `none`).
      run(committer, threads, value, keys, Math.min(3.0, seconds), new Histogram(3));
      if (firstOfTrial) {
        // On a busy machine the JIT was still compiling the commit path during the trial's first
        // cell even after 9 s (its CPU per commit came out 4-6x the next cell's, whichever thread
        // count came first): keep warming up, a second at a time, while the JIT still compiles,
        // for at most 30 s more.
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit != null && jit.isCompilationTimeMonitoringSupported()) {
          for (int s = 0; s < 30; s++) {
            long before = jit.getTotalCompilationTime();
            run(committer, threads, value, keys, 1.0, new Histogram(3));
            if (jit.getTotalCompilationTime() == before) {
              break;
            }
          }
        }
      }
      committer.commitsPerForce();
      Histogram latency = new Histogram(3);
      long cpuStarted = processCpuNanos();
      long started = System.nanoTime();
      long commits = run(committer, threads, value, keys, seconds, latency);
      double elapsed = (System.nanoTime() - started) / 1e9;
      long cpu = processCpuNanos() - cpuStarted;
      return Row.of(implementation)
          .put("threads", threads)
          .put("valueBytes", size)
          .put("commitsPerSecond", commits / elapsed)
          .put("p50Micros", latency.getValueAtPercentile(50) / 1e3)
          .put("p99Micros", latency.getValueAtPercentile(99) / 1e3)
          .put("commitsPerForce", committer.commitsPerForce())
          .put("megabytesPerSecond", commits * (double) size / 1e6 / elapsed)
          .put("cpuMicrosPerCommit", cpu < 0 || commits == 0 ? Double.NaN : cpu / 1e3 / commits);
    }
  }

  /**
   * Returns this JVM's CPU time so far (every thread: committers, the log's, the JIT's, the
   * collector's), or -1 if the platform does not say; per commit, the cost that a busy machine does
   * not distort the way it distorts wall-clock rates.
   */
  private static long processCpuNanos() {
    return ManagementFactory.getOperatingSystemMXBean()
            instanceof com.sun.management.OperatingSystemMXBean os
        ? os.getProcessCpuTime()
        : -1;
  }

  /** Runs {@code threads} committers for {@code seconds}; returns the commits made. */
  private static long run(
      Committer committer, int threads, byte[] value, long keys, double seconds, Histogram latency)
      throws InterruptedException {
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> list = new ArrayList<>();
    Histogram[] perThread = new Histogram[threads];
    long[] counts = new long[threads];
    RuntimeException[] failure = new RuntimeException[1];
    for (int t = 0; t < threads; t++) {
      int id = t;
      perThread[t] = new Histogram(3);
      list.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    try {
                      while (!stop.get()) {
                        long t0 = System.nanoTime();
                        committer.commit(random.nextLong(keys), value);
                        perThread[id].recordValue(System.nanoTime() - t0);
                        counts[id]++;
                      }
                    } catch (RuntimeException e) {
                      synchronized (failure) {
                        failure[0] = e;
                      }
                    }
                  }));
    }
    Thread.sleep((long) (seconds * 1000));
    stop.set(true);
    long total = 0;
    for (int t = 0; t < threads; t++) {
      list.get(t).join();
      latency.add(perThread[t]);
      total += counts[t];
    }
    if (failure[0] != null) {
      throw failure[0];
    }
    return total;
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            Column.of("implementation"),
            Column.of("threads"),
            new Column("valueBytes", "value bytes"),
            new Column("commitsPerSecond", "commits/s"),
            new Column("p50Micros", "p50 µs"),
            new Column("p99Micros", "p99 µs"),
            new Column("commitsPerForce", "commits/force"),
            new Column("megabytesPerSecond", "MB/s"),
            new Column("cpuMicrosPerCommit", "CPU µs/commit"),
            new Column("xDiskForces", "× disk forces/s"),
            new Column("pctDiskBandwidth", "% disk forced MB/s"),
            new Column("pctDiskBandwidthLow", "lowest %"),
            new Column("pctDiskBandwidthHigh", "highest %"),
            new Column("repeats", "stretches"),
            new Column("forcesPerSecond", "disk forces/s"),
            new Column("forcedMBps", "disk forced MB/s")),
        List.of(
            new ChartSpec(
                "",
                "Durable commits per second, 1 KiB values",
                "threads",
                "implementation",
                "commitsPerSecond",
                "commits per second",
                false,
                Map.of("valueBytes", 1024))));
  }
}
