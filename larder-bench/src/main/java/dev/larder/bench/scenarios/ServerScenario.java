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
 * the same memory limit, in the same run. redis-benchmark's default tests (PING, SET, GET, INCR,
 * list, set, hash and sorted-set pushes and pops, LRANGE, MSET: {@code -P tests=} chooses) with 50
 * clients, pipelines of 1 and 16, values of 100 B, and SET and GET also with 1 KiB values (Larder
 * and Redis, in one trial, so that each Larder row gives its ratio to Redis's ops/s); memcaslap set
 * and get with 2 threads, 50 connections and 100 B values (Larder's memcached port and memcached),
 * or memcslap with 50 threads where memcaslap is not installed, after an untimed warm-up pass of
 * each tool; ops/s, latency where the tool gives it, and the server process's CPU time per
 * operation; memory per key: the server's resident memory after loading n keys of 100 B minus
 * before, over n. Servers that are not installed give unavailable rows.
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

  /** redis-benchmark's tests to run, in its own order whatever the order given. */
  private static final Parameter.Choices TESTS =
      new Parameter.Choices(
          "tests",
          ServerBench.REDIS_BENCHMARK_TESTS,
          ServerBench.REDIS_BENCHMARK_TESTS,
          ServerBench.REDIS_BENCHMARK_TESTS);

  /**
   * Requests of each redis-benchmark test on a collection (the list, set, hash and sorted-set
   * tests), the same at both pipelines and in their untimed warm-up: these tests grow or read one
   * key, so the count sets how large that key gets. String tests run {@code requests} times the
   * pipeline.
   */
  private static final Parameter.WholeNumber COLLECTION_REQUESTS =
      new Parameter.WholeNumber("collection-requests", 100, 1_000_000_000, 20_000, 2_000);

  /**
   * Elements pushed into the list tests' key before each pass's list tests, untimed (0: none): so
   * that LPUSH, RPUSH, LPOP and RPOP run on a list of that size. A list past a quarter of Larder's
   * open-collection budget (16 MiB at the default maxmemory of 1 GiB) does not open, and its
   * commands take the store's path.
   */
  private static final Parameter.WholeNumber LIST_PREFILL =
      new Parameter.WholeNumber("list-prefill", 0, 100_000_000, 0, 0);

  static final List<String> SERVERS = List.of("Larder", "Redis", "memcached");

  /** The servers that speak RESP: measured in one trial, for the ratios. */
  private static final List<String> RESP_SERVERS = List.of("Larder", "Redis");

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
    return List.of(
        REQUESTS,
        KEYS,
        MAXMEMORY,
        PARTS,
        TESTS,
        COLLECTION_REQUESTS,
        LIST_PREFILL,
        IO_THREADS,
        PERSISTENCE);
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
      String suffix = persistence.equals("off") ? "" : " " + persistence;
      List<String> resp =
          servers.stream().filter(RESP_SERVERS::contains).filter(options::includes).toList();
      if (!resp.isEmpty()) {
        trials.add(
            new Trial(
                resp.getFirst(),
                String.join(", ", resp) + suffix,
                Map.of("persistence", persistence, Trial.IMPLEMENTATIONS, String.join(",", resp))));
      }
      if (persistence.equals("off")
          && servers.contains("memcached")
          && options.includes("memcached")) {
        trials.add(new Trial("memcached", "memcached", Map.of("persistence", persistence)));
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
            TESTS.get(o),
            COLLECTION_REQUESTS.get(o),
            LIST_PREFILL.get(o),
            (int) IO_THREADS.get(o),
            trial.params().getOrDefault("persistence", "off"),
            context::progress);
    List<Row> rows = new java.util.ArrayList<>();
    for (String server : trial.implementations()) {
      rows.addAll(bench.run(server));
    }
    ServerBench.addRatios(rows);
    return rows;
  }

  /**
   * The RESP trial runs two servers, each through 19 tests at two pipelines (plus SET and GET with
   * 1 KiB values) after a load.
   */
  @Override
  public int trialTimeoutSeconds(RunOptions options) {
    return options.quick() ? 1800 : 7200;
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
            Column.of("requests"),
            new Column("listPrefill", "list elements before"),
            new Column("opsPerSec", "ops/s"),
            new Column("xRedis", "x Redis ops/s"),
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
