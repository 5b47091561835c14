package dev.larder.bench.cluster;

import dev.larder.bench.scenario.Parameter;
import dev.larder.bench.scenario.Presentation;
import dev.larder.bench.scenario.Presentation.Column;
import dev.larder.bench.scenario.Row;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Scenario;
import dev.larder.bench.scenario.Trial;
import dev.larder.bench.scenario.TrialContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./larder bench server-cluster}: three Larder members (distributed, two owners per key,
 * SYNC and ASYNC replication) against a Redis Cluster of three masters and of three masters with a
 * replica each, every one started by its trial on 127.0.0.1 (redis-server with {@code
 * --cluster-enabled yes}, joined by {@code redis-cli --cluster create}). For each: memory per key
 * after {@code keys} SETs of {@code value}-byte values (the processes' resident growth over the
 * keys held, each key counted once, over a baseline taken after an untimed warm-up of a tenth as
 * many SETs and GETs), then {@code redis-benchmark --cluster} SET and GET at each pipeline depth of
 * {@code pipelines}, {@code clients} connections, {@code requests} requests. Larder with two owners
 * and Redis with a replica per master both keep two copies of each key.
 */
public final class ServerClusterBenchScenario implements Scenario {

  private static final Parameter.WholeNumber KEYS =
      new Parameter.WholeNumber("keys", 1_000, 100_000_000, 1_000_000, 100_000);
  private static final Parameter.WholeNumber VALUE =
      new Parameter.WholeNumber("value", 1, 1_000_000, 100, 100);
  private static final Parameter.WholeNumber REQUESTS =
      new Parameter.WholeNumber("requests", 1_000, 1_000_000_000, 1_000_000, 50_000);
  private static final Parameter.WholeNumber CLIENTS =
      new Parameter.WholeNumber("clients", 1, 10_000, 50, 50);
  private static final Parameter.WholeNumbers PIPELINES =
      new Parameter.WholeNumbers("pipelines", 1, 1_000, List.of(1L, 16L), List.of(1L, 16L));
  private static final Parameter.Choices SUBJECTS =
      new Parameter.Choices(
          "subjects",
          List.of("larder-sync", "larder-async", "larder-tx", "redis-3", "redis-3+3"),
          List.of("larder-sync", "larder-async", "redis-3", "redis-3+3"),
          List.of("larder-sync", "larder-async", "redis-3", "redis-3+3"));

  /**
   * Each Larder member's event loops ({@code cluster-command-threads}); 0: the server's default.
   */
  private static final Parameter.WholeNumber LOOPS =
      new Parameter.WholeNumber("loops", 0, 4096, 0, 0);

  private static final long MAX_MEMORY = 1L << 30;

  /**
   * How long the processes settle after a load before their memory is read: HotSpot gives back its
   * compilers' memory about 5 s after they finish (MEASURING.md).
   */
  private static final long SETTLE_MILLIS = 6_000;

  @Override
  public String name() {
    return "server-cluster";
  }

