package dev.larder.bench.cluster;

import dev.larder.bench.harness.FreshPortStart;
import dev.larder.bench.harness.FreshPortStart.PortSource;
import dev.larder.bench.harness.LoopbackChild;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import redis.clients.jedis.Jedis;

/**
 * A cluster under {@code ./larder bench server-cluster}, on 127.0.0.1: three Larder members (child
 * JVMs, {@link ServerClusterNode}), or a Redis Cluster of redis-server processes made with {@code
 * redis-cli --cluster create}. Knows the port a cluster-aware client starts from, the resident
 * memory of all its processes, and how many keys it holds. Closing stops every process and deletes
 * their files.
 */
abstract class BenchedCluster implements AutoCloseable {

  /** Returns the RESP port redis-benchmark --cluster starts from. */
  abstract int entryPort();

  /** Returns the process ids whose resident memory is the cluster's. */
  abstract List<Long> pids();

  /** Returns the keys the cluster holds, each counted once (not once per copy). */
  abstract long keys();

  /**
   * Returns the single-key operations the members handed to one another so far (a write sent to its
   * key's primary, a read sent to an owner), or -1 where the cluster does not forward (Redis
   * redirects instead).
   */
  abstract long forwarded() throws InterruptedException;

  /** Returns the sum of the processes' resident set sizes, in bytes. */
  long residentBytes() throws IOException {
    long total = 0;
    for (long pid : pids()) {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          total += Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    }
    return total;
  }

  /**
   * Returns the CPU time (user and system) the cluster's processes have used so far, in
   * nanoseconds; a process whose time the platform does not report counts 0.
   */
  long cpuNanos() {
    long total = 0;
    for (long pid : pids()) {
      total +=
          ProcessHandle.of(pid)
              .flatMap(h -> h.info().totalCpuDuration())
              .map(java.time.Duration::toNanos)
              .orElse(0L);
    }
    return total;
  }

  @Override
  public abstract void close();

  /**
   * Three Larder members in one cluster, distributed with two owners per key.
   *
   * @param replication sync or async
   * @param maxMemory each member's maxmemory, bytes
   * @param loops each member's event loops ({@code cluster-command-threads}), or 0 for the server's
   *     default
   */
  static BenchedCluster larder(String replication, long maxMemory, int loops) throws Exception {
    return larderWith(
        maxMemory,
        loops,
        "cluster-mode=distributed",
        "cluster-owners=2",
        "cluster-replication=" + replication);
  }

  /**
   * Three Larder servers whose keyspace commits through cluster transactions ({@code
   * cluster-transactions on}: replicated, synchronous; every write a two-phase commit).
   *
   * @param maxMemory each member's maxmemory, bytes
   * @param loops each member's event loops, or 0 for the server's default
   */
  static BenchedCluster larderTransactional(long maxMemory, int loops) throws Exception {
    return larderWith(maxMemory, loops, "cluster-mode=replicated", "cluster-transactions=on");
  }

  /** Three Larder servers with {@code mode}'s settings added to the common ones. */
  private static BenchedCluster larderWith(long maxMemory, int loops, String... mode)
      throws Exception {
    return larderWith(new LarderMembers("512m", maxMemory, loops, PortSource.FREE), mode);
  }

  /**
   * How the Larder members are started: each member JVM's heap (-Xms = -Xmx, pre-touched), each
   * server's maxmemory and event loops, and where their ports come from.
   *
   * @param heap the member JVMs' heap, e.g. "512m"
   * @param maxMemory each member's maxmemory, bytes
   * @param loops each member's event loops, or 0 for the server's default
   * @param ports where the members' ports are taken from
   */
  record LarderMembers(String heap, long maxMemory, int loops, PortSource ports) {}

