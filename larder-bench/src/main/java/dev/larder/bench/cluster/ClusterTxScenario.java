package dev.larder.bench.cluster;

import dev.larder.bench.scenario.Parameter;
import dev.larder.bench.scenario.Presentation;
import dev.larder.bench.scenario.Presentation.Column;
import dev.larder.bench.scenario.Row;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Scenario;
import dev.larder.bench.scenario.Trial;
import dev.larder.bench.scenario.TrialContext;
import dev.larder.tx.Isolation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code ./larder bench cluster-tx}: clustered transactions under faults, and their throughput
 * against Infinispan's optimistic transactions.
 *
 * <p>Each part runs in each of {@code mode}: {@code replicated} (every member holds every key) and
 * {@code distributed} (each key on {@code nodes - majority + 1} members, at least 2; Infinispan
 * DIST_SYNC with as many owners).
 *
 * <p>The {@code faults} part ({@link TxFaultTrial}), for SERIALIZABLE and SNAPSHOT: {@code nodes}
 * member JVMs, each with its log (fsync interval 10 ms), {@code clients} client threads on each
 * running bank transfers, audits of the bank's sum, and list-append and register transactions;
 * {@code kills} SIGKILLs of a random member (every {@code kill-all-every}-th kills every member at
 * once) and {@code partitions} partitions of one random member from the rest, {@code pause} ms
 * apart. Rows: commits, aborts, unknown outcomes, anomalies by kind (the history checker, process
 * order), forbidden ones (SERIALIZABLE: any; SNAPSHOT: any but G2), lost acknowledged appends,
 * divergent members, wrong sums, in-doubt transactions committed and aborted by reconfigurations.
 *
 * <p>The {@code server} part ({@link ServerClusterTxTrial}): {@code nodes} clustered Larder servers
 * with {@code cluster-transactions on} in their own JVMs, {@code clients} Redis clients on each
 * running MULTI/EXEC bank transfers (each also appending its record to its client's list) and
 * audits; each server in memory or logging its commits ({@code persistence}: {@code memory}, or
 * {@code appendfsync} {@code always} or {@code everysec}; one trial per value); {@code kills}
 * SIGKILLs of a random member (restarted; with a log every {@code kill-all-every}-th of every
 * member at once, all restarted) and {@code partitions} cuts of one member, held {@code hold} ms.
 * Rows: acknowledged EXECs (commits), aborts, refusals (CLUSTERDOWN), unknown outcomes, anomalies
 * (wrong sums, transfers half applied, records twice, refused transfers applied), lost acknowledged
 * transfers, keys still locked 30 s after a fault settled.
 *
 * <p>The {@code throughput} part ({@link TxThroughputTrial}): Larder (serializable, without a log
 * and with one) and Infinispan 15.2 (REPL_SYNC, optimistic, REPEATABLE_READ with its write-skew
 * check) on {@code nodes} JVMs over the same JGroups stack; for each of {@code threads} per member
 * and {@code conflict} percent of transactions on 10 shared hot keys, transfers (read two keys,
 * write both) for {@code seconds}: commits a second and abort share.
 */
public final class ClusterTxScenario implements Scenario {

  private static final List<String> PART_NAMES = List.of("faults", "throughput", "server");
  private static final Parameter.Choices PARTS =
      new Parameter.Choices("parts", PART_NAMES, PART_NAMES, PART_NAMES);
  private static final List<String> MODE_NAMES = List.of("replicated", "distributed");
  private static final Parameter.Choices MODES =
      new Parameter.Choices("mode", MODE_NAMES, MODE_NAMES, MODE_NAMES);
  private static final Parameter.WholeNumber NODES = new Parameter.WholeNumber("nodes", 3, 9, 3, 3);
  private static final Parameter.WholeNumber KILLS =
      new Parameter.WholeNumber("kills", 0, 1_000_000, 100, 3);
  private static final Parameter.WholeNumber KILL_ALL_EVERY =
      new Parameter.WholeNumber("kill-all-every", 0, 1_000_000, 25, 3);
  private static final Parameter.WholeNumber PARTITIONS =
      new Parameter.WholeNumber("partitions", 0, 1_000_000, 20, 1);
  private static final Parameter.Choices PERSISTENCE =
      new Parameter.Choices(
          "persistence",
          ServerClusterTxTrial.PERSISTENCE,
          List.of("everysec"),
          List.of("everysec"));
  private static final Parameter.WholeNumber PAUSE =
      new Parameter.WholeNumber("pause", 0, 1_000_000, 1000, 500);
  private static final Parameter.WholeNumber HOLD =
      new Parameter.WholeNumber("hold", 0, 1_000_000, 3000, 2000);
  private static final Parameter.WholeNumber CLIENTS =
      new Parameter.WholeNumber("clients", 1, 64, 2, 2);
  private static final Parameter.WholeNumbers THREADS =
      new Parameter.WholeNumbers("threads", 1, 256, List.of(1L, 4L, 16L), List.of(1L, 4L, 16L));
  private static final Parameter.WholeNumbers CONFLICT =
      new Parameter.WholeNumbers("conflict", 0, 100, List.of(0L, 10L), List.of(0L, 10L));
  private static final Parameter.WholeNumber SECONDS =
      new Parameter.WholeNumber("seconds", 1, 3600, 10, 1);

  private static final String FAULTS = "faults";
  private static final String SERVER_PART = "server";
  private static final String SERVER = "Larder server";
  private static final List<String> THROUGHPUT = List.of("Larder", "Larder-log", "Infinispan");

  @Override
  public String name() {
    return "cluster-tx";
  }

  @Override
  public String summary() {
    return "clustered transactions: kills and partitions checked by the history checker;"
        + " commits/s against Infinispan optimistic transactions";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(
        PARTS,
        MODES,
        NODES,
        KILLS,
        KILL_ALL_EVERY,
        PERSISTENCE,
        PARTITIONS,
        PAUSE,
        HOLD,
        CLIENTS,
        THREADS,
        CONFLICT,
        SECONDS);
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    Map<String, String> common =
        Map.of(
            "nodes", String.valueOf(NODES.get(options)),
            "kills", String.valueOf(KILLS.get(options)),
            "killAllEvery", String.valueOf(KILL_ALL_EVERY.get(options)),
            "partitions", String.valueOf(PARTITIONS.get(options)),
            "pause", String.valueOf(PAUSE.get(options)),
            "clients", String.valueOf(CLIENTS.get(options)),
            "threads",
                THREADS.get(options).stream().map(String::valueOf).collect(Collectors.joining(",")),
            "conflict",
                CONFLICT.get(options).stream()
                    .map(String::valueOf)
                    .collect(Collectors.joining(",")),
            "seconds", String.valueOf(SECONDS.get(options)),
            "warmup", options.quick() ? "1" : "10");
    List<Trial> trials = new ArrayList<>();
    for (String mode : MODES.get(options)) {
      Map<String, String> params = new java.util.HashMap<>(common);
      params.put("mode", mode);
      params.put("hold", String.valueOf(HOLD.get(options)));
      if (PARTS.get(options).contains("faults")) {
        for (Isolation level : Isolation.values()) {
          if (options.includes("Larder " + level)) {
            trials.add(new Trial("Larder " + level, FAULTS + " " + mode, params));
          }
        }
      }
      if (PARTS.get(options).contains("server") && options.includes(SERVER)) {
        for (String persistence : PERSISTENCE.get(options)) {
          Map<String, String> p = new java.util.HashMap<>(params);
          p.put("persistence", persistence);
          trials.add(new Trial(SERVER, SERVER_PART + " " + mode + " " + persistence, p));
        }
      }
      if (PARTS.get(options).contains("throughput")) {
        for (String impl : THROUGHPUT) {
          if (options.includes(impl)) {
            trials.add(new Trial(impl, "throughput " + mode, params));
          }
        }
      }
    }
    return trials;
  }

  /**
   * The driver holds every recorded transaction for the history check at the end: a full fault
   * trial (100 kills, 20 partitions, about 20 minutes) records about ten times a quick one's
   * history and ran out of 512 MiB when it came to check it.
   */
  @Override
  public String heapSize(RunOptions options) {
    return options.quick() ? "512m" : "3g";
  }

  @Override
  public int trialTimeoutSeconds(RunOptions options) {
    return options.quick() ? 900 : 14_400;
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws Exception {
    if (trial.label().startsWith(SERVER_PART)) {
      return server(trial, context);
    }
    return trial.label().startsWith(FAULTS) ? faults(trial, context) : throughput(trial, context);
  }

  private static List<Row> server(Trial trial, TrialContext context) throws Exception {
    ServerClusterTxTrial.Result r =
        new ServerClusterTxTrial(
                trial.param("mode"),
                (int) trial.longParam("nodes"),
                (int) trial.longParam("kills"),
                (int) trial.longParam("killAllEvery"),
                trial.param("persistence"),
                (int) trial.longParam("partitions"),
                trial.longParam("pause"),
                trial.longParam("hold"),
                (int) trial.longParam("clients"),
                context::progress)
            .run();
    if (!r.detail().isEmpty()) {
      context.progress(r.detail());
    }
    Map<String, Long> kinds = new java.util.TreeMap<>();
    kinds.put("wrong sum", r.sumViolations());
    kinds.put("half applied", r.halfApplied());
    kinds.put("duplicated", r.duplicated());
    kinds.put("refused but applied", r.abortedButApplied());
    kinds.values().removeIf(n -> n == 0);
    return List.of(
        Row.of(trial.implementation())
            .put("isolation", Isolation.SERIALIZABLE.name())
            .put("mode", trial.param("mode"))
            .put("nodes", trial.longParam("nodes"))
            .put("persistence", trial.param("persistence"))
            .put("kills", r.kills())
            .put("killAll", r.killAll())
            .put("partitions", r.partitions())
            .put("commits", r.commits())
            .put("aborts", r.aborts())
            .put("refused", r.refused())
            .put("unknown", r.unknown())
            .put("audits", r.audits())
            .put("anomalies", r.anomalies())
            .put("anomalyKinds", kinds.isEmpty() ? "none" : kinds.toString())
            .put("forbidden", r.anomalies())
            .put("lost", r.lost())
            .put("sumViolations", r.sumViolations())
            .put("lockedKeys", r.lockedKeys())
            .put("seconds", r.millis() / 1000.0));
  }

  private static List<Row> faults(Trial trial, TrialContext context) throws Exception {
    Isolation level = Isolation.valueOf(trial.implementation().substring("Larder ".length()));
    TxFaultTrial.Result r =
        new TxFaultTrial(
                (int) trial.longParam("nodes"),
                (int) trial.longParam("kills"),
                (int) trial.longParam("killAllEvery"),
                (int) trial.longParam("partitions"),
                trial.longParam("pause"),
                (int) trial.longParam("clients"),
                level,
                trial.param("mode"),
                context::progress)
            .run();
    if (!r.detail().isEmpty()) {
      context.progress(r.detail());
    }
    int total = r.anomalies().values().stream().mapToInt(Integer::intValue).sum();
    return List.of(
        Row.of(trial.implementation())
            .put("isolation", level.name())
            .put("mode", trial.param("mode"))
            .put("nodes", trial.longParam("nodes"))
            .put("kills", r.kills())
            .put("killAll", r.killAlls())
            .put("partitions", r.partitions())
            .put("commits", r.commits())
            .put("aborts", r.aborts())
            .put("unknown", r.unknown())
            .put("anomalies", total)
            .put("anomalyKinds", r.anomalies().isEmpty() ? "none" : r.anomalies().toString())
            .put("forbidden", r.forbidden())
            .put("lost", r.lost())
            .put("divergent", r.divergent())
            .put("sumViolations", r.sumViolations())
            .put("inDoubtCommitted", r.inDoubtCommitted())
            .put("inDoubtAborted", r.inDoubtAborted())
            .put("seconds", r.millis() / 1000.0));
  }

  private static List<Row> throughput(Trial trial, TrialContext context) throws Exception {
    List<TxThroughputTrial.Cell> cells =
        new TxThroughputTrial(
                trial.implementation(),
                (int) trial.longParam("nodes"),
                longs(trial.param("threads")),
                longs(trial.param("conflict")),
                (int) trial.longParam("seconds"),
                (int) trial.longParam("warmup"),
                trial.param("mode"),
                context::progress)
            .run();
    List<Row> rows = new ArrayList<>();
    for (TxThroughputTrial.Cell c : cells) {
      rows.add(
          Row.of(trial.implementation())
              .put(
                  "isolation",
                  trial.implementation().equals("Infinispan") ? "REPEATABLE_READ" : "SERIALIZABLE")
              .put("mode", trial.param("mode"))
              .put("threads", c.threads())
              .put("conflictPercent", c.conflictPercent())
              .put("commitsPerSecond", Math.round(c.commitsPerSecond()))
              .put("abortPercent", Math.round(c.abortPercent() * 10) / 10.0)
              .put("commits", c.commits())
              .put("aborts", c.aborts())
              .put("errors", c.errors()));
    }
    return rows;
  }

  private static List<Long> longs(String csv) {
    List<Long> out = new ArrayList<>();
    for (String s : csv.split(",", -1)) {
      out.add(Long.parseLong(s.trim()));
    }
    return out;
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            Column.of("implementation"),
            Column.of("isolation"),
            Column.of("mode"),
            Column.of("persistence"),
            Column.of("kills"),
            new Column("killAll", "kills of all"),
            Column.of("partitions"),
            Column.of("commits"),
            Column.of("aborts"),
            Column.of("unknown"),
            Column.of("anomalies"),
            new Column("anomalyKinds", "anomalies by kind"),
            new Column("forbidden", "forbidden anomalies"),
            new Column("lost", "lost acknowledged commits"),
            Column.of("divergent"),
            new Column("sumViolations", "wrong sums"),
            Column.of("refused"),
            new Column("lockedKeys", "locked keys"),
            new Column("inDoubtCommitted", "in doubt: committed"),
            new Column("inDoubtAborted", "in doubt: aborted"),
            Column.of("threads"),
            new Column("conflictPercent", "conflict %"),
            new Column("commitsPerSecond", "commits/s"),
            new Column("abortPercent", "aborts %")),
        List.of());
  }
}
