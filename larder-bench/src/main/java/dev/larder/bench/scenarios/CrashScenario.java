package dev.larder.bench.scenarios;

import dev.larder.bench.crash.CrashTrials;
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
import dev.larder.wal.FsyncPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The crash trials: a child JVM commits transfers and unique inserts and prints each commit's id
 * after commit returns; it is killed with SIGKILL at a random moment; the directory is recovered
 * and every printed commit must be there, the account total unchanged. One row per fsync policy:
 * trials, acknowledged commits, commits lost, trials with a partial commit, recovery time.
 *
 * <p>Parameters: {@code trials} (default 1000, quick 20), {@code policies} (default {@code
 * always,interval(10),none}), {@code threads} (child committers, default 8), {@code runMillis}
 * (longest a child runs before the kill, default 300).
 */
public final class CrashScenario implements Scenario {

  private static final Parameter.WholeNumber TRIALS =
      new Parameter.WholeNumber("trials", 1, 1_000_000_000, 1000, 20);
  private static final Parameter.Checked POLICIES = new Parameter.Checked("policies");
  private static final Parameter.WholeNumber THREADS =
      new Parameter.WholeNumber("threads", 1, 1_000_000_000, 8, 8);
  private static final Parameter.WholeNumber RUN_MILLIS =
      new Parameter.WholeNumber("runMillis", 0, 1_000_000_000, 300, 300);

  @Override
  public String name() {
    return "crash";
  }

  @Override
  public String summary() {
    return "crash trials: SIGKILL a committing child JVM, recover, count lost and partial commits";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(TRIALS, POLICIES, THREADS, RUN_MILLIS);
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    List<Trial> trials = new ArrayList<>();
    for (String policy :
        options.listParam(
            "policies",
            List.of("always", "interval(10)", "none"),
            List.of("always", "interval(10)", "none"))) {
      String name = FsyncPolicy.parse(policy).toString();
      if (options.includes(name)) {
        trials.add(new Trial(name, name, Map.of("policy", policy)));
      }
    }
    return trials;
  }

  @Override
  public int trialTimeoutSeconds(RunOptions options) {
    // A trial (child start, run, kill, recovery) took 2.5-10 s on a loaded 2-core machine.
    return (int) Math.max(600, TRIALS.get(options) * 30);
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws Exception {
    RunOptions options = context.options();
    int trials = (int) TRIALS.get(options);
    int threads = (int) THREADS.get(options);
    int runMillis = (int) RUN_MILLIS.get(options);
    FsyncPolicy policy = FsyncPolicy.parse(trial.param("policy"));
    Path directory = Files.createTempDirectory("larder-crash-");
    try {
      CrashTrials.Result r =
          new CrashTrials(directory, policy, threads, 22).run(trials, runMillis, context::progress);
      return List.of(
          Row.of(policy.toString())
              .put("trials", r.trials())
              .put("acknowledged", r.acknowledged())
              .put("lost", r.lost())
              .put("trialsWithLoss", r.trialsWithLoss())
              .put("lostMaxAgeMillis", r.lostMaxAgeMillis())
              .put("partialCommits", r.partial())
              .put("tornTails", r.tornTails())
              .put("recoveryP50Millis", r.recoveryQuantile(0.5))
              .put("recoveryMaxMillis", r.recoveryQuantile(1.0))
              .put("childFailures", r.childFailures().size()));
    } finally {
      DirectoryTrees.delete(directory);
    }
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            new Column("implementation", "fsync policy"),
            Column.of("trials"),
            new Column("acknowledged", "acknowledged commits"),
            new Column("lost", "lost"),
            new Column("trialsWithLoss", "trials with a loss"),
            new Column("lostMaxAgeMillis", "oldest lost, ms before kill"),
            new Column("partialCommits", "partial commits"),
            new Column("tornTails", "torn tails cut"),
            new Column("recoveryP50Millis", "recovery p50 ms"),
            new Column("recoveryMaxMillis", "recovery max ms"),
            new Column("childFailures", "child failures")),
        List.of(
            new ChartSpec(
                "",
                "Recovery time after SIGKILL",
                "implementation",
                "implementation",
                "recoveryP50Millis",
                "milliseconds",
                false,
                Map.of())));
  }
}