  /**
   * Three Larder servers with {@code mode}'s settings added to the common ones, started in
   * parallel. A member whose port was taken between found free and bound starts again on fresh ones
   * ({@link ServerMembers#start}); the members started after it name its new cluster port in their
   * peers, and those started before find it by discovery, as in the fault trials.
   */
  static BenchedCluster larderWith(LarderMembers how, String... mode) throws Exception {
    int nodes = 3;
    int[] resp = new int[nodes];
    int[] cluster = new int[nodes];
    for (int i = 0; i < nodes; i++) {
      resp[i] = how.ports().freePort();
      // the transactional store's channel listens 1000 above the cluster port
      cluster[i] = how.ports().freePortWith(1000);
    }
    String name = "bench-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    // the members' standard error, which says which port was taken
    Path errors = Files.createTempDirectory("larder-bench-cluster");
    List<MemberProcess> members = new ArrayList<>();
    try {
      List<Thread> starters = new ArrayList<>();
      List<Exception> failures = new ArrayList<>();
      MemberProcess[] started = new MemberProcess[nodes];
      for (int i = 0; i < nodes; i++) {
        int m = i;
        Thread t =
            new Thread(
                () -> {
                  try {
                    started[m] =
                        ServerMembers.start(
                            true,
                            () -> startMember(how, m, resp, cluster, name, errors, mode),
                            () -> {
                              synchronized (cluster) {
                                resp[m] = how.ports().freePort();
                                cluster[m] = how.ports().freePortWith(1000);
                              }
                            });
                  } catch (Exception e) {
                    synchronized (failures) {
                      failures.add(e);
                    }
                  }
                });
        t.start();
        starters.add(t);
      }
      for (Thread t : starters) {
        t.join(TimeUnit.MINUTES.toMillis(3));
      }
      for (MemberProcess m : started) {
        if (m != null) {
          members.add(m);
        }
      }
      if (!failures.isEmpty() || members.size() < nodes) {
        throw new IllegalStateException("Larder members did not start: " + failures);
      }
      MemberProcess.awaitMembers(members, nodes);
      for (MemberProcess m : members) {
        m.ask("rebalanced", 60);
      }
    } catch (Exception | Error e) {
      for (MemberProcess m : members) {
        m.stop();
      }
      delete(errors);
      throw e;
    }
    return new BenchedCluster() {
      @Override
      int entryPort() {
        return resp[0];
      }

      @Override
      List<Long> pids() {
        return members.stream().map(m -> m.process.pid()).toList();
      }

      @Override
      long keys() {
        try (Jedis j = new Jedis("127.0.0.1", resp[0], 120_000)) {
          return j.dbSize();
        }
      }

      @Override
      long forwarded() throws InterruptedException {
        long sum = 0;
        for (MemberProcess m : members) {
          sum += Long.parseLong(m.ask("forwarded", 30));
        }
        return sum;
      }

      @Override
      public void close() {
        for (MemberProcess m : members) {
          try {
            m.stop();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
        delete(errors);
      }
    };
  }

  /** Starts member {@code m} on its current ports, naming every member's current cluster port. */
  private static MemberProcess startMember(
      LarderMembers how, int m, int[] resp, int[] cluster, String name, Path errors, String[] mode)
      throws Exception {
    List<String> settings = new ArrayList<>();
    synchronized (cluster) {
      settings.addAll(
          List.of(
              "resp-port=" + resp[m],
              "memcache-port=-1",
              "http-port=-1",
              "maxmemory=" + how.maxMemory(),
              "idle-timeout-seconds=0",
              "max-connections=100000",
              "cluster=" + name,
              "cluster-port=" + cluster[m],
              "peers=" + ServerMembers.peers(cluster),
              "cluster-node-name=m" + m,
              "cluster-size=" + resp.length));
    }
    settings.addAll(List.of(mode));
    if (how.loops() > 0) {
      settings.add("cluster-command-threads=" + how.loops());
    }
    return MemberProcess.start(
        how.heap(),
        errors.resolve("m" + m + "-" + System.nanoTime() + ".err"),
        ServerClusterNode.class,
        settings.toArray(String[]::new));
  }

  /**
   * A Redis Cluster of {@code masters} masters with {@code replicas} replicas each, from Debian's
   * redis-server (persistence off, the same maxmemory per process) and {@code redis-cli --cluster
   * create}.
   */
  static BenchedCluster redis(int masters, int replicas, long maxMemory) throws Exception {
    return redis(masters, replicas, maxMemory, PortSource.FREE);
  }

  /**
   * Like {@link #redis(int, int, long)}, on ports from {@code ports}. Each node binds its port and
   * the cluster bus port 10,000 above it; a node that finds either taken by the time it binds
   * starts again on fresh ones ({@link FreshPortStart}), before the cluster is made.
   */
  static BenchedCluster redis(int masters, int replicas, long maxMemory, PortSource ports)
      throws Exception {
    Path dir = Files.createTempDirectory("larder-bench-redis-cluster");
    List<Process> processes = new ArrayList<>();
    List<Integer> nodePorts = new ArrayList<>();
    try {
      for (int i = 0; i < masters * (1 + replicas); i++) {
        Process p =
            FreshPortStart.start(
                "redis-server (cluster node)",
                () -> {
                  int port = ports.freePortWith(REDIS_BUS_OFFSET);
                  Process node = startRedisNode(dir, port, maxMemory);
                  nodePorts.add(port);
                  return node;
                });
        processes.add(p);
      }
      List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
      for (int port : nodePorts) {
        create.add("127.0.0.1:" + port);
      }
      create.addAll(List.of("--cluster-replicas", Integer.toString(replicas), "--cluster-yes"));
      Process cli =
          new ProcessBuilder(create)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!cli.waitFor(120, TimeUnit.SECONDS) || cli.exitValue() != 0) {
        cli.destroyForcibly();
        throw new IOException("redis-cli --cluster create failed: " + create);
      }
      awaitRedisCluster(nodePorts, masters);
    } catch (Exception | Error e) {
      processes.forEach(LoopbackChild::stop);
      delete(dir);
      throw e;
    }
    return new BenchedCluster() {
      @Override
      int entryPort() {
        return nodePorts.getFirst();
      }

      @Override
      List<Long> pids() {
        return processes.stream().map(Process::pid).toList();
      }

      @Override
      long keys() {
        long keys = 0;
        for (int port : nodePorts) {
          try (Jedis j = new Jedis("127.0.0.1", port, 60_000)) {
            if (j.info("replication").contains("role:master")) {
              keys += j.dbSize();
            }
          }
        }
        return keys;
      }

      @Override
      long forwarded() {
        return -1;
      }

      @Override
      public void close() {
        processes.forEach(LoopbackChild::stop);
        delete(dir);
      }
    };
  }

  /** How far above a Redis Cluster node's port its cluster bus listens. */
  private static final int REDIS_BUS_OFFSET = 10_000;

  /**
   * Starts one redis-server cluster node on {@code port} (and its bus port) and waits until it
   * answers PING; its output goes to a file in {@code dir}, quoted when it does not start.
   */
  private static Process startRedisNode(Path dir, int port, long maxMemory)
      throws IOException, InterruptedException {
    Path output = dir.resolve("node-" + port + ".out");
    Process p =
        new ProcessBuilder(
                "redis-server",
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                dir.resolve("nodes-" + port + ".conf").toString(),
                "--dir",
                dir.toString(),
                "--save",
                "",
                "--appendonly",
                "no",
                "--maxmemory",
                Long.toString(maxMemory),
                "--maxmemory-policy",
                "allkeys-lru",
                "--protected-mode",
                "no",
                "--daemonize",
                "no",
                "--cluster-node-timeout",
                "5000")
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    try {
      // a PONG, not a connection: a stranger may hold a port taken before the node bound it
      LoopbackChild.awaitPong(p, port, "redis-server (cluster node)");
    } catch (IOException e) {
      throw new IOException(e.getMessage() + "; its output ends: " + LoopbackChild.tail(output), e);
    }
    return p;
  }

  /** Waits (at most 60 s) until every node says the cluster is ok and sees every master. */
  private static void awaitRedisCluster(List<Integer> ports, int masters)
      throws InterruptedException, IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (int port : ports) {
      while (true) {
        try (Jedis j = new Jedis("127.0.0.1", port, 10_000)) {
          String info = j.clusterInfo();
          if (info.contains("cluster_state:ok") && info.contains("cluster_size:" + masters)) {
            break;
          }
        }
        if (System.nanoTime() > deadline) {
          throw new IOException("the Redis Cluster did not become ok within 60 s");
        }
        Thread.sleep(100);
      }
    }
  }

  private static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // a temporary directory left behind is not worth failing a benchmark for
    }
  }
}
