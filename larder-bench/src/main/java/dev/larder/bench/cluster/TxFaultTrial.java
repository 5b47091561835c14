package dev.larder.bench.cluster;

import dev.larder.history.Anomaly;
import dev.larder.history.CheckResult;
import dev.larder.history.HistoryChecker;
import dev.larder.history.ListReads;
import dev.larder.history.Op;
import dev.larder.history.Outcome;
import dev.larder.history.Txn;
import dev.larder.tx.Isolation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The fault trial of {@code ./larder bench cluster-tx}: {@code nodes} member JVMs of one clustered
 * store (each with its log), {@code clients} client threads on every member running {@link
 * TxWorkload}, and a sequence of faults: SIGKILL of a random member (it restarts from its log),
 * every {@code killAllEvery}-th kill of every member at once (all restart), and partitions that cut
 * one random member off (made with JGroups' DISCARD on every member, healed after a pause). After
 * each fault the trial waits until every member is READY again in one view. At the end it stops the
 * clients, waits until every member is READY in one epoch of every member, and checks the recorded
 * history ({@link HistoryChecker}, process order), every acknowledged append against the final
 * lists (lost), the lists on every member (divergent), and the bank's sum. A trial whose checks
 * fail leaves its directory (histories, every member's log and standard error) in place and says
 * where.
 *
 * <p>Child JVMs bind 127.0.0.1 only; every wait is bounded.
 */
public final class TxFaultTrial {

  /**
   * What one trial found.
   *
   * @param kills SIGKILLs of one member
   * @param killAlls times every member was killed at once
   * @param partitions partitions made and healed
   * @param commits committed recorded transactions (list-append and register)
   * @param aborts aborted recorded transactions
   * @param unknown recorded transactions whose outcome their client did not learn
   * @param anomalies anomalies the history checker found, by name (all of them)
   * @param forbidden how many of those the isolation level forbids
   * @param lost acknowledged appends missing from the final lists
   * @param divergent members whose final lists differ from the first member's
   * @param sumViolations audits (and final sums) that found a wrong total
   * @param inDoubtCommitted in-doubt transactions committed by reconfigurations
   * @param inDoubtAborted in-doubt transactions aborted by reconfigurations
   * @param millis the trial's wall-clock time
   * @param detail the forbidden anomalies and losses found, for finding their cause
   */
  public record Result(
      int kills,
      int killAlls,
      int partitions,
      long commits,
      long aborts,
      long unknown,
      Map<String, Integer> anomalies,
      int forbidden,
      long lost,
      int divergent,
      long sumViolations,
      long inDoubtCommitted,
      long inDoubtAborted,
      long millis,
      String detail) {}

  private final int nodes;
  private final int kills;
  private final int killAllEvery;
  private final int partitions;
  private final long pauseMillis;
  private final int clients;
  private final Isolation isolation;
  private final String mode;
  private final Consumer<String> progress;
  private final Random random = new Random();
  private final String port = String.valueOf(21000 + new Random().nextInt(20000));
  private final String cluster = "tx-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
  private final MemberProcess[] members;
  private final String[] names;
  private int incarnations;
  private Path root;

  /** Whether to leave the trial's directory in place (a check failed). */
  private boolean keep;

  public TxFaultTrial(
      int nodes,
      int kills,
      int killAllEvery,
      int partitions,
      long pauseMillis,
      int clients,
      Isolation isolation,
      String mode,
      Consumer<String> progress) {
    TxClusterMode.parse(mode);
    if (nodes < 3) {
      throw new IllegalArgumentException("a fault trial needs at least 3 nodes, got " + nodes);
    }
    this.nodes = nodes;
    this.kills = kills;
    this.killAllEvery = killAllEvery;
    this.partitions = partitions;
    this.pauseMillis = pauseMillis;
    this.clients = clients;
    this.isolation = isolation;
    this.mode = mode;
    this.progress = progress;
    this.members = new MemberProcess[nodes];
    this.names = new String[nodes];
  }

  public Result run() throws Exception {
    long start = System.nanoTime();
    root = Files.createTempDirectory("larder-tx-trial");
    Files.createDirectories(root.resolve("history"));
    try {
      int[] all = new int[nodes];
      Arrays.setAll(all, i -> i);
      startSlots(all);
      awaitReady(all);
      if (!members[0].ask("seed", 60).equals("seeded")) {
        throw new IllegalStateException("seeding failed");
      }
      for (int s : all) {
        members[s].ask("go", 30);
      }
      int killsDone = 0;
      int killAlls = 0;
      int partitionsDone = 0;
      int faults = kills + partitions;
      for (int f = 0; f < faults; f++) {
        Thread.sleep(pauseMillis);
        boolean partition =
            partitionsDone < partitions
                && (killsDone >= kills || (long) (f + 1) * partitions / faults > partitionsDone);
        if (partition) {
          partition();
          partitionsDone++;
        } else if (killAllEvery > 0 && (killsDone + 1) % killAllEvery == 0) {
          killAll();
          killAlls++;
          killsDone++;
        } else {
          killOne();
          killsDone++;
        }
        progress.accept(
            isolation
                + ": "
                + killsDone
                + " kills ("
                + killAlls
                + " of all"
                + " members), "
                + partitionsDone
                + " partitions");
      }
      Thread.sleep(pauseMillis);
      Result result = finish(killsDone, killAlls, partitionsDone, start);
      if (result.forbidden() > 0
          || result.lost() > 0
          || result.divergent() > 0
          || result.sumViolations() > 0) {
        keep = true; // the histories and every member's log, to find the cause
        progress.accept("kept the trial's histories and member logs in " + root);
      }
      return result;
    } finally {
      stopAll();
    }
  }

  private void killOne() throws Exception {
    int victim = random.nextInt(nodes);
    members[victim].kill();
    members[victim] = null;
    awaitReady(others(victim));
    startSlots(victim);
    awaitReady(allSlots());
    members[victim].ask("go", 30);
  }

  private void killAll() throws Exception {
    for (MemberProcess m : members) {
      m.kill();
    }
    Arrays.fill(members, null);
    startSlots(allSlots());
    awaitReady(allSlots());
    for (MemberProcess m : members) {
      m.ask("go", 30);
    }
  }

  private void partition() throws Exception {
    int alone = random.nextInt(nodes);
    List<String> rest = new ArrayList<>();
    for (int s : others(alone)) {
      rest.add(names[s]);
      members[s].ask("partition " + names[alone], 30);
    }
    members[alone].ask("partition " + String.join(" ", rest), 30);
    awaitReady(others(alone));
    Thread.sleep(pauseMillis);
    for (MemberProcess m : members) {
      m.ask("heal", 30);
    }
    awaitReady(allSlots());
  }

  private Result finish(int killsDone, int killAlls, int partitionsDone, long start)
      throws Exception {
    for (MemberProcess m : members) {
      m.ask("stop", 90);
    }
    // a member that a late view change left out of the newest epoch is not READY and serves the
    // state it holds, which may miss the others' last commits: the lists are compared only as
    // members READY in one epoch of every member hold them, the same epoch before and after
    List<String> dumps = new ArrayList<>();
    long sumViolations = 0;
    long total = TxWorkload.ACCOUNT_COUNT * TxWorkload.INITIAL_BALANCE;
    for (int attempt = 1; ; attempt++) {
      String before = awaitOneEpoch();
      dumps.clear();
      sumViolations = 0;
      for (MemberProcess m : members) {
        dumps.add(m.ask("dump", 60));
        if (Long.parseLong(m.ask("sum", 60)) != total) {
          sumViolations++;
        }
      }
      String after = epochs();
      if (after.equals(before)) {
        break;
      }
      progress.accept(
          "the epoch changed during the final dump ("
              + before
              + ", then "
              + after
              + ")"
              + (attempt < 3 ? ": dumped again" : ": compared as dumped"));
      if (attempt == 3) {
        break;
      }
    }
    int divergent = 0;
    for (String d : dumps) {
      divergent += d.equals(dumps.getFirst()) ? 0 : 1;
    }
    History h = readHistories();
    sumViolations += h.sumViolations;
    CheckResult check = HistoryChecker.check(h.txns, HistoryChecker.Orders.PROCESS);
    List<Anomaly> forbidden =
        isolation == Isolation.SERIALIZABLE
            ? check.anomalies()
            : check.anomalies().stream().filter(a -> !a.name().startsWith("G2")).toList();
    List<String> lostAppends = lost(h.txns, dumps.getFirst());
    long commits = h.txns.stream().filter(t -> t.outcome() == Outcome.COMMITTED).count();
    long aborts = h.txns.stream().filter(t -> t.outcome() == Outcome.ABORTED).count();
    long unknown = h.txns.stream().filter(t -> t.outcome() == Outcome.UNKNOWN).count();
    String detail =
        (forbidden.isEmpty()
                ? ""
                : "forbidden anomalies: "
                    + forbidden.stream().limit(5).map(Anomaly::toString).toList())
            + (lostAppends.isEmpty()
                ? ""
                : " lost appends: " + lostAppends.stream().limit(10).toList())
            + (divergent == 0 ? "" : " final lists: " + dumps);
    return new Result(
        killsDone,
        killAlls,
        partitionsDone,
        commits,
        aborts,
        unknown,
        new TreeMap<>(check.counts()),
        forbidden.size(),
        lostAppends.size(),
        divergent,
        sumViolations,
        h.inDoubt[0],
        h.inDoubt[1],
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
        detail);
  }

  /** Acknowledged appends that the final lists do not hold. */
  private static List<String> lost(List<Txn> txns, String dump) {
    Map<String, Set<Long>> finalLists = new HashMap<>();
    for (String token : dump.split(" ", -1)) {
      String[] kv = token.split("=", -1);
      Set<Long> values = new HashSet<>();
      if (kv.length == 2 && !kv[1].isEmpty()) {
        for (String v : kv[1].split(",", -1)) {
          values.add(Long.parseLong(v));
        }
      }
      finalLists.put(kv[0], values);
    }
    List<String> lost = new ArrayList<>();
    for (Txn t : txns) {
      if (t.outcome() != Outcome.COMMITTED) {
        continue;
      }
      for (Op op : t.ops()) {
        if (op instanceof Op.Append a
            && !finalLists.getOrDefault(a.key(), Set.of()).contains(a.value())) {
          lost.add("T" + t.id() + " " + a.key() + " " + a.value());
        }
      }
    }
    return lost;
  }

  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  private record History(List<Txn> txns, long sumViolations, long[] inDoubt) {}

  /**
   * Parses every incarnation's history file; a transaction without outcome is unknown. Reads line
   * by line, and every list read through one {@link ListReads}: a list read holds its whole list,
   * and the lists grow through the trial, so reads held as text or as boxed values took memory
   * growing with the square of the trial's length (the driver ran out of its heap).
   */
  private History readHistories() throws IOException {
    List<Txn> txns = new ArrayList<>();
    ListReads lists = new ListReads();
    long sums = 0;
    long[] inDoubt = {0, 0};
    try (Stream<Path> files = Files.list(root.resolve("history"))) {
      for (Path f : files.sorted().toList()) {
        Map<Integer, Invoked> invoked = new LinkedHashMap<>();
        Map<Integer, Completed> completed = new HashMap<>();
        long[] lastDecisions = {0, 0};
        try (java.io.BufferedReader in = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
          for (String line = in.readLine(); line != null; line = in.readLine()) {
            String[] w = line.split(" ");
            switch (w[0]) {
              case "I" -> {
                if (w.length >= 4) {
                  Invoked i = invoked(w, lists);
                  if (invoked.put(i.id(), i) != null) {
                    throw new IllegalStateException(
                        f + " holds two transactions numbered " + i.id());
                  }
                }
              }
              case "C" -> {
                if (w.length == 4) {
                  completed.put(
                      Integer.parseInt(w[1]),
                      new Completed(Outcome.valueOf(w[2]), Long.parseLong(w[3])));
                }
              }
              case "S" -> sums++;
              case "D" -> {
                if (w.length == 3) {
                  lastDecisions = new long[] {Long.parseLong(w[1]), Long.parseLong(w[2])};
                }
              }
              default -> {} // a line torn by a kill
            }
          }
        }
        inDoubt[0] += lastDecisions[0];
        inDoubt[1] += lastDecisions[1];
        for (Invoked i : invoked.values()) {
          Completed c = completed.get(i.id());
          Outcome outcome = c == null ? Outcome.UNKNOWN : c.outcome();
          long end = c == null ? Long.MAX_VALUE : c.nanos();
          // ids are unique within a file: the history's are numbered here
          txns.add(
              new Txn(
                  txns.size() + 1,
                  i.process(),
                  outcome,
                  i.ops(),
                  i.begin(),
                  Math.max(i.begin(), end)));
        }
      }
    }
    return new History(txns, sums, inDoubt);
  }

  /** A completion line, parsed. */
  private record Completed(Outcome outcome, long nanos) {}

  /** An invocation line, parsed. */
  private record Invoked(int id, int process, long begin, List<Op> ops) {}

  private static Invoked invoked(String[] invoke, ListReads lists) {
    List<Op> ops = new ArrayList<>();
    for (int i = 4; i < invoke.length; i++) {
      String[] p = invoke[i].split(":", -1);
      switch (p[0]) {
        case "a" -> ops.add(Op.append(p[1], Long.parseLong(p[2])));
        case "r" -> ops.add(new Op.ReadList(p[1], lists.parse(p[1], p[2])));
        case "w" -> ops.add(Op.write(p[1], Long.parseLong(p[2])));
        case "g" -> ops.add(Op.read(p[1], p[2].equals("nil") ? null : Long.valueOf(p[2])));
        default -> throw new IllegalStateException("unknown op " + invoke[i]);
      }
    }
    return new Invoked(
        Integer.parseInt(invoke[1]), Integer.parseInt(invoke[2]), Long.parseLong(invoke[3]), ops);
  }

  private int[] allSlots() {
    int[] all = new int[nodes];
    Arrays.setAll(all, i -> i);
    return all;
  }

  private int[] others(int slot) {
    return Arrays.stream(allSlots()).filter(s -> s != slot).toArray();
  }

  /** Starts the given slots at once, each from its own data directory. */
  private void startSlots(int... slots) throws Exception {
    ExecutorService starters = Executors.newFixedThreadPool(slots.length);
    try {
      Map<Integer, Future<MemberProcess>> starting = new LinkedHashMap<>();
      for (int s : slots) {
        int incarnation = ++incarnations;
        String name = "m" + s + "-" + incarnation;
        names[s] = name;
        starting.put(
            s,
            starters.submit(
                () ->
                    MemberProcess.start(
                        "256m",
                        root.resolve(name + ".err"),
                        TxTrialNode.class,
                        port,
                        cluster,
                        name,
                        root.resolve("data-" + s).toString(),
                        root.resolve("history")
                            .resolve(String.format("%05d.log", incarnation))
                            .toString(),
                        String.valueOf(nodes),
                        isolation.name(),
                        String.valueOf(clients),
                        String.valueOf(incarnation),
                        mode)));
      }
      for (Map.Entry<Integer, Future<MemberProcess>> e : starting.entrySet()) {
        members[e.getKey()] = e.getValue().get(150, TimeUnit.SECONDS);
      }
    } finally {
      starters.shutdownNow();
    }
  }

  /**
   * Waits (at most 90 s) until the given members are READY in an epoch of exactly that many
   * members.
   */
  private void awaitReady(int... slots) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    String want = "READY " + slots.length;
    for (int s : slots) {
      String last = members[s].ask("ready", 30);
      while (!last.equals(want)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              names[s]
                  + " is not READY with "
                  + slots.length
                  + " members after 90 s: "
                  + last
                  + stderrTails(slots));
        }
        Thread.sleep(50);
        last = members[s].ask("ready", 30);
      }
    }
  }

  /** Every member's answer to {@code epoch}: READY or WAIT, its epoch's size and number. */
  private String epochs() throws InterruptedException {
    return MemberEpochs.answers(members);
  }

  /**
   * Waits (at most 90 s) until every member is READY in one epoch of every member; returns their
   * answers. Says so if they were not at first (a view change after the last fault).
   */
  private String awaitOneEpoch() throws InterruptedException {
    String first = epochs();
    String now = MemberEpochs.awaitOne(members, nodes, first, 90, () -> stderrTails(allSlots()));
    if (!now.equals(first)) {
      progress.accept(
          "at the end the members were not READY in one epoch ("
              + first
              + "); dumped once they were ("
              + now
              + ")");
    }
    return now;
  }

  /** The last lines each member wrote to its standard error, for a failure's report. */
  private String stderrTails(int... slots) {
    StringBuilder sb = new StringBuilder();
    for (int s : slots) {
      Path err = root.resolve(names[s] + ".err");
      try {
        List<String> lines = Files.readAllLines(err, StandardCharsets.UTF_8);
        sb.append("\n")
            .append(names[s])
            .append(" (")
            .append(members[s].ask("describe", 30))
            .append("):\n  ")
            .append(
                String.join("\n  ", lines.subList(Math.max(0, lines.size() - 40), lines.size())));
      } catch (IOException | InterruptedException | RuntimeException e) {
        sb.append("\n").append(names[s]).append(": ").append(e);
      }
    }
    return sb.toString();
  }

  private void stopAll() throws IOException, InterruptedException {
    for (MemberProcess m : members) {
      if (m != null) {
        m.stop();
      }
    }
    if (root != null && !keep) {
      try (Stream<Path> files = Files.walk(root)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }
}
