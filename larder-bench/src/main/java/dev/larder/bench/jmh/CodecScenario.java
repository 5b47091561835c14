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
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import org.openjdk.jmh.util.Statistics;

/**
 * {@code ./larder bench codec}: the codec target's figure, encode plus decode of one content node,
 * by running {@link NodeCodecBenchmark} through JMH (sample mode; JMH forks its own JVMs). One
 * trial per flavour (with and without substitution); one row per (operation, pool) with the sampled
 * percentiles in nanoseconds.
 *
 * <p>Full run: two forks, 3 × 2 s warm-up, 5 × 2 s measurement, every operation. {@code --quick}:
 * one fork, 1 × 1 s and 2 × 1 s, encode plus decode only. Parameters: {@code forks}, {@code pools}
 * (comma-separated, default {@code 1,1024}).
 */
public final class CodecScenario implements Scenario {

  /** The bound on the median of encode plus decode, in nanoseconds. */
  static final double TARGET_NANOS = 1_000;

  private static final List<String> FLAVOURS = List.of("substituted", "plain");

  /** JMH forks per benchmark; 0 runs it in the trial's own JVM. */
  private static final Parameter.WholeNumber FORKS =
      new Parameter.WholeNumber("forks", 0, 20, 2, 1);

  @Override
  public String name() {
    return "codec";
  }

  @Override
  public String summary() {
    return "encode plus decode of one content node (JMH, ns percentiles)";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(FORKS, new Parameter.Checked("pools"));
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    pools(options);
    List<Trial> trials = new ArrayList<>();
    if (options.includes("Larder")) {
      for (String flavour : FLAVOURS) {
        trials.add(new Trial("Larder", flavour, Map.of("flavour", flavour)));
      }
    }
    return trials;
  }

  @Override
  public String heapSize(RunOptions options) {
    return "256m";
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws RunnerException {
    RunOptions options = context.options();
    boolean quick = options.quick();
    List<String> pools = pools(options);
    String methods = quick ? "encodeAndDecode" : "encodeAndDecode|encode|decode";
    Options jmh =
        new OptionsBuilder()
            .include(NodeCodecBenchmark.class.getName() + "\\.(" + methods + ")$")
            .param("flavour", trial.param("flavour"))
            .param("pool", pools.toArray(String[]::new))
            .forks(FORKS.getInt(options))
            .warmupIterations(quick ? 1 : 3)
            .warmupTime(TimeValue.seconds(quick ? 1 : 2))
            .measurementIterations(quick ? 2 : 5)
            .measurementTime(TimeValue.seconds(quick ? 1 : 2))
            .shouldFailOnError(true)
            .verbosity(VerboseMode.SILENT)
            .build();
    context.progress("JMH: " + methods + ", pools " + pools);
    Collection<RunResult> results = new Runner(jmh).run();
    List<Row> rows = new ArrayList<>();
    for (RunResult result : results) {
      BenchmarkParams params = result.getParams();
      rows.add(
          row(
              params.getBenchmark(),
              params.getParam("flavour"),
              Integer.parseInt(params.getParam("pool")),
              result.getPrimaryResult().getStatistics()));
    }
    return rows;
  }

  /** The pools to run: powers of two, as the benchmark's index mask needs. */
  static List<String> pools(RunOptions options) {
    List<String> pools = options.listParam("pools", List.of("1", "1024"), List.of("1", "1024"));
    for (String pool : pools) {
      int n;
      try {
        n = Integer.parseInt(pool);
      } catch (NumberFormatException e) {
        n = 0;
      }
      if (n <= 0 || Integer.bitCount(n) != 1) {
        throw new IllegalArgumentException(
            "parameter pools: each pool must be a power of two" + " (1, 2, 4, ...), not " + pool);
      }
    }
    return pools;
  }

  /**
   * Returns the scenario's row.
   *
   * @param benchmark the JMH benchmark's full name
   * @param flavour the codec flavour
   * @param pool how many nodes the benchmark cycled through
   * @param statistics the sampled times in nanoseconds
   */
  static Row row(String benchmark, String flavour, int pool, Statistics statistics) {
    String operation = benchmark.substring(benchmark.lastIndexOf('.') + 1);
    double median = statistics.getPercentile(50);
    Row row =
        Row.of("Larder")
            .put("variant", flavour)
            .put("operation", operation)
            .put("pool", pool)
            .put("samples", statistics.getN())
            .put("p0", statistics.getMin())
            .put("p50", median)
            .put("p90", statistics.getPercentile(90))
            .put("p99", statistics.getPercentile(99));
    if (operation.equals("encodeAndDecode")) {
      row.put("withinTarget", median <= TARGET_NANOS);
    }
    return row;
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            Column.of("implementation"),
            new Column("variant", "flavour"),
            Column.of("operation"),
            Column.of("pool"),
            new Column("p0", "p0 ns"),
            new Column("p50", "median ns"),
            new Column("p90", "p90 ns"),
            new Column("p99", "p99 ns"),
            new Column("withinTarget", "median ≤ 1 µs"),
            Column.of("samples")),
        List.of());
  }
}
