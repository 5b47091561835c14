package dev.larder.bench.scenarios;

import dev.larder.bench.harness.DirectoryTrees;
import dev.larder.bench.scenario.Parameter;
import dev.larder.bench.scenario.Presentation;
import dev.larder.bench.scenario.Presentation.Column;
import dev.larder.bench.scenario.Row;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Scenario;
import dev.larder.bench.scenario.Trial;
import dev.larder.bench.scenario.TrialContext;
import dev.larder.bench.servercrash.CheckpointPauseBench;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How long writers pause while a durable server checkpoints: Larder ({@code ./larder serve --dir},
 * everysec) and redis-server ({@code appendonly yes}, everysec) load n keys, then w connections
 * write one SET at a time, first with nothing else running, then while BGREWRITEAOF runs (Larder's
 * checkpoint, Redis's forked rewrite) until it ends. Rows: per implementation and phase ({@code
 * steady}, {@code checkpoint}), the writes' latency percentiles (HdrHistogram, microseconds, from a
 * SET's send to its reply) and the checkpoint's duration.
 *
 * <p>Parameters: {@code keys} (default 1,000,000, quick 100,000), {@code valueBytes} (100), {@code
 * writers} (8, quick 4), {@code steadySeconds} (5, quick 2).
 */
public final class ServerCheckpointScenario implements Scenario {

  private static final Parameter.WholeNumber KEYS =
      new Parameter.WholeNumber("keys", 1, 100_000_000, 1_000_000, 100_000);
  private static final Parameter.WholeNumber VALUE_BYTES =
      new Parameter.WholeNumber("valueBytes", 1, 1 << 20, 100, 100);
  private static final Parameter.WholeNumber WRITERS =
      new Parameter.WholeNumber("writers", 1, 256, 8, 4);
  private static final Parameter.WholeNumber STEADY_SECONDS =
      new Parameter.WholeNumber("steadySeconds", 1, 600, 5, 2);

  @Override
  public String name() {
    return "server-checkpoint";
  }

  @Override
  public String summary() {
    return "durable Larder vs redis-server: writers' latency (p50, p99, max) while the server"
        + " checkpoints n keys (BGREWRITEAOF) against without";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(KEYS, VALUE_BYTES, WRITERS, STEADY_SECONDS);
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    return Trial.eachIncluded(List.of("Larder", "Redis"), options);
  }

  @Override
  public int trialTimeoutSeconds(RunOptions options) {
    return 1800;
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws Exception {
    RunOptions o = context.options();
    Path parent = Files.createTempDirectory("larder-server-checkpoint-");
    Path directory = Files.createDirectories(parent.resolve("data"));
    try {
      context.progress("loading " + KEYS.get(o) + " keys, then writing through a checkpoint");
      List<Row> rows = new ArrayList<>();
      for (Map<String, Object> figures :
          new CheckpointPauseBench(
                  trial.implementation(),
                  directory,
                  KEYS.get(o),
                  VALUE_BYTES.getInt(o),
                  WRITERS.getInt(o),
                  STEADY_SECONDS.get(o) * 1000)
              .run()) {
        Row row = Row.of(trial.implementation());
        figures.forEach(row::put);
        rows.add(row);
      }
      return rows;
    } finally {
      DirectoryTrees.delete(parent);
    }
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            Column.of("implementation"),
            Column.of("phase"),
            Column.of("keys"),
            Column.of("writers"),
            Column.of("writes"),
            new Column("p50Micros", "p50 µs"),
            new Column("p99Micros", "p99 µs"),
            new Column("p999Micros", "p99.9 µs"),
            new Column("maxMicros", "max µs"),
            new Column("checkpointMillis", "checkpoint ms")),
        List.of());
  }
}
