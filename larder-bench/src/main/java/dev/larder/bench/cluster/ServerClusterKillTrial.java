package dev.larder.bench.cluster;

import dev.larder.bench.harness.LoopbackChild;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A server kill trial: {@code nodes} Larder servers in one cluster, each in its own JVM on
 * 127.0.0.1 ({@link ServerClusterNode}), written through by real Redis clients (Jedis, one writer
 * per member, each on keys of its own with increasing values), which record every acknowledged
 * reply. Then, one at a time: {@code kills} SIGKILLs of a random member, each restarted under its
 * name and ports once the others see it gone; and {@code partitions} cuts of a random member from
 * the others (JGroups' DISCARD in every member, see {@link ServerClusterNode}) held for {@code
 * holdMillis}, then healed; then {@code restarts} full-cluster restarts: one member SIGKILLed,
 * writes acknowledged without it, every other member SIGKILLed at once, then all restarted, the one
 * killed first a little ahead (so a cluster that started from the first member up would lose those
 * writes), each on its own data directory (setting {@code dir}, with {@code appendfsync} the
 * trial's {@code persistence}; {@code off} keeps the members in memory, so a full restart loses
 * every write, which shows that the count can fail). Each event waits for the cluster to be whole,
 * available and rebalanced before the next, except kills when {@code awaitRebalance} is false: the
 * next member is then killed as soon as every member sees the restarted one, while segments may
 * still be moving (a kill during a rebalance). At the end the writers stop and every acknowledged
 * write is read back through every member: a key whose value there is older than its last
 * acknowledged one (or absent) is lost. Writes refused with CLUSTERDOWN (a member on a minority
 * side under quorum) are counted as refused, and those answered TRYAGAIN (members that did not
 * answer in time, e.g. between a cut and the view that notices it) apart. A trial may first write a
 * preload ({@link #preloading}), so that rebalances last long enough for kills to land during them,
 * and may hand partitions' failure detection and merge their work at once ({@link #nudging}).
 *
 * <p>Members start with {@code cluster-size} = nodes (a restarted member waits to see the whole
 * cluster before it serves), so the first ones start together. Every wait is bounded; child JVMs
 * are stopped, and their files deleted, at the end.
 */
public final class ServerClusterKillTrial {

  /**
   * What one trial found.
   *
   * @param kills SIGKILLs done
   * @param partitions partitions made and healed
   * @param restarts full-cluster restarts done
   * @param acknowledged acknowledged writes
   * @param keys distinct keys with an acknowledged write
   * @param killsDuringRebalance kills made while some member was still receiving segments (with
   *     {@code awaitRebalance} false; 0 otherwise, as each kill then waits for the rebalance)
   * @param segmentsLost segments a member started empty because no member held them complete
   *     ({@code RebalanceStats.segmentsLost}), summed over every member process of the trial
   * @param lost reads of a key, through some member, older than its last acknowledged write (summed
   *     over members)
   * @param refused writes refused with CLUSTERDOWN
   * @param tryAgain writes answered TRYAGAIN (members did not answer in time: not acknowledged, may
   *     or may not have been applied)
   * @param millis wall-clock time
   * @param detail empty without losses; else the first lost keys, for finding the cause
   */
  public record Result(
      int kills,
      int partitions,
      int restarts,
      long acknowledged,
      long keys,
      int killsDuringRebalance,
      long segmentsLost,
      long lost,
      long refused,
      long tryAgain,
      long millis,
      String detail) {}

  /**
   * Writes per key: each key is written this many times in a row, then never again, so that a loss
   * (a value older than the last acknowledged one) cannot be hidden by a later overwrite.
   */
  private static final int WRITES_PER_KEY = 10;

  private final String mode;
  private final String handling;
  private final int nodes;
  private final int kills;
  private final int partitions;
  private final long pauseMillis;
  private final long holdMillis;
  private final int restarts;
  private final String persistence;
  private final boolean awaitRebalance;
  private final Consumer<String> progress;
  private final Random random = new Random();
  private final String cluster =
      "server-kill-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
  private final int[] respPorts;
  private final int[] clusterPorts;

  /** Whether each member ran in this trial: its ports are its own from then on. */
  private final boolean[] startedOnce;

  private final MemberProcess[] members;
  private Path errors;

  /** The members' data directories, kept across their restarts; null when persistence is off. */
  private Path data;

  /** MiB of values written before the first event ({@link #preloading}); 0: none. */
  private int preloadMiB;

  /** Whether partitions hand failure detection and MERGE3 their work now ({@link #nudging}). */
  private boolean nudge;

  /**
   * @param mode replicated or distributed (owners 2)
   * @param handling quorum or allow-all
   * @param nodes members, at least 3
   * @param kills SIGKILLs
   * @param partitions partitions of one member
   * @param pauseMillis time between the cluster being whole again and the next event
   * @param holdMillis how long a partition lasts
   * @param progress where progress lines go
   */
  public ServerClusterKillTrial(
      String mode,
      String handling,
      int nodes,
      int kills,
      int partitions,
      long pauseMillis,
      long holdMillis,
      Consumer<String> progress) {
    this(
        mode,
        handling,
        nodes,
        kills,
        partitions,
        pauseMillis,
        holdMillis,
        0,
        "off",
        true,
        progress);
  }

  /**
   * @param mode replicated or distributed (owners 2)
   * @param handling quorum or allow-all
   * @param nodes members, at least 3
   * @param kills SIGKILLs of one member
   * @param partitions partitions of one member
   * @param pauseMillis time between the cluster being whole again and the next event
   * @param holdMillis how long a partition lasts
   * @param restarts full-cluster restarts (every member SIGKILLed at once, then all restarted)
   * @param persistence {@code off} (members in memory), or the members' {@code appendfsync} ({@code
   *     always}, {@code everysec}, {@code no}) with a data directory each
   * @param awaitRebalance true: after each kill and restart, wait until every member has finished
   *     its rebalance (and then {@code pauseMillis}) before the next kill; false: kill the next
   *     member as soon as every member sees the whole view again, while segments are still moving
   * @param progress where progress lines go
   */
  public ServerClusterKillTrial(
      String mode,
      String handling,
      int nodes,
      int kills,
      int partitions,
      long pauseMillis,
      long holdMillis,
      int restarts,
      String persistence,
      boolean awaitRebalance,
      Consumer<String> progress) {
    if (nodes < 3) {
      throw new IllegalArgumentException("a kill trial needs at least 3 nodes, got " + nodes);
    }
    this.mode = mode;
    this.handling = handling;
    this.nodes = nodes;
    this.kills = kills;
    this.partitions = partitions;
    this.pauseMillis = pauseMillis;
    this.holdMillis = holdMillis;
    this.restarts = restarts;
    this.persistence = persistence;
    this.awaitRebalance = awaitRebalance;
    this.progress = progress;
    this.respPorts = new int[nodes];
    this.clusterPorts = new int[nodes];
    this.startedOnce = new boolean[nodes];
    this.members = new MemberProcess[nodes];
  }

  /**
   * Makes the trial write {@code mib} MiB of 4 KiB values ({@code p:<i>}, through every member in
   * pipelines) once the cluster has formed, before the writers start: a member's rebalance then
   * moves that much and lasts seconds rather than milliseconds, so that with {@code awaitRebalance}
   * false the next kill lands during it. The preloaded keys are read back at the end like the
   * writers' (a missing or wrong one counts as lost). Each member's {@code maxmemory} and heap grow
   * by twice the preload, so that nothing is evicted. Call before {@link #run}.
   *
   * @param mib MiB to preload, 0 for none
   * @return this trial
   */
  public ServerClusterKillTrial preloading(int mib) {
    if (mib < 0) {
      throw new IllegalArgumentException("a preload of " + mib + " MiB");
    }
    this.preloadMiB = mib;
    return this;
  }

  /**
   * Makes each partition hand the members' failure detection the suspicion its timer would raise
   * later (VERIFY_SUSPECT2 still verifies it through the cut) and run MERGE3's round at once after
   * the heal, every 2 s until the cluster is whole, instead of waiting for FD_ALL3's 10 s and
   * MERGE3's interval: the same protocols, without their timers' wait (for short runs, such as
   * CI's). The window between a cut and the view that notices it, where writes time out (TRYAGAIN),
   * is then about a second rather than ten. Call before {@link #run}.
   *
   * @return this trial
   */
  public ServerClusterKillTrial nudging() {
    this.nudge = true;
    return this;
  }

  /**
   * Runs the trial.
   *
   * @return the counts
   * @throws Exception if a member cannot be started or stops answering
   */
  public Result run() throws Exception {
    long start = System.nanoTime();
    errors = Files.createTempDirectory("larder-server-kill");
    data = persistence.equals("off") ? null : Files.createDirectories(errors.resolve("data"));
    for (int i = 0; i < nodes; i++) {
      respPorts[i] = LoopbackChild.freePort();
      clusterPorts[i] = LoopbackChild.freePort();
    }
    Writers writers = null;
    try {
      startAll();
      awaitWhole();
      long preloaded = preload();
      writers = new Writers(respPorts);
      int killed = 0;
      int duringRebalance = 0;
      long segmentsLost = 0;
      for (; killed < kills; killed++) {
        if (awaitRebalance) {
          Thread.sleep(pauseMillis);
        } else if (rebalancing()) {
          duringRebalance++;
        }
        int victim = random.nextInt(nodes);
        segmentsLost += segmentsLost(members[victim]);
        members[victim].kill();
        awaitMembers(others(victim), nodes - 1);
        members[victim] = start(victim);
        if (awaitRebalance) {
          awaitWhole();
        } else {
          awaitMembers(List.of(members), nodes);
        }
        progress.accept(
            mode
                + " "
                + handling
                + ": "
                + (killed + 1)
                + " kills ("
                + duringRebalance
                + " during a rebalance)");
      }
      int cut = 0;
      for (; cut < partitions; cut++) {
        Thread.sleep(pauseMillis);
        partition(random.nextInt(nodes));
        progress.accept(mode + " " + handling + ": " + (cut + 1) + " partitions");
      }
      int restarted = 0;
      for (; restarted < restarts; restarted++) {
        Thread.sleep(pauseMillis);
        awaitNewAcknowledgement(writers);
        long before = writers.acknowledged.get();
        restartAll(writers);
        progress.accept(
            mode
                + " "
                + handling
                + ": "
                + (restarted + 1)
                + " full restarts ("
                + before
                + " writes acknowledged before this one)");
      }
      Thread.sleep(pauseMillis);
      writers.stop();
      awaitWhole();
      Verification v = verify(writers, preloaded);
      for (MemberProcess m : members) {
        segmentsLost += segmentsLost(m);
      }
      return new Result(
          killed,
          cut,
          restarted,
          writers.acknowledged.get(),
          writers.acked.size(),
          duringRebalance,
          segmentsLost,
          v.lost,
          writers.refused.get(),
          writers.tryAgain.get(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
          v.detail);
    } finally {
      if (writers != null) {
        writers.stop();
      }
      stopAll();
    }
  }

  /** Whether some member is receiving segments now. */
  private boolean rebalancing() throws InterruptedException {
    for (MemberProcess m : members) {
      if (m.ask("rebalancing", 30).equals("true")) {
        return true;
      }
    }
    return false;
  }

  /** The segments a member started empty so far (its process's count). */
  private static long segmentsLost(MemberProcess m) throws InterruptedException {
    String answer = m.ask("segments-lost", 30);
    try {
      return Long.parseLong(answer);
    } catch (NumberFormatException e) {
      throw new IllegalStateException(
          "a member answered '" + answer + "' for its lost segments", e);
    }
  }

  private List<MemberProcess> others(int i) {
    return ServerMembers.others(members, i);
  }

  private void startAll() throws Exception {
    startAll(-1);
  }

  /**
   * Starts every member at once, or member {@code first} (if not -1) about a second ahead of the
   * others: at a full restart, the one whose log is oldest.
   */
  private void startAll(int first) throws Exception {
    ExecutorService starters = Executors.newFixedThreadPool(nodes);
    try {
      List<Future<MemberProcess>> starting = new ArrayList<>();
      for (int i = 0; i < nodes; i++) {
        starting.add(null);
      }
      if (first >= 0) {
        starting.set(first, starters.submit(() -> start(first)));
        Thread.sleep(1_000);
      }
      for (int i = 0; i < nodes; i++) {
        int member = i;
        if (i != first) {
          starting.set(i, starters.submit(() -> start(member)));
        }
      }
      Exception failure = null;
      for (int i = 0; i < nodes; i++) {
        try {
          members[i] = starting.get(i).get();
        } catch (ExecutionException e) {
          failure = e.getCause() instanceof Exception cause ? cause : e;
        }
      }
      if (failure != null) {
        throw failure;
      }
    } finally {
      starters.shutdownNow();
    }
  }

  /**
   * Waits (at most 60 s) until the writers have had a write acknowledged since the cluster was last
   * whole, so that a full restart always has acknowledged writes to lose.
   */
  private static void awaitNewAcknowledgement(Writers writers) throws InterruptedException {
    long seen = writers.acknowledged.get();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (writers.acknowledged.get() < seen + 10) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the writers had fewer than 10 writes acknowledged in 60 s before a full restart");
      }
      Thread.sleep(20);
    }
  }

  /**
   * A full restart whose first member to start holds the oldest log: SIGKILLs one member, waits
   * until the others see it gone and have acknowledged new writes (which it misses), SIGKILLs the
   * others at once, then starts the one killed first a little ahead of the rest and waits for the
   * cluster to be whole. A cluster that started from the first member to start would lose those
   * writes.
   */
  private void restartAll(Writers writers) throws Exception {
    int first = random.nextInt(nodes);
    members[first].process.destroyForcibly();
    awaitDead(members[first]);
    awaitMembers(others(first), nodes - 1);
    awaitNewAcknowledgement(writers);
    for (MemberProcess m : others(first)) {
      m.process.destroyForcibly();
    }
    for (MemberProcess m : others(first)) {
      awaitDead(m);
    }
    startAll(first);
    awaitWhole();
  }

  private static void awaitDead(MemberProcess m) throws InterruptedException {
    if (!m.process.waitFor(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("member " + m.process.pid() + " outlived SIGKILL by 10 s");
    }
  }

  /**
   * Starts member {@code i}: at its first start on fresh ports if one was taken by the time it
   * bound it, at a restart on its own ports (see {@link ServerMembers#start}).
   */
  private MemberProcess start(int i) throws Exception {
    boolean first;
    synchronized (startedOnce) {
      first = !startedOnce[i];
    }
    MemberProcess m =
        ServerMembers.start(
            first,
            () -> startOn(i),
            () -> {
              synchronized (startedOnce) {
                respPorts[i] = LoopbackChild.freePort();
                clusterPorts[i] = LoopbackChild.freePort();
              }
            });
    synchronized (startedOnce) {
      startedOnce[i] = true;
    }
    return m;
  }

  /** Starts member {@code i} under its name and ports (a restart reuses them). */
  private MemberProcess startOn(int i) throws Exception {
    String peers;
    synchronized (startedOnce) {
      peers = ServerMembers.peers(clusterPorts);
    }
    List<String> settings = new ArrayList<>();
    if (data != null) {
      settings.add("dir=" + data.resolve("m" + i));
      settings.add("appendfsync=" + persistence);
    }
    settings.addAll(
        List.of(
            "resp-port=" + respPorts[i],
            "memcache-port=-1",
            "http-port=-1",
            "maxmemory=" + (64 + 2 * preloadMiB) + "mb",
            "cluster=" + cluster,
            "cluster-port=" + clusterPorts[i],
            "peers=" + peers,
            "cluster-node-name=m" + i,
            "cluster-size=" + nodes,
            "cluster-mode=" + mode,
            "cluster-owners=2",
            "cluster-partition-handling=" + handling,
            "cluster-timeout=5000",
            "cluster-command-threads=16"));
    return MemberProcess.start(
        (192 + 2 * preloadMiB) + "m",
        errors.resolve("m" + i + "-" + System.nanoTime()),
        ServerClusterNode.class,
        settings.toArray(String[]::new));
  }

  /** Waits until every member sees every other, is available and has finished rebalancing. */
  private void awaitWhole() throws InterruptedException {
    List<MemberProcess> all = List.of(members);
    awaitMembers(all, nodes);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (MemberProcess m : all) {
      while (!m.ask("available", 30).equals("true")) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("a member did not become available");
        }
        Thread.sleep(50);
      }
      // a member answers within 30 s; a preload makes a rebalance longer
      long rebalanceDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30 + 2L * preloadMiB);
      while (!m.ask("rebalanced", 60).equals("true")) {
        if (System.nanoTime() > rebalanceDeadline) {
          throw new IllegalStateException("a member did not finish its state transfer");
        }
      }
    }
  }

  private static void awaitMembers(List<MemberProcess> members, int n) throws InterruptedException {
    MemberProcess.awaitMembers(members, n);
  }

  /** Cuts member {@code victim} off from the others, holds, heals, waits for the merge. */
  private void partition(int victim) throws Exception {
    StringBuilder everyoneElse = new StringBuilder();
    for (int j = 0; j < nodes; j++) {
      if (j != victim) {
        everyoneElse.append(" m").append(j);
        ServerMembers.expect(members[j].ask("cut m" + victim, 30), "cut");
      }
    }
    ServerMembers.expect(members[victim].ask("cut" + everyoneElse, 30), "cut");
    if (nudge) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!sees(List.of(members[victim]), 1) || !sees(others(victim), nodes - 1)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the cut of m" + victim + " was not seen in 60 s");
        }
        for (int j = 0; j < nodes; j++) {
          ServerMembers.expect(
              members[j].ask(j == victim ? "suspect" + everyoneElse : "suspect m" + victim, 30),
              "suspected");
        }
        pollFor(() -> sees(List.of(members[victim]), 1) && sees(others(victim), nodes - 1));
      }
    }
    awaitMembers(List.of(members[victim]), 1);
    awaitMembers(others(victim), nodes - 1);
    Thread.sleep(holdMillis);
    for (MemberProcess m : members) {
      ServerMembers.expect(m.ask("heal", 30), "healed");
    }
    if (nudge) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!sees(List.of(members), nodes)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the cut of m" + victim + " did not heal in 60 s");
        }
        for (MemberProcess m : members) {
          ServerMembers.expect(m.ask("merge", 30), "merging");
        }
        pollFor(() -> sees(List.of(members), nodes));
      }
    }
    awaitWhole();
  }

  /** Whether every given member sees {@code n} members now. */
  private static boolean sees(List<MemberProcess> members, int n) throws InterruptedException {
    for (MemberProcess m : members) {
      if (!m.ask("members", 30).equals(String.valueOf(n))) {
        return false;
      }
    }
    return true;
  }

  /** A condition that asks the members. */
  private interface Check {
    boolean holds() throws InterruptedException;
  }

  /** Polls a condition every 50 ms for up to 2 s. */
  private static void pollFor(Check check) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    while (System.nanoTime() < end && !check.holds()) {
      Thread.sleep(50);
    }
  }

  /** Value bytes of each preloaded key. */
  private static final int PRELOAD_VALUE_BYTES = 4096;

  /** Preloaded keys written in one pipeline. */
  private static final int PRELOAD_PIPELINE = 128;

  /**
   * Writes the preload (see {@link #preloading}): key {@code p:<i>}, value {@code p<i>:} then
   * letters to 4 KiB, key i through member i mod nodes.
   *
   * @return the number of keys written
   */
  private long preload() {
    long keys = preloadMiB * (1L << 20) / PRELOAD_VALUE_BYTES;
    if (keys == 0) {
      return 0;
    }
    String filler = filler(new Random(keys));
    for (int i = 0; i < nodes; i++) {
      try (Jedis jedis = new Jedis("127.0.0.1", respPorts[i], 60_000)) {
        Pipeline p = jedis.pipelined();
        int queued = 0;
        for (long k = i; k < keys; k += nodes) {
          p.set(preloadKey(k), preloadValue(k, filler));
          if (++queued == PRELOAD_PIPELINE) {
            expectOk(p.syncAndReturnAll());
            queued = 0;
          }
        }
        expectOk(p.syncAndReturnAll());
      }
    }
    progress.accept(mode + " " + handling + ": preloaded " + keys + " keys of 4 KiB");
    return keys;
  }

  private static String filler(Random random) {
    StringBuilder b = new StringBuilder(PRELOAD_VALUE_BYTES);
    for (int i = 0; i < PRELOAD_VALUE_BYTES; i++) {
      b.append((char) ('a' + random.nextInt(26)));
    }
    return b.toString();
  }

  private static String preloadKey(long k) {
    return "p:" + k;
  }

  private static String preloadPrefix(long k) {
    return "p" + k + ":";
  }

  private static String preloadValue(long k, String filler) {
    String prefix = preloadPrefix(k);
    return prefix + filler.substring(prefix.length());
  }

  private static void expectOk(List<Object> replies) {
    for (Object r : replies) {
      if (!"OK".equals(r)) {
        throw new IllegalStateException("a preload write was answered " + r);
      }
    }
  }

  private record Verification(long lost, String detail) {}

  /**
   * Reads every key with an acknowledged write, and the {@code preloaded} keys, through every
   * member.
   */
  private Verification verify(Writers writers, long preloaded) {
    long lost = 0;
    StringBuilder detail = new StringBuilder();
    List<Jedis> readers = new ArrayList<>();
    try {
      for (int i = 0; i < nodes; i++) {
        readers.add(new Jedis("127.0.0.1", respPorts[i], 30_000));
      }
      for (long from = 0; from < preloaded; from += 1000) {
        long to = Math.min(preloaded, from + 1000);
        for (int i = 0; i < nodes; i++) {
          Pipeline p = readers.get(i).pipelined();
          List<Response<String>> reads = new ArrayList<>();
          for (long k = from; k < to; k++) {
            reads.add(p.get(preloadKey(k)));
          }
          p.sync();
          for (long k = from; k < to; k++) {
            String read = reads.get((int) (k - from)).get();
            if (read == null
                || read.length() != PRELOAD_VALUE_BYTES
                || !read.startsWith(preloadPrefix(k))) {
              lost++;
              if (lost <= 10) {
                detail
                    .append(preloadKey(k))
                    .append(": preloaded, member m")
                    .append(i)
                    .append(" read ")
                    .append(
                        read == null ? "nothing" : read.substring(0, Math.min(20, read.length())))
                    .append("; ");
              }
            }
          }
        }
      }
      List<Map.Entry<String, long[]>> keys = new ArrayList<>(writers.acked.entrySet());
      for (int from = 0; from < keys.size(); from += 1000) {
        List<Map.Entry<String, long[]>> batch =
            keys.subList(from, Math.min(keys.size(), from + 1000));
        for (int i = 0; i < nodes; i++) {
          Pipeline p = readers.get(i).pipelined();
          List<Response<String>> reads = new ArrayList<>();
          for (Map.Entry<String, long[]> e : batch) {
            reads.add(p.get(e.getKey()));
          }
          p.sync();
          for (int k = 0; k < batch.size(); k++) {
            String read = reads.get(k).get();
            long[] v = batch.get(k).getValue();
            long seq = read == null ? 0 : Long.parseLong(read.substring(read.indexOf(':') + 1));
            if (seq < v[0] || seq > v[1]) {
              lost++;
              if (lost <= 10) {
                detail
                    .append(batch.get(k).getKey())
                    .append(": acknowledged ")
                    .append(v[0])
                    .append(", last sent ")
                    .append(v[1])
                    .append(", member m")
                    .append(i)
                    .append(" read ")
                    .append(read)
                    .append("; ");
              }
            }
          }
        }
      }
    } finally {
      readers.forEach(Jedis::close);
    }
    return new Verification(lost, detail.toString());
  }

  private void stopAll() throws IOException, InterruptedException {
    ServerMembers.stopAll(members, errors);
  }

  /**
   * One writer thread per member, each over its own RESP connection (reconnected after a failure),
   * writing {@code w<member>:k<seq / 10>} = {@code w<member>:<seq>} with an increasing seq: each
   * key ten times, then the next. For each key: the last acknowledged seq and the last one sent (a
   * write that failed may still have landed, so a read may return anything from the one to the
   * other).
   */
  private static final class Writers {
    final Map<String, long[]> acked = new ConcurrentHashMap<>();
    final AtomicLong acknowledged = new AtomicLong();
    final AtomicLong refused = new AtomicLong();
    final AtomicLong tryAgain = new AtomicLong();
    private final int[] ports;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();
    private final Map<String, long[]> sent = new ConcurrentHashMap<>();

    Writers(int[] ports) {
      this.ports = ports;
      for (int i = 0; i < ports.length; i++) {
        int member = i;
        Thread t = new Thread(() -> write(member), "writer-" + i);
        t.setDaemon(true);
        t.start();
        threads.add(t);
      }
    }

    private void write(int member) {
      Jedis jedis = null;
      for (long seq = 1; running.get(); seq++) {
        String key = "w" + member + ":k" + (seq / WRITES_PER_KEY);
        long[] bounds = sent.computeIfAbsent(key, k -> new long[2]);
        bounds[1] = seq;
        try {
          if (jedis == null) {
            jedis = new Jedis("127.0.0.1", ports[member], 30_000);
          }
          jedis.set(key, "w" + member + ":" + seq);
          bounds[0] = seq;
          acked.put(key, bounds);
          acknowledged.incrementAndGet();
        } catch (JedisDataException e) {
          String error = String.valueOf(e.getMessage());
          if (error.startsWith("CLUSTERDOWN")) {
            refused.incrementAndGet();
          } else if (error.startsWith("TRYAGAIN")) {
            tryAgain.incrementAndGet();
          }
          pause();
        } catch (RuntimeException e) {
          // the member is down or the connection broke: not acknowledged; reconnect
          if (jedis != null) {
            jedis.close();
            jedis = null;
          }
          pause();
        }
      }
      if (jedis != null) {
        jedis.close();
      }
    }

    private static void pause() {
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    void stop() throws InterruptedException {
      running.set(false);
      for (Thread t : threads) {
        t.join(60_000);
        if (t.isAlive()) {
          throw new IllegalStateException(t.getName() + " did not stop within 60 s");
        }
      }
    }
  }
}
