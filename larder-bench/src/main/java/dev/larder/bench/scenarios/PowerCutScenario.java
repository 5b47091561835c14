package dev.larder.bench.scenarios;

import dev.larder.bench.crash.PowerCutTrials;
import dev.larder.bench.scenario.Parameter;
import dev.larder.bench.scenario.Presentation;
import dev.larder.bench.scenario.Presentation.Column;
import dev.larder.bench.scenario.Row;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Scenario;
import dev.larder.bench.scenario.Trial;
import dev.larder.bench.scenario.TrialContext;
import dev.larder.wal.FsyncPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Simulated power cuts: transfers, unique inserts and checkpoints on a disk that drops, reorders or
 * tears every write not yet forced when the power goes; the store is rebuilt from what is left. One
 * row per fsync policy: cuts, acknowledged commits, lost, cuts with a partial commit.
 *
 * <p>Parameters: {@code cuts} (default 10000, quick 200), {@code policies} (default {@code always};
 * {@code interval(10)} and {@code none} are expected to lose commits here, since a power cut takes
 * what was never forced).
 */
public final class PowerCutScenario implements Scenario {

  private static final Parameter.WholeNumber CUTS =
      new Parameter.WholeNumber("cuts", 1, 1_000_000_000, 10_000, 200);
  private static final Parameter.Checked POLICIES = new Parameter.Checked("policies");

  @Override
  public String name() {
    return "powercut";
  }

  @Override
  public String summary() {
    return "simulated power cuts (drop/reorder/tear unforced writes), lost commits";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(CUTS, POLICIES);
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    List<Trial> trials = new ArrayList<>();
    for (String policy : options.listParam("policies", List.of("always"), List.of("always"))) {
      String name = FsyncPolicy.parse(policy).toString();
      if (options.includes(name)) {
        trials.add(new Trial(name, name, Map.of("policy", policy)));
      }
    }
    return trials;
  }

  @Override
  public int trialTimeoutSeconds(RunOptions options) {
    return (int) Math.max(600, CUTS.get(options) / 5);
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws Exception {
    int cuts = (int) CUTS.get(context.options());
    FsyncPolicy policy = FsyncPolicy.parse(trial.param("policy"));
    PowerCutTrials.Result r = new PowerCutTrials(policy, 22).run(cuts, context::progress);
    return List.of(
        Row.of(policy.toString())
            .put("cuts", r.cuts())
            .put("acknowledged", r.acknowledged())
            .put("lost", r.lost())
            .put("partialCommits", r.partial())
            .put("tornTails", r.tornTails()));
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            new Column("implementation", "fsync policy"),
            Column.of("cuts"),
            new Column("acknowledged", "acknowledged commits"),
            Column.of("lost"),
            new Column("partialCommits", "partial commits"),
            new Column("tornTails", "torn tails cut")),
        List.of());
  }
}
