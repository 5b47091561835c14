package dev.larder.bench.cluster;

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
import java.util.Map;

/**
 * {@code ./larder bench server-cluster-kill}: kill and partition trials of clustered Larder servers
 * ({@link ServerClusterKillTrial}): {@code nodes} member JVMs (3), real Redis clients writing
 * through every member, {@code kills} SIGKILLs of a random member, each restarted (100; 3 with
 * --quick), then {@code partitions} cuts of a random member from the others, held {@code hold} ms
 * and healed (0 by default; say {@code -P partitions=N}), then {@code restarts} full-cluster
 * restarts: every member SIGKILLed at once and all restarted, on a data directory each with {@code
 * appendfsync} = {@code persistence} (0 restarts and {@code off} by default; {@code -P restarts=N
 * -P persistence=always} is the durable cluster's check); every acknowledged write is then read
 * back through every member. {@code preload} MiB of 4 KiB values (0 by default) are written before
 * the first event, so that a rebalance lasts seconds (with {@code -P await=view}, the next kill
 * then lands during it); they are read back too. Before each kill the trial waits for every
 * member's rebalance ({@code await} = {@code rebalance}, the default), or only until every member
 * sees the restarted one ({@code -P await=view}: the next member is killed while segments may still
 * be moving, and the trial counts the kills that found a member still receiving). One trial per
 * {@code modes} (replicated, distributed with 2 owners), {@code handling} (quorum; allow-all to see
 * what it loses), {@code persistence} and {@code await}. Rows: mode, partitionHandling, kills,
 * partitions, restarts, persistence, await, killsDuringRebalance, segmentsLost (segments a member
 * started empty because no member held them complete), acknowledged, lost (goal 0 under quorum),
 * refused (writes a minority side refused with CLUSTERDOWN), tryAgain (writes answered TRYAGAIN:
 * not acknowledged).
 */
public final class ServerClusterKillScenario implements Scenario {

  private static final Parameter.WholeNumber NODES = new Parameter.WholeNumber("nodes", 3, 9, 3, 3);
  private static final Parameter.WholeNumber KILLS =
      new Parameter.WholeNumber("kills", 0, 1_000_000, 100, 3);
  private static final Parameter.WholeNumber PARTITIONS =
      new Parameter.WholeNumber("partitions", 0, 1_000_000, 0, 0);
  private static final Parameter.WholeNumber RESTARTS =
      new Parameter.WholeNumber("restarts", 0, 1_000_000, 0, 0);
  private static final Parameter.Choices PERSISTENCE =
      new Parameter.Choices(
          "persistence",
          List.of("off", "always", "everysec", "no"),
          List.of("off"),
          List.of("off"));
  private static final Parameter.WholeNumber PRELOAD =
      new Parameter.WholeNumber("preload", 0, 1024, 0, 0);
  private static final Parameter.WholeNumber PAUSE =
      new Parameter.WholeNumber("pause", 0, 1_000_000_000, 1000, 300);
  private static final Parameter.WholeNumber HOLD =
      new Parameter.WholeNumber("hold", 0, 1_000_000_000, 3000, 2000);
  private static final Parameter.Choices MODES =
      new Parameter.Choices(
          "modes",
          List.of("replicated", "distributed"),
          List.of("replicated", "distributed"),
          List.of("replicated", "distributed"));
  private static final Parameter.Choices AWAIT =
      new Parameter.Choices(
          "await", List.of("rebalance", "view"), List.of("rebalance"), List.of("rebalance"));
  private static final Parameter.Choices HANDLING =
      new Parameter.Choices(
          "handling", List.of("quorum", "allow-all"), List.of("quorum"), List.of("quorum"));

  @Override
  public String name() {
    return "server-cluster-kill";
  }

