package dev.larder.bench.cluster;

import dev.larder.bench.harness.LoopbackChild;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;

/**
 * A fault trial of clustered Larder servers with {@code cluster-transactions on}: {@code nodes}
 * servers (REPLICATED, or DISTRIBUTED with the fewest owners the store accepts; in memory, or each
 * logging its commits in a directory of its own under {@code appendfsync} {@code always} or {@code
 * everysec}), each in its own JVM on 127.0.0.1 ({@link ServerClusterNode}), and {@code clients}
 * Redis clients on every member ({@link BankClient}) running conflicting MULTI/EXEC bank transfers
 * between {@value BankClient#ACCOUNTS} accounts (each transfer also appends its own record to its
 * client's log list) and audits (every account read in one MULTI). While they run: {@code kills}
 * SIGKILLs of a random member, each restarted under its name, ports and directory (with a log,
 * every {@code killAllEvery}-th kill SIGKILLs every member at once and restarts them all), then
 * {@code partitions} cuts of a random member from the others (JGroups' DISCARD on both of every
 * member's channels, the cluster's and the transactional store's), held {@code holdMillis}, then
 * healed. After each fault settles (every member READY in an epoch of all of them), an EXEC writing
 * every account must commit through every member within 30 s (no key stays locked). At the end
 * every member reads every account and log in one MULTI, once every member is READY in one epoch
 * (the same number) of every member, and again if that epoch changed meanwhile.
 *
 * <p>What is counted:
 *
 * <ul>
 *   <li>{@code sumViolations}: audits, and final reads, whose balances do not sum to the constant
 *       (a transfer half applied, or a read of no single snapshot);
 *   <li>{@code halfApplied}: final balances on some member that differ from the ones the committed
 *       transfers (the log entries found) make: a transfer whose record committed without its moves
 *       or the other way round;
 *   <li>{@code lost}: acknowledged transfers whose record is missing; {@code duplicated}: records
 *       found twice; {@code abortedButApplied}: records of transfers answered with a refusal
 *       (CLUSTERDOWN) or a conflict, which must have changed nothing;
 *   <li>{@code lockedKeys}: all-account writes that did not commit within 30 s of a fault settling,
 *       and clients that had no transfer acknowledged within 30 s of the last one;
 *   <li>{@code refused}: EXECs answered CLUSTERDOWN (a cut-off member refusing at once); {@code
 *       unknown}: EXECs whose outcome the client did not learn (TRYAGAIN, a connection lost).
 * </ul>
 *
 * <p>Every wait is bounded; child JVMs are stopped and their files deleted at the end.
 */
public final class ServerClusterTxTrial {

  /**
   * What one trial found.
   *
   * @param kills SIGKILLs done (of one member, or of every member at once)
   * @param killAll SIGKILLs of every member at once
   * @param partitions partitions made and healed
   * @param commits acknowledged transfers
   * @param aborts transfers answered with a conflict (nothing applied)
   * @param refused transfers answered CLUSTERDOWN (nothing applied)
   * @param unknown transfers whose outcome the client did not learn
   * @param audits audits answered
   * @param sumViolations audits and final reads with a wrong sum
   * @param halfApplied final reads (per member) whose balances differ from the committed records'
   * @param lost acknowledged transfers whose record is missing on some member (summed over members)
   * @param duplicated records found twice (summed over members)
   * @param abortedButApplied records of transfers answered with a refusal or a conflict
   * @param lockedKeys writes of every account, or clients, that could not commit in 30 s after a
   *     fault settled
   * @param millis wall-clock time
   * @param detail empty if every count of a fault is 0; else what was found, for finding the cause
   */
  public record Result(
      int kills,
      int killAll,
      int partitions,
      long commits,
      long aborts,
      long refused,
      long unknown,
      long audits,
      long sumViolations,
      long halfApplied,
      long lost,
      long duplicated,
      long abortedButApplied,
      long lockedKeys,
      long millis,
      String detail) {

    /** Returns the faults found: every count that must be 0. */
    public long anomalies() {
      return sumViolations + halfApplied + duplicated + abortedButApplied;
    }
  }

