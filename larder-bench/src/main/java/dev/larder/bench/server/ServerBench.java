package dev.larder.bench.server;

import dev.larder.bench.harness.DirectoryTrees;
import dev.larder.bench.scenario.Row;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Runs one server's part of the server scenario (see {@code ServerScenario}): start it, measure
 * memory per key, run the load tools, stop it.
 */
public final class ServerBench {
  /** redis-benchmark's default tests, names of its {@code -t} option, in its order. */
  public static final List<String> REDIS_BENCHMARK_TESTS = RedisBenchmarkTests.ALL;

  private static final int CLIENTS = 50;
  private static final int MEMORY_VALUE_BYTES = 100;
  private static final long WARM_UP_KEYS = 20_000;
  private static final int MEMCASLAP_THREADS = 2;
  private static final int MEMCASLAP_VALUE_BYTES = 100;
  private final long requests;
  private final long keys;
  private final long maxMemory;
  private final List<String> parts;
  private final List<String> tests;
  private final long collectionRequests;
  private final long listPrefill;
  private final int ioThreads;
  private final String persistence;
  private final Consumer<String> progress;

  /**
   * @param requests requests per redis-benchmark run, and per memcslap test
   * @param keys keys loaded for the memory measurement
   * @param maxMemory the memory limit every server gets
   * @param parts which measurements run: memory, redis-benchmark, memcslap (the memcached load
   *     tool: memcaslap if installed, else memcslap)
   * @param tests the redis-benchmark tests, names of its {@code -t} option, run in its order
   * @param collectionRequests requests of each redis-benchmark test on a collection, at either
   *     pipeline
   * @param listPrefill elements pushed into the list tests' key, untimed, before each pass's first
   *     list test (0: none)
   * @param ioThreads Larder's event-loop threads, 0 for the server's default
   * @param persistence off, or the appendfsync policy (always, everysec, no) of a server that logs
   *     every write: Larder with a dir, Redis with appendonly yes
   * @param progress progress lines
   */
  public ServerBench(
      long requests,
      long keys,
      long maxMemory,
      List<String> parts,
      List<String> tests,
      long collectionRequests,
      long listPrefill,
      int ioThreads,
      String persistence,
      Consumer<String> progress) {
    this.persistence = persistence;
    this.requests = requests;
    this.keys = keys;
    this.maxMemory = maxMemory;
    this.parts = List.copyOf(parts);
    this.tests = RedisBenchmarkTests.ALL.stream().filter(tests::contains).toList();
    this.collectionRequests = collectionRequests;
    this.listPrefill = listPrefill;
    this.ioThreads = ioThreads;
    this.progress = progress;
  }

  /**
   * Returns the rows of that server.
   *
   * @param server Larder, Redis or memcached
   * @throws Exception if a server or tool fails
   */
  public List<Row> run(String server) throws Exception {
    String binary =
        switch (server) {
          case "Redis" -> "redis-server";
          case "memcached" -> "memcached";
          default -> null;
        };
    if (binary != null && !LoadTools.onPath(binary)) {
      return List.of(Row.unavailable(server, binary + " is not installed (Debian package)"));
    }
    List<Row> rows = new ArrayList<>();
    Path dir = persistence.equals("off") ? null : Files.createTempDirectory("larder-bench-aof-");
    try (ServerProcess p =
        switch (server) {
          case "Larder" -> ServerProcess.larder(maxMemory, ioThreads, dir, persistence);
          case "Redis" -> ServerProcess.redis(maxMemory, dir, persistence);
          default -> ServerProcess.memcached(maxMemory);
        }) {
      if (parts.contains("memory")) {
        rows.add(memory(server, p));
      }
      if (p.respPort() != 0 && parts.contains("redis-benchmark")) {
        rows.addAll(redisBenchmark(server, p));
      }
      if (p.memcachePort() != 0 && parts.contains("memcslap")) {
        rows.addAll(LoadTools.onPath("memcaslap") ? memcaslap(server, p) : memcslap(server, p));
      }
      if (p.eventLoops() > 0) {
        rows.forEach(r -> r.put("eventLoops", p.eventLoops()));
      }
    } finally {
      if (dir != null) {
        DirectoryTrees.delete(dir);
      }
    }
    rows.forEach(r -> r.put("persistence", persistence));
    return rows;
  }