  @Override
  public String summary() {
    return "3 clustered Larder servers vs Redis Cluster (3 masters, 3+3): redis-benchmark"
        + " --cluster SET/GET, memory per key";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(KEYS, VALUE, REQUESTS, CLIENTS, PIPELINES, SUBJECTS, LOOPS);
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    List<Trial> trials = new ArrayList<>();
    for (String subject : SUBJECTS.get(options)) {
      String name =
          switch (subject) {
            case "larder-sync" -> "Larder 3 members SYNC (owners 2)";
            case "larder-async" -> "Larder 3 members ASYNC (owners 2)";
            case "larder-tx" -> "Larder 3 members cluster transactions (replicated)";
            case "redis-3" -> "Redis Cluster 3 masters";
            default -> "Redis Cluster 3 masters + 3 replicas";
          };
      if (options.includes(name)) {
        trials.add(
            new Trial(
                name,
                subject,
                Map.of(
                    "subject",
                    subject,
                    "keys",
                    String.valueOf(KEYS.get(options)),
                    "value",
                    String.valueOf(VALUE.get(options)),
                    "requests",
                    String.valueOf(REQUESTS.get(options)),
                    "clients",
                    String.valueOf(CLIENTS.get(options)),
                    "loops",
                    String.valueOf(LOOPS.get(options)),
                    "pipelines",
                    String.join(
                        ",", PIPELINES.get(options).stream().map(String::valueOf).toList()))));
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
    return options.quick() ? 900 : 3600;
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws Exception {
    for (String tool : List.of("redis-server", "redis-cli", "redis-benchmark")) {
      if (!onPath(tool)) {
        return List.of(
            Row.unavailable(
                trial.implementation(),
                tool + " is not installed" + " (Debian package redis-server / redis-tools)"));
      }
    }
    String subject = trial.param("subject");
    int loops = (int) trial.longParam("loops");
    List<Row> rows = new ArrayList<>();
    try (BenchedCluster cluster =
        switch (subject) {
          case "larder-sync" -> BenchedCluster.larder("sync", MAX_MEMORY, loops);
          case "larder-tx" -> BenchedCluster.larderTransactional(MAX_MEMORY, loops);
          case "larder-async" -> BenchedCluster.larder("async", MAX_MEMORY, loops);
          case "redis-3" -> BenchedCluster.redis(3, 0, MAX_MEMORY);
          default -> BenchedCluster.redis(3, 1, MAX_MEMORY);
        }) {
      long keys = trial.longParam("keys");
      int value = (int) trial.longParam("value");
      // Every cluster gets the same untimed warm-up before the baseline: a JVM member compiles
      // its hot paths during its first requests and gives the compiler's memory back some
      // seconds later (MEASURING.md), growth that belongs to no key. The warm-up's keys are in
      // the baseline and left out of the keys counted.
      long warmUp = Math.max(1_000, keys / 10);
      context.progress("warming up with " + warmUp + " SETs and GETs");
      benchmark(cluster.entryPort(), "set", 50, 16, value, warmUp, keys);
      benchmark(cluster.entryPort(), "get", 50, 16, value, warmUp, keys);
      Thread.sleep(SETTLE_MILLIS);
      long heldBefore = cluster.keys();
      long before = cluster.residentBytes();
      context.progress("loading " + keys + " keys");
      benchmark(cluster.entryPort(), "set", 50, 16, value, keys, keys);
      Thread.sleep(SETTLE_MILLIS);
      long held = cluster.keys() - heldBefore;
      long after = cluster.residentBytes();
      rows.add(
          Row.of(trial.implementation())
              .put("test", "memory")
              .put("keys", held)
              .put("bytesPerKey", held <= 0 ? 0 : (double) (after - before) / held)
              .put("residentMiB", after / (1024.0 * 1024.0)));
      for (String pipeline : trial.param("pipelines").split(",", -1)) {
        for (String test : List.of("set", "get")) {
          context.progress(test + " pipeline " + pipeline);
          long forwardedBefore = cluster.forwarded();
          long cpuBefore = cluster.cpuNanos();
          double[] r =
              benchmark(
                  cluster.entryPort(),
                  test,
                  (int) trial.longParam("clients"),
                  Integer.parseInt(pipeline),
                  value,
                  trial.longParam("requests"),
                  keys);
          long cpu = cluster.cpuNanos() - cpuBefore;
          Row row =
              Row.of(trial.implementation())
                  .put("test", test.toUpperCase(Locale.ROOT))
                  .put("pipeline", Integer.parseInt(pipeline))
                  .put("rps", r[0])
                  .put("p50Ms", r[1])
                  .put("p99Ms", r[2])
                  // every process of the cluster, per request: the cost a rate on a shared host
                  // hides
                  .put("cpuUsPerRequest", cpu / 1_000.0 / trial.longParam("requests"));
          if (forwardedBefore >= 0) {
            // what the members handed to one another during the run: 0 when the slot map sends
            // every request to its key's primary
            row.put("forwards", cluster.forwarded() - forwardedBefore);
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  /** Returns requests per second, p50 and p99 latency (ms) of one redis-benchmark --cluster run. */
  private static double[] benchmark(
      int port, String test, int clients, int pipeline, int value, long requests, long keyspace)
      throws IOException, InterruptedException {
    List<String> command =
        List.of(
            "redis-benchmark",
            "--cluster",
            "-h",
            "127.0.0.1",
            "-p",
            Integer.toString(port),
            "-t",
            test,
            "-c",
            Integer.toString(clients),
            "-P",
            Integer.toString(pipeline),
            "-d",
            Integer.toString(value),
            "-n",
            Long.toString(requests),
            "-r",
            Long.toString(keyspace),
            "--csv");
    java.nio.file.Path out = java.nio.file.Files.createTempFile("redis-benchmark", ".csv");
    String text;
    try {
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .start();
      long limit = Math.max(600, requests / 1_000);
      boolean done = p.waitFor(limit, TimeUnit.SECONDS);
      if (!done) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      text = java.nio.file.Files.readString(out, StandardCharsets.UTF_8);
      if (!done || p.exitValue() != 0) {
        throw new IOException(
            String.join(" ", command)
                + (done ? " failed: " : " did not finish in " + limit + " s: ")
                + text);
      }
    } finally {
      java.nio.file.Files.deleteIfExists(out);
    }
    for (String line : text.split("\n", -1)) {
      String[] f = line.replace("\"", "").split(",", -1);
      if (f.length >= 7 && f[0].equalsIgnoreCase(test)) {
        return new double[] {
          Double.parseDouble(f[1]), Double.parseDouble(f[4]), Double.parseDouble(f[6])
        };
      }
    }
    throw new IOException("redis-benchmark --cluster gave no " + test + " figure: " + text);
  }

  private static boolean onPath(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":", -1)) {
      if (!dir.isEmpty() && java.nio.file.Files.isExecutable(java.nio.file.Path.of(dir, tool))) {
        return true;
      }
    }
    return false;
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            Column.of("implementation"),
            Column.of("test"),
            Column.of("pipeline"),
            new Column("rps", "requests/s"),
            new Column("p50Ms", "p50 ms"),
            new Column("p99Ms", "p99 ms"),
            new Column("cpuUsPerRequest", "CPU µs/request"),
            Column.of("forwards"),
            Column.of("keys"),
            new Column("bytesPerKey", "resident bytes per key"),
            new Column("residentMiB", "resident MiB")),
        List.of());
  }
}