  /** The transactional store's channel is this far above the cluster port (ServerCluster). */
  private static final int TRANSACTIONS_PORT_OFFSET = 1000;

  /** What {@code persistence} may be: no directory, or a log under that {@code appendfsync}. */
  public static final List<String> PERSISTENCE = List.of("memory", "always", "everysec");

  /** How long a settled cluster gets to commit a write of every account, or a client a transfer. */
  private static final long LOCK_BOUND_NANOS = TimeUnit.SECONDS.toNanos(30);

  private final String mode;
  private final int nodes;
  private final int kills;
  private final int killAllEvery;
  private final String persistence;
  private final int partitions;
  private final long pauseMillis;
  private final long holdMillis;
  private final int clients;
  private final Consumer<String> progress;
  private final Random random = new Random();
  private final String cluster =
      "server-tx-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
  private final int[] respPorts;
  private final int[] clusterPorts;

  /** Whether each member ran in this trial: its ports are its own from then on. */
  private final boolean[] startedOnce;

  private final MemberProcess[] members;
  private final StringBuilder detail = new StringBuilder();
  private long lockedKeys;
  private int killedAll;
  private Path errors;

  /**
   * @param mode replicated, or distributed (each key on {@code nodes} minus a majority plus one
   *     members, the fewest the store accepts: 2 of 3)
   * @param nodes members, at least 3
   * @param kills SIGKILLs (each restarted)
   * @param killAllEvery with a log, every this-many-th kill is of every member at once (0: never);
   *     without one it is ignored (the cluster would restart empty)
   * @param persistence one of {@link #PERSISTENCE}
   * @param partitions cuts of one member from the others
   * @param pauseMillis time between the cluster settling and the next fault
   * @param holdMillis how long a cut lasts
   * @param clients client connections per member
   * @param progress where progress lines go
   */
  public ServerClusterTxTrial(
      String mode,
      int nodes,
      int kills,
      int killAllEvery,
      String persistence,
      int partitions,
      long pauseMillis,
      long holdMillis,
      int clients,
      Consumer<String> progress) {
    if (nodes < 3) {
      throw new IllegalArgumentException("a fault trial needs at least 3 nodes, got " + nodes);
    }
    if (!PERSISTENCE.contains(persistence)) {
      throw new IllegalArgumentException(
          "persistence must be one of " + PERSISTENCE + ", was " + persistence);
    }
    this.mode = TxClusterMode.parse(mode).name().toLowerCase(Locale.ROOT);
    this.nodes = nodes;
    this.kills = kills;
    this.killAllEvery = persistence.equals("memory") ? 0 : killAllEvery;
    this.persistence = persistence;
    this.partitions = partitions;
    this.pauseMillis = pauseMillis;
    this.holdMillis = holdMillis;
    this.clients = clients;
    this.progress = progress;
    this.respPorts = new int[nodes];
    this.clusterPorts = new int[nodes];
    this.startedOnce = new boolean[nodes];
    this.members = new MemberProcess[nodes];
  }