  /**
   * Collects garbage and waits: HotSpot gives back the compiler's scratch memory a few seconds
   * after compiling (MEASURING.md), which would otherwise count as memory per key.
   */
  static void settle() throws InterruptedException {
    System.gc();
    Thread.sleep(6_000);
  }

  private Row memory(String server, ServerProcess p) throws Exception {
    progress.accept(server + ": loading " + keys + " keys of " + MEMORY_VALUE_BYTES + " B");
    // A warm-up load first, so that code, connection buffers and allocator pools that any first
    // load brings in are in "before" and do not count as memory per key.
    load(p, "warm:", WARM_UP_KEYS);
    if (!persistence.equals("off") && p.respPort() != 0) {
      // A rewrite during the warm-up too, so that the code of the server's rewrites (Larder's
      // checkpoints, compiled when the load triggers one) is in "before".
      KeyLoader.rewrite(p.respPort());
    }
    settle();
    long before = p.residentBytes();
    long usedBefore = p.respPort() != 0 ? KeyLoader.usedMemory(p.respPort()) : 0;
    load(p, "key:", keys);
    settle();
    long after = p.residentBytes();
    Row row =
        Row.of(server)
            .put("tool", "loader")
            .put("test", "memory")
            .put("valueBytes", MEMORY_VALUE_BYTES)
            .put("keys", keys)
            .put("bytesPerKey", (double) (after - before) / keys);
    if (p.respPort() != 0) {
      // The server's own count (INFO used_memory): for Larder it includes the on-heap index,
      // which the resident set of a pre-touched heap does not show.
      row.put(
          "usedMemoryPerKey", (double) (KeyLoader.usedMemory(p.respPort()) - usedBefore) / keys);
    }
    return row;
  }

  private static void load(ServerProcess p, String prefix, long n) throws Exception {
    if (p.respPort() != 0) {
      KeyLoader.resp(p.respPort(), prefix, n, MEMORY_VALUE_BYTES);
    } else {
      KeyLoader.memcache(p.memcachePort(), prefix, n, MEMORY_VALUE_BYTES);
    }
  }

