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
import dev.larder.bench.servercrash.RestartBench;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A durable server's restart and its files: Larder ({@code --dir}, everysec) and redis-server
 * ({@code appendonly yes}, everysec) each load n keys of random values, compact (BGREWRITEAOF:
 * Larder's checkpoint, Redis's AOF with an RDB preamble), are killed with SIGKILL and started
 * again. Rows: bytes on disk per key after the compaction (and Redis's RDB snapshot of the same
 * data), restart time (process start to first PONG, all keys back).
 *
 * <p>Parameters: {@code keys} (default 1,000,000, quick 100,000), {@code valueBytes} (100).
 */
public final class ServerRestartScenario implements Scenario {

  private static final Parameter.WholeNumber KEYS =
      new Parameter.WholeNumber("keys", 1, 100_000_000, 1_000_000, 100_000);
  private static final Parameter.WholeNumber VALUE_BYTES =
      new Parameter.WholeNumber("valueBytes", 1, 1 << 20, 100, 100);

  @Override
  public String name() {
    return "server-restart";
  }

  @Override
  public String summary() {
    return "durable Larder vs redis-server (AOF, RDB preamble): bytes on disk per key after a"
        + " rewrite, restart time with n keys";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(KEYS, VALUE_BYTES);
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
    Path parent = Files.createTempDirectory("larder-server-restart-");
    Path directory = Files.createDirectories(parent.resolve("data"));
    try {
      context.progress("loading " + KEYS.get(o) + " keys");
      Row row = Row.of(trial.implementation());
      new RestartBench(trial.implementation(), directory, KEYS.get(o), VALUE_BYTES.getInt(o))
          .run()
          .forEach(row::put);
      return List.of(row);
    } finally {
      DirectoryTrees.delete(parent);
    }
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            Column.of("implementation"),
            Column.of("keys"),
            new Column("valueBytes", "value bytes"),
            new Column("diskBytesPerKey", "bytes on disk per key (after rewrite)"),
            new Column("rdbBytesPerKey", "RDB snapshot bytes per key"),
            new Column("restartMillis", "restart ms (start to PONG)"),
            new Column("loadMillis", "load ms (server's count)")),
        List.of());
  }
}