  /**
   * Runs the trial.
   *
   * @return the counts
   * @throws Exception if a member cannot be started or stops answering
   */
  public Result run() throws Exception {
    long start = System.nanoTime();
    errors = Files.createTempDirectory("larder-server-tx");
    for (int i = 0; i < nodes; i++) {
      respPorts[i] = LoopbackChild.freePort();
      clusterPorts[i] = LoopbackChild.freePortWith(TRANSACTIONS_PORT_OFFSET);
    }
    List<BankClient> bank = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    AtomicBoolean running = new AtomicBoolean(true);
    try {
      startAll();
      awaitSettled();
      BankClient.seed(respPorts[0]);
      for (int m = 0; m < nodes; m++) {
        for (int c = 0; c < clients; c++) {
          BankClient b = new BankClient("c" + m + "." + c, respPorts[m], running);
          bank.add(b);
          Thread t = new Thread(b, "bank-" + b.id);
          t.setDaemon(true);
          t.start();
          threads.add(t);
        }
      }
      awaitProgress(bank);
      int killed = 0;
      for (; killed < kills; killed++) {
        Thread.sleep(pauseMillis);
        if (killAllEvery > 0 && (killed + 1) % killAllEvery == 0) {
          killAll();
        } else {
          kill(random.nextInt(nodes));
        }
        checkWritable("kill " + (killed + 1));
        progress.accept("server tx: " + (killed + 1) + " kills");
      }
      int cut = 0;
      for (; cut < partitions; cut++) {
        Thread.sleep(pauseMillis);
        partition(random.nextInt(nodes), bank);
        checkWritable("partition " + (cut + 1));
        progress.accept("server tx: " + (cut + 1) + " partitions");
      }
      awaitProgress(bank);
      running.set(false);
      for (Thread t : threads) {
        t.join(60_000);
        if (t.isAlive()) {
          throw new IllegalStateException(t.getName() + " did not stop within 60 s");
        }
      }
      FinalState.Check check = finalCheck(bank);
      long sumViolations = check.sumViolations();
      for (BankClient b : bank) {
        sumViolations += b.sumViolations.get();
      }
      detail.append(check.detail());
      for (BankClient b : bank) {
        if (b.sumViolations.get() > 0) {
          detail.append(b.id).append(" audits: ").append(b.firstWrongSum).append("; ");
        }
      }
      return new Result(
          killed,
          killedAll,
          cut,
          sum(bank, b -> b.acknowledged.size()),
          sum(bank, b -> b.aborted.size()),
          sum(bank, b -> b.refused.size()),
          sum(bank, b -> b.unknown.get()),
          sum(bank, b -> b.audits.get()),
          sumViolations,
          check.halfApplied(),
          check.lost(),
          check.duplicated(),
          check.abortedButApplied(),
          lockedKeys,
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
          detail.toString());
    } finally {
      running.set(false);
      stopAll();
    }
  }

  /**
   * Reads every account and log through every member once every member is READY in one epoch (the
   * same number) of every member, and again if that epoch changed during the reads: a member that a
   * late view change left out of the others' newest epoch answers "READY n" of an epoch they have
   * left and may miss their last commits (at most 5 reads; the epochs of each go to the detail).
   */
  private FinalState.Check finalCheck(List<BankClient> bank) throws Exception {
    for (int attempt = 1; ; attempt++) {
      String before = awaitOneEpoch();
      FinalState.Check check = FinalState.check(respPorts, bank);
      String after = epochs();
      if (after.equals(before)) {
        return check;
      }
      detail
          .append("the epoch changed during the final reads (")
          .append(before)
          .append(", then ")
          .append(after)
          .append("); ");
      if (attempt == 5) {
        throw new IllegalStateException(
            "the members' epoch changed during each of 5 final reads: " + detail);
      }
    }
  }

  /** Every member's answer to {@code epoch}: READY or WAIT, its epoch's size and number. */
  private String epochs() throws InterruptedException {
    return MemberEpochs.answers(members);
  }

  /**
   * Waits (at most 60 s) until every member is READY in one epoch, the same number, of every
   * member; returns their answers.
   */
  private String awaitOneEpoch() throws InterruptedException {
    return MemberEpochs.awaitOne(members, nodes, epochs(), 60, () -> "");
  }

  private static long sum(List<BankClient> bank, ToLongFunction<BankClient> f) {
    return bank.stream().mapToLong(f).sum();
  }

