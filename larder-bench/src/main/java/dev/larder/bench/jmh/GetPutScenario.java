package dev.larder.bench.jmh;

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
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import org.openjdk.jmh.util.Statistics;

/**
 * {@code ./larder bench getput}: {@link GetPutBenchmark} through JMH, one trial per implementation
 * (Larder in both storage modes, Caffeine, and ConcurrentHashMap as the ceiling). One row per
 * workload: {@code read_only} and {@code write_only} on each of the {@code threads} counts, {@code
 * readwrite} (three readers and one writer) once. The row gives the median of the measured
 * iterations' total ops/s, their spread, and how many there were.
 *
 * <p>Full run: two forks, 3 × 1 s warm-up, 5 × 1 s measurement; {@code --quick}: one fork, 2 × 1 s
 * and 3 × 1 s. JMH forks its own JVMs (with the trial's heap settings).
 */
public final class GetPutScenario implements Scenario {

  private static final List<String> IMPLEMENTATIONS =
      List.of("Larder-offheap", "Larder-heap", "Caffeine", "ConcurrentHashMap");
  private static final Parameter.WholeNumber FORKS =
      new Parameter.WholeNumber("forks", 0, 20, 2, 1);
  private static final Parameter.WholeNumbers THREADS =
      new Parameter.WholeNumbers("threads", 1, 256, List.of(1L, 4L), List.of(4L));
  private static final Parameter.WholeNumber MAXIMUM_SIZE =
      new Parameter.WholeNumber("maximumSize", 1, 10_000_000, 50_000, 50_000);
  private static final Parameter.WholeNumber VALUE_BYTES =
      new Parameter.WholeNumber("valueBytes", 0, 1 << 20, 1024, 1024);

  @Override
  public String name() {
    return "getput";
  }

  @Override
  public String summary() {
    return "JMH reads/writes under Zipf keys (100% reads, 75/25, 100% writes),"
        + " shaped like Caffeine's GetPutBenchmark";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(FORKS, THREADS, MAXIMUM_SIZE, VALUE_BYTES);
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    return Trial.eachIncluded(IMPLEMENTATIONS, options);
  }

  @Override
  public String heapSize(RunOptions options) {
    return "256m";
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws RunnerException {
    RunOptions options = context.options();
    List<Row> rows = new ArrayList<>();
    for (long threads : THREADS.get(options)) {
      context.progress(
          trial.implementation() + ": read_only, write_only on " + threads + " thread(s)");
      String single = GetPutBenchmark.class.getName() + "\\.(read_only|write_only)$";
      rows.addAll(
          rows(trial, run(options(trial, options, single).threads((int) threads)), (int) threads));
    }
    context.progress(trial.implementation() + ": readwrite (3 readers, 1 writer)");
    String group = GetPutBenchmark.class.getName() + "\\.readwrite$";
    rows.addAll(rows(trial, run(options(trial, options, group).threadGroups(3, 1)), 4));
    return rows;
  }

  private static ChainedOptionsBuilder options(Trial trial, RunOptions options, String include) {
    boolean quick = options.quick();
    String heap = quick ? "-Xmx512m" : "-Xmx1g";
    return new OptionsBuilder()
        .include(include)
        .param("implementation", trial.implementation())
        .param("maximumSize", Long.toString(MAXIMUM_SIZE.get(options)))
        .param("valueBytes", Long.toString(VALUE_BYTES.get(options)))
        .forks(FORKS.getInt(options))
        .jvmArgsAppend(
            heap,
            heap.replace("mx", "ms"),
            "--enable-native-access=ALL-UNNAMED",
            "--sun-misc-unsafe-memory-access=allow")
        .warmupIterations(quick ? 2 : 3)
        .warmupTime(TimeValue.seconds(1))
        .measurementIterations(quick ? 3 : 5)
        .measurementTime(TimeValue.seconds(1))
        .shouldFailOnError(true)
        .verbosity(VerboseMode.SILENT);
  }

  private static List<RunResult> run(ChainedOptionsBuilder builder) throws RunnerException {
    return new ArrayList<>(new Runner(builder.build()).run());
  }

  private static List<Row> rows(Trial trial, List<RunResult> results, int threads) {
    List<Row> rows = new ArrayList<>();
    for (RunResult result : results) {
      String benchmark = result.getParams().getBenchmark();
      rows.add(
          row(
              trial.implementation(),
              benchmark.substring(benchmark.lastIndexOf('.') + 1),
              threads,
              result.getPrimaryResult().getStatistics()));
    }
    return rows;
  }

  /**
   * Returns the scenario's row, in ops/s.
   *
   * @param implementation the peer's name
   * @param workload read_only, write_only or readwrite
   * @param threads threads running the workload
   * @param statistics ops/s of each measured iteration (all threads together)
   */
  static Row row(String implementation, String workload, int threads, Statistics statistics) {
    double median = statistics.getPercentile(50);
    double spread = median == 0 ? 0 : 100 * (statistics.getMax() - statistics.getMin()) / median;
    return Row.of(implementation)
        .put("workload", workload)
        .put("threads", threads)
        .put("opsPerSecond", median)
        .put("spreadPercent", spread)
        .put("iterations", statistics.getN());
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            Column.of("implementation"),
            Column.of("workload"),
            Column.of("threads"),
            new Column("opsPerSecond", "ops/s (median)"),
            new Column("spreadPercent", "spread %"),
            Column.of("iterations")),
        List.of());
  }
}
