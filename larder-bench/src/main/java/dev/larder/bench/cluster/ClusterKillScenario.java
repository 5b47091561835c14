package dev.larder.bench.cluster;

import dev.larder.bench.scenario.Parameter;
import dev.larder.bench.scenario.Presentation;
import dev.larder.bench.scenario.Presentation.Column;
import dev.larder.bench.scenario.Row;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Scenario;
import dev.larder.bench.scenario.Trial;
import dev.larder.bench.scenario.TrialContext;
import dev.larder.cluster.ClusterMode;
import java.util.List;
import java.util.Map;

/**
 * {@code ./larder bench cluster-kill}: kill trials of larder-cluster. For REPLICATED and
 * DISTRIBUTED (owners 2): {@code nodes} member JVMs on loopback under continuous SYNC writes,
 * {@code kills} SIGKILLs of a random member, each followed by a restart and rejoin; at the end
 * every member reads every acknowledged write. Parameters: {@code nodes} (3), {@code kills} (100; 3
 * with --quick), {@code pause} (ms between a rejoin and the next kill, 1000; 300 with --quick).
 */
public final class ClusterKillScenario implements Scenario {

  private static final Parameter.WholeNumber NODES = new Parameter.WholeNumber("nodes", 3, 9, 3, 3);
  private static final Parameter.WholeNumber KILLS =
      new Parameter.WholeNumber("kills", 1, 1_000_000_000, 100, 3);
  private static final Parameter.WholeNumber PAUSE =
      new Parameter.WholeNumber("pause", 0, 1_000_000_000, 1000, 300);

  @Override
  public String name() {
    return "cluster-kill";
  }

  @Override
  public String summary() {
    return "cluster kill trials: SIGKILL cluster members under sync writes; count acknowledged writes lost";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(NODES, KILLS, PAUSE);
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    String nodes = String.valueOf(NODES.get(options));
    String kills = String.valueOf(KILLS.get(options));
    String pause = String.valueOf(PAUSE.get(options));
    return List.of(ClusterMode.REPLICATED, ClusterMode.DISTRIBUTED).stream()
        .filter(m -> options.includes("Larder " + m))
        .map(
            m ->
                new Trial(
                    "Larder " + m,
                    m.name(),
                    Map.of("mode", m.name(), "nodes", nodes, "kills", kills, "pause", pause)))
        .toList();
  }

  @Override
  public String heapSize(RunOptions options) {
    return "256m";
  }

  @Override
  public int trialTimeoutSeconds(RunOptions options) {
    return options.quick() ? 300 : 3600;
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws Exception {
    ClusterKillTrial.Result r =
        new ClusterKillTrial(
                ClusterMode.valueOf(trial.param("mode")),
                (int) trial.longParam("nodes"),
                (int) trial.longParam("kills"),
                trial.longParam("pause"),
                context::progress)
            .run();
    if (r.losses() > 0) {
      for (String line : ("losses: " + r.detail()).split("\n", -1)) {
        context.progress(line);
      }
    }
    return List.of(
        Row.of(trial.implementation())
            .put("nodes", trial.longParam("nodes"))
            .put("kills", r.kills())
            .put("ackedWrites", r.acked())
            .put("keys", r.keys())
            .put("losses", r.losses())
            .put("verifiedBy", r.verifiedMembers())
            .put("seconds", r.millis() / 1000.0));
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            Column.of("implementation"),
            Column.of("nodes"),
            Column.of("kills"),
            new Column("ackedWrites", "acknowledged writes"),
            Column.of("keys"),
            new Column("losses", "losses (summed over members)"),
            new Column("verifiedBy", "members verifying"),
            Column.of("seconds")),
        List.of());
  }
}