  /** Waits (at most 60 s) until every client had a new transfer acknowledged. */
  private void awaitProgress(List<BankClient> bank) throws InterruptedException {
    long[] before = new long[bank.size()];
    for (int i = 0; i < before.length; i++) {
      before[i] = bank.get(i).acknowledged.size();
    }
    long deadline = System.nanoTime() + LOCK_BOUND_NANOS;
    for (int i = 0; i < before.length; i++) {
      while (bank.get(i).acknowledged.size() <= before[i]) {
        if (System.nanoTime() > deadline) {
          lockedKeys++;
          detail
              .append(bank.get(i).id)
              .append(" had no transfer acknowledged in 30 s (last error: ")
              .append(bank.get(i).lastError)
              .append("); ");
          break;
        }
        Thread.sleep(20);
      }
    }
  }

  /**
   * Through every member, an EXEC writing every account (adding 0) must commit within 30 s of the
   * cluster settling: a key locked by a transaction that a fault left undecided would refuse it.
   */
  private void checkWritable(String after) throws InterruptedException {
    for (int m = 0; m < nodes; m++) {
      String failure = BankClient.touchAll(respPorts[m], LOCK_BOUND_NANOS);
      if (failure != null) {
        lockedKeys++;
        detail
            .append("after ")
            .append(after)
            .append(", m")
            .append(m)
            .append(" could not write every account in 30 s: ")
            .append(failure)
            .append("; ");
      }
    }
  }

  /** SIGKILLs member {@code victim}, waits for the others' new epoch, restarts it, waits. */
  private void kill(int victim) throws Exception {
    members[victim].kill();
    awaitTx(others(victim), "READY " + (nodes - 1));
    members[victim] = start(victim);
    awaitSettled();
  }

  /**
   * SIGKILLs every member at once, restarts them all from their logs, waits until their stores are
   * READY together: every transfer acknowledged before must still be there (the final check).
   */
  private void killAll() throws Exception {
    for (MemberProcess m : members) {
      m.kill();
    }
    startAll();
    awaitSettled();
    killedAll++;
  }

