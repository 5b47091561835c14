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
import dev.larder.bench.servercrash.ServerCrashTrials;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Durable servers killed with SIGKILL: Larder's ({@code --dir}) and redis-server ({@code appendonly
 * yes}), each under the same {@code appendfsync}. Clients on several connections write numbered
 * values (RESP SETs, MULTI/EXEC transactions of three writes, and on Larder memcached sets) and
 * record every acknowledged reply; the server is killed at a random moment and restarted on its
 * directory, and every key must hold its last acknowledged number or the one in flight. The kill
 * comes a random time up to {@code runMillis} after the clients have had 500 writes acknowledged (a
 * JVM just started answers slowly at first). One row per server, policy and protocol: trials,
 * acknowledged writes, lost (acknowledged writes missing after the restart), partial transactions,
 * restart time (process start to first PONG, a JVM's start included for Larder).
 *
 * <p>Parameters: {@code trials} (default 200, quick 10), {@code policies} (default {@code
 * always,everysec}), {@code runMillis} (longest the clients write before a kill, default 1000).
 */
public final class ServerCrashScenario implements Scenario {

  private static final Parameter.WholeNumber TRIALS =
      new Parameter.WholeNumber("trials", 1, 1_000_000, 200, 10);
  private static final Parameter.Choices POLICIES =
      new Parameter.Choices(
          "policies",
          List.of("always", "everysec", "no"),
          List.of("always", "everysec"),
          List.of("always", "everysec"));
  private static final Parameter.WholeNumber RUN_MILLIS =
      new Parameter.WholeNumber("runMillis", 200, 1_000_000, 1000, 1000);

  @Override
  public String name() {
    return "server-crash";
  }

  @Override
  public String summary() {
    return "SIGKILL a durable Larder server and redis-server (AOF) under load; lost and partial"
        + " writes after restart";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(TRIALS, POLICIES, RUN_MILLIS);
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    List<Trial> trials = new ArrayList<>();
    for (String implementation : List.of("Larder", "Redis")) {
      if (!options.includes(implementation)) {
        continue;
      }
      for (String policy : POLICIES.get(options)) {
        trials.add(
            new Trial(implementation, implementation + " " + policy, Map.of("policy", policy)));
      }
    }
    return trials;
  }

  @Override
  public int trialTimeoutSeconds(RunOptions options) {
    // A Larder trial (a JVM start, the writes, the kill) took 3-10 s on a loaded 2-core machine.
    return (int) Math.max(900, TRIALS.get(options) * 30);
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws Exception {
    RunOptions o = context.options();
    String policy = trial.param("policy");
    Path parent = Files.createTempDirectory("larder-server-crash-");
    Path directory = Files.createDirectories(parent.resolve("data"));
    boolean passed = false;
    try {
      ServerCrashTrials trials =
          new ServerCrashTrials(trial.implementation(), directory, policy, 33);
      ServerCrashTrials.Result r =
          trials.run((int) TRIALS.get(o), (int) RUN_MILLIS.get(o), context::progress);
      List<Row> rows = new ArrayList<>();
      rows.add(
          row(trial.implementation(), policy, "resp", r, r.respAcknowledged(), r.respLost())
              .put("partial", r.partial()));
      if (trials.speaksMemcached()) {
        rows.add(
            row(
                    trial.implementation(),
                    policy,
                    "memcached",
                    r,
                    r.memcachedAcknowledged(),
                    r.memcachedLost())
                .put("partial", 0));
      }
      passed = true;
      return rows;
    } finally {
      if (passed) {
        DirectoryTrees.delete(parent);
      } else {
        // Kept for a post-mortem: the server's files and its output.
        System.err.println("server-crash: the server's directory and output are kept in " + parent);
      }
    }
  }

  private static Row row(
      String implementation,
      String policy,
      String protocol,
      ServerCrashTrials.Result r,
      long acknowledged,
      long lost) {
    return Row.of(implementation)
        .put("policy", policy)
        .put("protocol", protocol)
        .put("trials", r.trials())
        .put("acknowledged", acknowledged)
        .put("lost", lost)
        .put("restartP50Millis", r.readyQuantile(0.5))
        .put("restartMaxMillis", r.readyQuantile(1.0));
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            Column.of("implementation"),
            Column.of("policy"),
            Column.of("protocol"),
            Column.of("trials"),
            new Column("acknowledged", "acknowledged writes"),
            Column.of("lost"),
            new Column("partial", "partial transactions"),
            new Column("restartP50Millis", "restart p50 ms"),
            new Column("restartMaxMillis", "restart max ms")),
        List.of());
  }
}
