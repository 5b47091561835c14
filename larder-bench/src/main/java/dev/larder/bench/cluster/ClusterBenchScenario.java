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
 * {@code ./larder bench cluster}: the replicated-cache benchmark, Larder's clustered cache against
 * Infinispan 15.2 embedded, both over the same JGroups loopback stack, in three shapes: REPLICATED
 * sync, REPLICATED async, DISTRIBUTED owners=2 sync. Per shape: 3 member JVMs, 90% gets and 10%
 * puts of 1 KiB values by {@code threads} client threads on every member; aggregate and per-member
 * ops/s, p50/p99 latency, memory per entry on each member, and the time a fourth member takes to
 * join and receive its state.
 *
 * <p>The {@code join} part ({@link ClusterJoinTrial}) loads {@code state} MiB of values into a
 * REPLICATED sync cache of {@code join-nodes} members (2: with the joiner, 3 JVMs), reads each
 * member's memory per entry at that scale, and times a new member joining and receiving all of it.
 *
 * <p>Parameters: {@code parts} (ops, join), {@code entries} (100,000; 5,000 with --quick), {@code
 * seconds} (20; 5), {@code threads} (4; 2), {@code value} (1024 bytes), {@code nodes} (3), {@code
 * state} (MiB of values in the join part: 1,024; 16), {@code join-nodes} (2).
 */
public final class ClusterBenchScenario implements Scenario {

  private static final Parameter.WholeNumber ENTRIES =
      new Parameter.WholeNumber("entries", 1, 1_000_000_000, 100_000, 5_000);
  private static final Parameter.WholeNumber SECONDS =
      new Parameter.WholeNumber("seconds", 1, 1_000_000_000, 20, 5);
  private static final Parameter.WholeNumber THREADS =
      new Parameter.WholeNumber("threads", 1, 1_000_000_000, 4, 2);
  private static final Parameter.WholeNumber VALUE =
      new Parameter.WholeNumber("value", 1, 1_000_000_000, 1024, 1024);
  private static final Parameter.WholeNumber NODES = new Parameter.WholeNumber("nodes", 3, 9, 3, 3);

  private static final Parameter.WholeNumber STATE =
      new Parameter.WholeNumber("state", 1, 16_384, 1024, 16);
  private static final Parameter.WholeNumber JOIN_NODES =
      new Parameter.WholeNumber("join-nodes", 1, 9, 2, 2);
  private static final List<String> PART_NAMES = List.of("ops", "join");
  private static final Parameter.Choices PARTS =
      new Parameter.Choices("parts", PART_NAMES, PART_NAMES, PART_NAMES);
  private static final String JOIN = "JOIN";

  private static final List<String> IMPLEMENTATIONS = List.of("Larder", "Infinispan");

  @Override
  public String name() {
    return "cluster";
  }