  @Override
  public String summary() {
    return "SIGKILL and partition clustered Larder servers under Redis clients' writes;"
        + " count acknowledged writes lost";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(
        NODES,
        KILLS,
        PARTITIONS,
        RESTARTS,
        PERSISTENCE,
        PRELOAD,
        PAUSE,
        HOLD,
        MODES,
        HANDLING,
        AWAIT);
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    List<Trial> trials = new ArrayList<>();
    for (String mode : MODES.get(options)) {
      for (String handling : HANDLING.get(options)) {
        for (String persistence : PERSISTENCE.get(options)) {
          for (String await : AWAIT.get(options)) {
            String name =
                "Larder "
                    + mode
                    + " "
                    + handling
                    + (persistence.equals("off") ? "" : " appendfsync " + persistence)
                    + (await.equals("view") ? " kills during rebalances" : "");
            if (options.includes(name)) {
              trials.add(
                  new Trial(
                      name,
                      mode
                          + "-"
                          + handling
                          + "-"
                          + persistence
                          + (await.equals("view") ? "-during-rebalance" : ""),
                      Map.ofEntries(
                          Map.entry("mode", mode),
                          Map.entry("handling", handling),
                          Map.entry("persistence", persistence),
                          Map.entry("await", await),
                          Map.entry("nodes", String.valueOf(NODES.get(options))),
                          Map.entry("kills", String.valueOf(KILLS.get(options))),
                          Map.entry("partitions", String.valueOf(PARTITIONS.get(options))),
                          Map.entry("restarts", String.valueOf(RESTARTS.get(options))),
                          Map.entry("preload", String.valueOf(PRELOAD.get(options))),
                          Map.entry("pause", String.valueOf(PAUSE.get(options))),
                          Map.entry("hold", String.valueOf(HOLD.get(options))))));
            }
          }
        }
      }
    }
    return trials;
  }

  @Override
  public String heapSize(RunOptions options) {
    return "256m";
  }

  @Override
  public int trialTimeoutSeconds(RunOptions options) {
    return options.quick() ? 600 : 7200;
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws Exception {
    ServerClusterKillTrial.Result r =
        new ServerClusterKillTrial(
                trial.param("mode"),
                trial.param("handling"),
                (int) trial.longParam("nodes"),
                (int) trial.longParam("kills"),
                (int) trial.longParam("partitions"),
                trial.longParam("pause"),
                trial.longParam("hold"),
                (int) trial.longParam("restarts"),
                trial.param("persistence"),
                trial.param("await").equals("rebalance"),
                context::progress)
            .preloading((int) trial.longParam("preload"))
            .run();
    if (r.lost() > 0) {
      context.progress("lost: " + r.detail());
    }
    return List.of(
        Row.of(trial.implementation())
            .put("mode", trial.param("mode"))
            .put("partitionHandling", trial.param("handling"))
            .put("nodes", trial.longParam("nodes"))
            .put("kills", r.kills())
            .put("partitions", r.partitions())
            .put("restarts", r.restarts())
            .put("persistence", trial.param("persistence"))
            .put("await", trial.param("await"))
            .put("preloadMiB", trial.longParam("preload"))
            .put("killsDuringRebalance", r.killsDuringRebalance())
            .put("segmentsLost", r.segmentsLost())
            .put("acknowledged", r.acknowledged())
            .put("keys", r.keys())
            .put("lost", r.lost())
            .put("refused", r.refused())
            .put("tryAgain", r.tryAgain())
            .put("seconds", r.millis() / 1000.0));
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            Column.of("implementation"),
            Column.of("nodes"),
            Column.of("kills"),
            Column.of("partitions"),
            new Column("restarts", "full restarts"),
            Column.of("persistence"),
            new Column("preloadMiB", "preload (MiB)"),
            new Column("killsDuringRebalance", "kills during a rebalance"),
            new Column("segmentsLost", "segments started empty"),
            new Column("acknowledged", "acknowledged writes"),
            Column.of("keys"),
            new Column("lost", "lost (reads, summed over members)"),
            new Column("refused", "refused (CLUSTERDOWN)"),
            new Column("tryAgain", "TRYAGAIN"),
            Column.of("seconds")),
        List.of());
  }
}