  /**
   * Cuts member {@code victim} off from the others, holds at least {@code holdMillis} and until one
   * of its clients was refused with CLUSTERDOWN (at most 30 s more: the refusal is what a cut-off
   * member owes its clients, and on a loaded host its clients can spend a whole short hold in waits
   * that began before the cut), heals, waits for the merge. If none was refused, what each of its
   * clients last saw goes into the result's detail.
   */
  private void partition(int victim, List<BankClient> bank) throws Exception {
    List<BankClient> victims =
        bank.stream().filter(b -> b.id.startsWith("c" + victim + ".")).toList();
    long refusedBefore = sum(victims, b -> b.refused.size());
    StringBuilder everyoneElse = new StringBuilder();
    for (int j = 0; j < nodes; j++) {
      if (j != victim) {
        everyoneElse.append(" m").append(j);
        ServerMembers.expect(members[j].ask("cut m" + victim, 30), "cut");
      }
    }
    ServerMembers.expect(members[victim].ask("cut" + everyoneElse, 30), "cut");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!split(victim)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the cut of m" + victim + " was not seen in 60 s");
      }
      for (int j = 0; j < nodes; j++) {
        ServerMembers.expect(
            members[j].ask(j == victim ? "suspect" + everyoneElse : "suspect m" + victim, 30),
            "suspected");
      }
      pollFor(() -> split(victim));
    }
    Thread.sleep(holdMillis);
    long refusalDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (sum(victims, b -> b.refused.size()) == refusedBefore
        && System.nanoTime() < refusalDeadline) {
      Thread.sleep(100);
    }
    if (sum(victims, b -> b.refused.size()) == refusedBefore) {
      detail.append("the cut of m").append(victim).append(" refused no EXEC in ");
      detail.append(holdMillis + 30_000).append(" ms; its clients last saw:");
      for (BankClient b : victims) {
        detail.append(' ').append(b.id).append(": ").append(b.lastError).append(';');
      }
      detail.append(' ');
    }
    for (MemberProcess m : members) {
      ServerMembers.expect(m.ask("heal", 30), "healed");
    }
    deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!allTx("READY " + nodes)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the cut of m" + victim + " did not heal in 60 s");
      }
      for (MemberProcess m : members) {
        ServerMembers.expect(m.ask("merge", 30), "merging");
      }
      pollFor(() -> allTx("READY " + nodes));
    }
  }

  /** A state of the members, asked over their control streams. */
  @FunctionalInterface
  private interface Seen {
    boolean holds() throws InterruptedException;
  }

  /**
   * Polls {@code seen} every 100 ms for 2 s, the time a suspicion or merge round is given before it
   * is asked for again; returns as soon as it holds.
   */
  private static void pollFor(Seen seen) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    while (!seen.holds() && System.nanoTime() < until) {
      Thread.sleep(100);
    }
  }

  /**
   * Whether the victim's store is not READY and every other member's is, in an epoch without it.
   */
  private boolean split(int victim) throws InterruptedException {
    if (members[victim].ask("tx", 30).startsWith("READY")) {
      return false;
    }
    for (MemberProcess m : others(victim)) {
      if (!m.ask("tx", 30).equals("READY " + (nodes - 1))) {
        return false;
      }
    }
    return true;
  }

  private boolean allTx(String wanted) throws InterruptedException {
    for (MemberProcess m : members) {
      if (!m.ask("tx", 30).equals(wanted)) {
        return false;
      }
    }
    return true;
  }

  /** Waits (at most 60 s) until every given member answers {@code wanted} to {@code tx}. */
  private static void awaitTx(List<MemberProcess> which, String wanted)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (MemberProcess m : which) {
      String seen = m.ask("tx", 30);
      while (!seen.equals(wanted)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "a member's store did not reach " + wanted + " in 60 s (it says " + seen + ")");
        }
        Thread.sleep(50);
        seen = m.ask("tx", 30);
      }
    }
  }

  /** Waits until every member's store is READY in an epoch of every member. */
  private void awaitSettled() throws InterruptedException {
    awaitTx(List.of(members), "READY " + nodes);
  }

  private List<MemberProcess> others(int i) {
    return ServerMembers.others(members, i);
  }

  private void startAll() throws Exception {
    ExecutorService starters = Executors.newFixedThreadPool(nodes);
    try {
      List<Future<MemberProcess>> starting = new ArrayList<>();
      for (int i = 0; i < nodes; i++) {
        int member = i;
        starting.add(starters.submit(() -> start(member)));
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
                clusterPorts[i] = LoopbackChild.freePortWith(TRANSACTIONS_PORT_OFFSET);
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
    return MemberProcess.start(
        "192m",
        errors.resolve("m" + i + "-" + System.nanoTime()),
        ServerClusterNode.class,
        "resp-port=" + respPorts[i],
        "memcache-port=-1",
        "http-port=-1",
        "maxmemory=64mb",
        "cluster=" + cluster,
        "cluster-port=" + clusterPorts[i],
        "peers=" + peers,
        "cluster-node-name=m" + i,
        "cluster-size=" + nodes,
        "cluster-mode=" + mode,
        "cluster-owners=" + TxClusterMode.owners(nodes),
        "cluster-transactions=on",
        "cluster-timeout=3000",
        "cluster-command-threads=16",
        "dir=" + (persistence.equals("memory") ? "" : errors.resolve("data-m" + i)),
        "appendfsync=" + (persistence.equals("memory") ? "everysec" : persistence));
  }

  /**
   * Ends every member and deletes the trial's files. The checks are done, so the members are
   * SIGKILLed rather than closed one after another (each close takes seconds).
   */
  private void stopAll() throws IOException, InterruptedException {
    for (MemberProcess m : members) {
      if (m != null) {
        m.kill();
      }
    }
    ServerMembers.stopAll(members, errors);
  }
}