  /**
   * redis-benchmark, after an untimed warm-up: at pipelines 1 and 16, every chosen test with
   * 100-byte values, then SET and GET with 1 KiB values; each (pipeline, size) pass starts from an
   * empty keyspace and runs the tests in redis-benchmark's order, one run each, so that the
   * server's CPU per operation is the test's.
   */
  private List<Row> redisBenchmark(String server, ServerProcess p) throws Exception {
    List<Row> rows = new ArrayList<>();
    if (!LoadTools.onPath("redis-benchmark")) {
      rows.add(Row.unavailable(server, "redis-benchmark is not installed (redis-tools)"));
      return rows;
    }
    int port = p.respPort();
    // Untimed warm-up, the same for every server: a JVM server's first requests run in its
    // interpreter and compiler, which is not the steady state the figures are about (on a
    // loaded machine its compiler threads get little CPU, and a short warm-up left a quick
    // run's pipeline-1 cells at three to five times the CPU per request of a warm server). The
    // collection tests warm up too, at their own count: a timed collection run of 20,000 requests
    // lasts a fortieth of a second on Redis at pipeline 16, so a cold one measured the compiler.
    // What they grow is gone before the timed runs: each pass starts with FLUSHALL.
    progress.accept(server + ": redis-benchmark warm-up");
    String warmTests =
        String.join(
            ",",
            java.util.stream.Stream.concat(
                    java.util.stream.Stream.of("set", "get"),
                    tests.stream().filter(t -> !RedisBenchmarkTests.onCollection(t)))
                .distinct()
                .toList());
    LoadTools.redisBenchmark(port, warmTests, CLIENTS, 16, 100, requests * 4);
    LoadTools.redisBenchmark(port, warmTests, CLIENTS, 1, 100, requests);
    String warmCollections =
        String.join(",", tests.stream().filter(RedisBenchmarkTests::onCollection).toList());
    if (!warmCollections.isEmpty()) {
      for (int pipeline : new int[] {16, 1}) {
        KeyLoader.command(port, "FLUSHALL");
        LoadTools.redisBenchmark(port, warmCollections, CLIENTS, pipeline, 100, collectionRequests);
      }
    }
    for (int pipeline : new int[] {1, 16}) {
      for (int size : new int[] {100, 1024}) {
        List<String> pass =
            size == 100
                ? tests
                : tests.stream().filter(t -> t.equals("set") || t.equals("get")).toList();
        if (pass.isEmpty()) {
          continue;
        }
        progress.accept(server + ": redis-benchmark -P " + pipeline + " -d " + size + " " + pass);
        KeyLoader.command(port, "FLUSHALL");
        boolean prefilled = false;
        for (String test : pass) {
          if (listPrefill > 0 && !prefilled && RedisBenchmarkTests.growsTheList(test)) {
            progress.accept(server + ": " + listPrefill + " elements into the list, untimed");
            LoadTools.redisBenchmark(port, "lpush", CLIENTS, 16, size, listPrefill);
            prefilled = true;
          }
          rows.addAll(redisBenchmarkTest(server, p, test, pipeline, size));
        }
      }
    }
    return rows;
  }

  /**
   * One test's run: a row for each line redis-benchmark prints (an LRANGE test prints its LPUSH
   * first), with the server's CPU per operation on the test's own row when the run is that test
   * alone.
   */
  private List<Row> redisBenchmarkTest(
      String server, ServerProcess p, String test, int pipeline, int size) throws Exception {
    int port = p.respPort();
    for (String key : RedisBenchmarkTests.keysToRemoveBefore(test)) {
      KeyLoader.command(port, "DEL", key);
    }
    // String tests scale with the pipeline, so that each run lasts about as long; collection tests
    // run the same count at both (see the collection-requests parameter).
    long ops = RedisBenchmarkTests.onCollection(test) ? collectionRequests : requests * pipeline;
    long before = p.cpuTicks();
    List<LoadTools.Result> results =
        LoadTools.redisBenchmark(port, test, CLIENTS, pipeline, size, ops);
    double cpu = cpuMicrosPerOp(p, before, ops);
    List<Row> rows = new ArrayList<>();
    for (LoadTools.Result r : results) {
      Row row =
          Row.of(server)
              .put("tool", "redis-benchmark")
              .put("test", r.test())
              .put("pipeline", pipeline)
              .put("valueBytes", size)
              .put("requests", ops)
              .put("listPrefill", RedisBenchmarkTests.growsTheList(test) ? listPrefill : 0)
              .put("opsPerSec", r.opsPerSec())
              .put("p50Ms", r.p50Ms())
              .put("p99Ms", r.p99Ms());
      if (RedisBenchmarkTests.runsAlone(test)) {
        row.put("cpuUsPerOp", cpu);
      }
      rows.add(row);
    }
    return rows;
  }

  /**
   * Puts on each Larder redis-benchmark row its ops/s over Redis's for the same test, pipeline,
   * value size and persistence, where Redis ran in the same trial.
   *
   * @param rows every server's rows of one trial
   */
  public static void addRatios(List<Row> rows) {
    for (Row larder : rows) {
      if (!larder.implementation().equals("Larder")
          || !larder.measured()
          || !"redis-benchmark".equals(larder.get("tool"))) {
        continue;
      }
      for (Row redis : rows) {
        if (redis.implementation().equals("Redis")
            && redis.measured()
            && "redis-benchmark".equals(redis.get("tool"))
            && java.util.Objects.equals(redis.get("test"), larder.get("test"))
            && java.util.Objects.equals(redis.get("pipeline"), larder.get("pipeline"))
            && java.util.Objects.equals(redis.get("valueBytes"), larder.get("valueBytes"))
            && java.util.Objects.equals(redis.get("persistence"), larder.get("persistence"))) {
          larder.put("xRedis", larder.number("opsPerSec") / redis.number("opsPerSec"));
        }
      }
    }
  }