  @Override
  public String summary() {
    return "replicated-cache benchmark: clustered caches on 3 JVMs, 90% reads, Larder vs Infinispan";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(PARTS, ENTRIES, SECONDS, THREADS, VALUE, NODES, STATE, JOIN_NODES);
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    Map<String, String> params =
        Map.of(
            "entries", String.valueOf(ENTRIES.get(options)),
            "seconds", String.valueOf(SECONDS.get(options)),
            "threads", String.valueOf(THREADS.get(options)),
            "value", String.valueOf(VALUE.get(options)),
            "nodes", String.valueOf(NODES.get(options)),
            "state", String.valueOf(STATE.get(options)),
            "joinNodes", String.valueOf(JOIN_NODES.get(options)));
    List<String> parts = PARTS.get(options);
    List<Trial> trials = new ArrayList<>();
    if (parts.contains("ops")) {
      for (ClusterSubject.Shape shape : ClusterSubject.Shape.values()) {
        for (String impl : IMPLEMENTATIONS) {
          if (options.includes(impl)) {
            trials.add(new Trial(impl, shape.name(), params));
          }
        }
      }
    }
    if (parts.contains("join")) {
      for (String impl : IMPLEMENTATIONS) {
        if (options.includes(impl)) {
          trials.add(new Trial(impl, JOIN, params));
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
    return options.quick() ? 600 : 3600;
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws Exception {
    if (trial.label().equals(JOIN)) {
      return join(trial, context);
    }
    int entries = (int) trial.longParam("entries");
    int value = (int) trial.longParam("value");
    long dataMb = ((long) entries * (value + 64)) >> 20;
    String heap = Math.max(512, 3 * dataMb + 256) + "m";
    ClusterBenchTrial.Result r =
        new ClusterBenchTrial(
                trial.implementation(),
                ClusterSubject.Shape.valueOf(trial.label()),
                (int) trial.longParam("nodes"),
                entries,
                value,
                (int) trial.longParam("threads"),
                (int) trial.longParam("seconds"),
                heap,
                context::progress)
            .run();
    return List.of(
        Row.of(trial.implementation())
            .put("shape", trial.label())
            .put("opsPerSecond", Math.round(r.opsPerSecond()))
            .put("perNode", ClusterBenchTrial.join(r.perNodeOps()))
            .put("p50us", r.p50Micros())
            .put("p99us", r.p99Micros())
            .put("errors", r.errors())
            .put("bytesPerEntry", ClusterBenchTrial.join(r.bytesPerEntry()))
            .put("joinMillis", r.joinMillis())
            .put(
                "joinMBps",
                r.joinMillis() == 0
                    ? 0
                    : Math.round(r.joinBytes() / 1048576.0 / (r.joinMillis() / 1000.0) * 10) / 10.0)
            .put("entries", entries));
  }

  /**
   * Heaps: Larder stores off the heap, so 1 GiB serves any state size; Infinispan stores on the
   * heap, about 1.2 KB per 1 KiB entry, so its heap is twice the state plus 512 MiB.
   */
  private static List<Row> join(Trial trial, TrialContext context) throws Exception {
    int value = (int) trial.longParam("value");
    long stateMb = trial.longParam("state");
    int entries = (int) Math.max(1, (stateMb << 20) / value);
    String heap =
        trial.implementation().equals("Larder") ? "1024m" : Math.max(1024, stateMb * 2 + 512) + "m";
    ClusterJoinTrial.Result r =
        new ClusterJoinTrial(
                trial.implementation(),
                (int) trial.longParam("joinNodes"),
                entries,
                value,
                (int) trial.longParam("threads"),
                heap,
                context::progress)
            .run();
    return List.of(
        Row.of(trial.implementation())
            .put("shape", "join (REPL_SYNC)")
            .put("bytesPerEntry", ClusterBenchTrial.join(r.bytesPerEntry()))
            .put("joinMillis", r.joinMillis())
            .put("joinMBps", Math.round(r.megabytesPerSecond() * 10) / 10.0)
            .put("joinMBpcs", Math.round(r.megabytesPerCpuSecond() * 10) / 10.0)
            .put("transferMillis", r.transferMillis())
            .put("joinerBytesPerEntry", Math.round(r.joinerBytesPerEntry()))
            .put("joinEntries", r.joinEntries())
            .put("loadMillis", r.loadMillis())
            .put("entries", entries));
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            Column.of("implementation"),
            Column.of("shape"),
            new Column("opsPerSecond", "ops/s (all members)"),
            new Column("perNode", "ops/s per member"),
            new Column("p50us", "p50 µs"),
            new Column("p99us", "p99 µs"),
            Column.of("errors"),
            new Column("bytesPerEntry", "bytes/entry per member"),
            new Column("joinMillis", "join + state ms"),
            new Column("joinMBps", "state MB/s"),
            new Column("joinMBpcs", "state MB per CPU s"),
            new Column("transferMillis", "transfer alone ms"),
            new Column("joinEntries", "entries joiner holds"),
            new Column("joinerBytesPerEntry", "joiner bytes/entry"),
            new Column("loadMillis", "load ms"),
            Column.of("entries")),
        List.of());
  }
}
