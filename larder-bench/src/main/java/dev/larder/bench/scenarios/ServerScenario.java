package dev.larder.bench.scenarios;

import dev.larder.bench.scenario.ChartSpec;
import dev.larder.bench.scenario.Parameter;
import dev.larder.bench.scenario.Presentation;
import dev.larder.bench.scenario.Presentation.Column;
import dev.larder.bench.scenario.Row;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Scenario;
import dev.larder.bench.scenario.Trial;
import dev.larder.bench.scenario.TrialContext;
import dev.larder.bench.server.ServerBench;
import java.util.List;
import java.util.Map;

/**
 * The server comparison: Larder's server, redis-server (persistence off) and memcached, each with
 * the same memory limit, in the same run. redis-benchmark SET and GET with 50 clients, pipelines of
 * 1 and 16, values of 100 B and 1 KiB (Larder and Redis); memcaslap set and get with 2 threads, 50
 * connections and 100 B values (Larder's memcached port and memcached), or memcslap with 50 threads
 * where memcaslap is not installed, after an untimed warm-up pass of each tool; ops/s, latency
 * where the tool gives it, and the server process's CPU time per operation; memory per key: the
 * server's resident memory after loading n keys of 100 B minus before, over n. Servers that are not
 * installed give unavailable rows.
 */
public final class ServerScenario implements Scenario {

  private static final Parameter.WholeNumber REQUESTS =
      new Parameter.WholeNumber("requests", 1_000, 1_000_000_000, 200_000, 20_000);
  private static final Parameter.WholeNumber KEYS =
      new Parameter.WholeNumber("keys", 1, 1_000_000_000, 1_000_000, 100_000);
  private static final Parameter.WholeNumber MAXMEMORY =
      new Parameter.WholeNumber("maxmemory", 1L << 20, 1L << 40, 1L << 30, 1L << 30);

  /** Larder's event-loop threads; 0 leaves the server's default. */
  private static final Parameter.WholeNumber IO_THREADS =
      new Parameter.WholeNumber("io-threads", 0, 256, 0, 0);

  private static final List<String> PART_NAMES = List.of("memory", "redis-benchmark", "memcslap");

  /** Which measurements run: memory alone needs no load tool and little CPU. */
  private static final Parameter.Choices PARTS =
      new Parameter.Choices("parts", PART_NAMES, PART_NAMES, PART_NAMES);

  static final List<String> SERVERS = List.of("Larder", "Redis", "memcached");

  /**
   * off, or the appendfsync policy of servers that log every write (Larder with a dir, Redis with
   * appendonly yes); memcached runs only with off.
   */
  private static final Parameter.Choices PERSISTENCE =
      new Parameter.Choices(
          "persistence",
          List.of("off", "always", "everysec", "no"),
          List.of("off"),
          List.of("off"));

  @Override
  public String name() {
    return "server";
  }

  @Override
  public String summary() {
    return "server comparison: Larder vs redis-server vs memcached on their own load tools, memory/key";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(REQUESTS, KEYS, MAXMEMORY, PARTS, IO_THREADS, PERSISTENCE);
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    // A server none of the chosen parts measures gets no trial (memcached has nothing to do
    // under -P parts=redis-benchmark, and Redis nothing under -P parts=memcslap); Larder
    // speaks both protocols.
    List<String> parts = PARTS.get(options);
    List<String> servers =
        SERVERS.stream()
            .filter(
                s ->
                    parts.contains("memory")
                        || switch (s) {
                          case "Redis" -> parts.contains("redis-benchmark");
                          case "memcached" -> parts.contains("memcslap");
                          default -> true;
                        })
            .toList();
    List<Trial> trials = new java.util.ArrayList<>();
    for (String persistence : PERSISTENCE.get(options)) {
      for (Trial t : Trial.eachIncluded(servers, options)) {
        if (persistence.equals("off") || !t.implementation().equals("memcached")) {
          trials.add(
              new Trial(
                  t.implementation(),
                  t.implementation() + (persistence.equals("off") ? "" : " " + persistence),
                  Map.of("persistence", persistence)));
        }
      }
    }
    return trials;
  }

  @Override
  public String heapSize(RunOptions options) {
    return "1g";
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws Exception {
    RunOptions o = context.options();
    ServerBench bench =
        new ServerBench(
            REQUESTS.get(o),
            KEYS.get(o),
            MAXMEMORY.get(o),
            PARTS.get(o),
            (int) IO_THREADS.get(o),
            trial.params().getOrDefault("persistence", "off"),
            context::progress);
    return bench.run(trial.implementation());
  }

  /** A server's trial runs eight redis-benchmark runs or two memcslap runs after a load. */
  @Override
  public int trialTimeoutSeconds(RunOptions options) {
    return options.quick() ? 900 : 3600;
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            Column.of("implementation"),
            Column.of("persistence"),
            Column.of("tool"),
            Column.of("test"),
            Column.of("pipeline"),
            new Column("valueBytes", "value bytes"),
            new Column("opsPerSec", "ops/s"),
            new Column("p50Ms", "p50 ms"),
            new Column("p99Ms", "p99 ms"),
            new Column("cpuUsPerOp", "server CPU us/op"),
            new Column("eventLoops", "event loops"),
            new Column("bytesPerKey", "bytes/key (RSS)"),
            new Column("usedMemoryPerKey", "bytes/key (used_memory)")),
        List.of(
            new ChartSpec(
                "",
                "redis-benchmark, 50 clients",
                "test",
                "implementation",
                "opsPerSec",
                "operations per second",
                false,
                Map.of("tool", "redis-benchmark"))));
  }
}