  /**
   * The memcached part with memcaslap (libmemcached's memaslap, in libmemcached-tools): event
   * driven, {@value #MEMCASLAP_THREADS} threads and {@value #CLIENTS} connections, values of a
   * fixed {@value #MEMCASLAP_VALUE_BYTES} bytes, for a time that follows {@code requests} (one
   * second per 25,000, 2 to 60 s), after an untimed quarter-length run of each test. Its get test
   * first loads one window of keys per connection (untimed by memcaslap, counted in the CPU per
   * operation with every other operation it sent).
   */
  private List<Row> memcaslap(String server, ServerProcess p) throws Exception {
    long seconds = Math.clamp(requests / 25_000, 2, 60);
    progress.accept(server + ": memcaslap warm-up");
    for (String test : List.of("set", "get")) {
      LoadTools.memcaslap(
          p.memcachePort(),
          test,
          MEMCASLAP_THREADS,
          CLIENTS,
          Math.max(1, seconds / 4),
          MEMCASLAP_VALUE_BYTES);
    }
    progress.accept(server + ": memcaslap set and get, " + seconds + " s each");
    List<Row> rows = new ArrayList<>();
    for (String test : List.of("set", "get")) {
      long before = p.cpuTicks();
      LoadTools.Memcaslap m =
          LoadTools.memcaslap(
              p.memcachePort(), test, MEMCASLAP_THREADS, CLIENTS, seconds, MEMCASLAP_VALUE_BYTES);
      rows.add(
          Row.of(server)
              .put("tool", "memcaslap")
              .put("test", m.result().test())
              .put("pipeline", 1)
              .put("valueBytes", MEMCASLAP_VALUE_BYTES)
              .put("opsPerSec", m.result().opsPerSec())
              .put("cpuUsPerOp", cpuMicrosPerOp(p, before, m.operations())));
    }
    return rows;
  }

  /** The memcached part with memcslap, where memcaslap is not installed. */
  private List<Row> memcslap(String server, ServerProcess p) throws Exception {
    if (!LoadTools.onPath("memcslap")) {
      return List.of(Row.unavailable(server, "memcslap is not installed (libmemcached-tools)"));
    }
    long perThread = Math.max(1, requests / CLIENTS);
    progress.accept(server + ": memcslap warm-up");
    for (String test : List.of("set", "get")) {
      LoadTools.memcslap(p.memcachePort(), test, CLIENTS, Math.max(1, perThread / 4));
    }
    progress.accept(server + ": memcslap set and get");
    List<Row> rows = new ArrayList<>();
    for (String test : List.of("set", "get")) {
      long before = p.cpuTicks();
      LoadTools.Result r = LoadTools.memcslap(p.memcachePort(), test, CLIENTS, perThread);
      rows.add(
          Row.of(server)
              .put("tool", "memcslap")
              .put("test", r.test())
              .put("pipeline", 1)
              .put("opsPerSec", r.opsPerSec())
              .put("cpuUsPerOp", cpuMicrosPerOp(p, before, perThread * CLIENTS)));
    }
    return rows;
  }

  /**
   * The server's CPU time (user and system, every thread) per operation since {@code before}: a
   * figure that other work on a shared machine changes much less than ops/s. memcslap's get test
   * first loads its keys, untimed by memcslap but counted here.
   */
  private static double cpuMicrosPerOp(ServerProcess p, long beforeTicks, long ops)
      throws java.io.IOException {
    return (p.cpuTicks() - beforeTicks) * 10_000.0 / ops;
  }
}
