package dev.larder.bench.cluster;

import dev.larder.cluster.ClusterMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * A kill trial: N member JVMs on the loopback stack under continuous SYNC writes; every {@code
 * pauseMillis} one member, picked at random, is killed with SIGKILL, the survivors are given time
 * to see the view and restore their copies, and a fresh JVM takes its place and rejoins; the next
 * kill comes once every member has finished its state transfer. At the end the writers stop and
 * every member checks every acknowledged write of every incarnation. Members are configured as a
 * deployment that knows its size would be: with {@code initialClusterSize(nodes)}, so that a
 * restarted member that fails to find the cluster on a loaded host (and founds one of its own until
 * MERGE3 merges it back) takes no writes meanwhile; the first members start together.
 *
 * <p>Child JVMs are started and stopped here, bind 127.0.0.1 only, and every wait is bounded.
 */
public final class ClusterKillTrial {

  /**
   * What one trial found.
   *
   * @param kills SIGKILLs done
   * @param acked acknowledged writes (over all incarnations)
   * @param keys distinct keys with an acknowledged write
   * @param losses acknowledged writes not readable with their latest value, summed over members
   * @param verifiedMembers members that verified
   * @param millis wall-clock time of the trial
   * @param detail empty without losses; else each member's losses, the first keys it lost, and the
   *     warnings every incarnation logged, for finding the cause
   */
  public record Result(
      int kills,
      long acked,
      long keys,
      long losses,
      int verifiedMembers,
      long millis,
      String detail) {}

  /** Lines of a member's standard error kept in a result's detail, at most, per incarnation. */
  private static final int DETAIL_LINES = 20;

  private final ClusterMode mode;
  private final int nodes;
  private final int kills;
  private final long pauseMillis;
  private final Consumer<String> progress;
  private final Random random = new Random();
  private final String port = String.valueOf(21000 + new Random().nextInt(20000));
  private final String cluster = "kill-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
  private final List<MemberProcess> members = new ArrayList<>();
  private int incarnations;
  private Path logs;
  private Path errors;
  private final StringBuilder events = new StringBuilder();
  private final Map<MemberProcess, String> names = new HashMap<>();
  private long trialStart;

  /**
   * @param mode REPLICATED or DISTRIBUTED (owners 2)
   * @param nodes member JVMs, at least 3
   * @param kills how many SIGKILLs
   * @param pauseMillis time between a rejoin and the next kill
   * @param progress where to report progress lines
   */
  public ClusterKillTrial(
      ClusterMode mode, int nodes, int kills, long pauseMillis, Consumer<String> progress) {
    if (nodes < 3) {
      throw new IllegalArgumentException("a kill trial needs at least 3 nodes, got " + nodes);
    }
    this.mode = mode;
    this.nodes = nodes;
    this.kills = kills;
    this.pauseMillis = pauseMillis;
    this.progress = progress;
  }

  /**
   * Runs the trial.
   *
   * @return the counts
   * @throws Exception if a member cannot be started or stops answering
   */
  public Result run() throws Exception {
    trialStart = System.nanoTime();
    logs = Files.createTempDirectory("larder-kill-trial");
    errors = Files.createTempDirectory("larder-kill-trial-stderr");
    try {
      members.addAll(startMembers(nodes));
      awaitStable();
      int done = 0;
      while (done < kills) {
        Thread.sleep(pauseMillis);
        int victim = random.nextInt(members.size());
        MemberProcess killed = members.remove(victim);
        killed.kill();
        event("killed " + names.get(killed));
        done++;
        MemberProcess.awaitMembers(members, nodes - 1);
        members.addAll(startMembers(1));
        awaitStable();
        progress.accept(mode + ": " + done + " kills");
      }
      for (MemberProcess c : members) {
        c.ask("stop", 60);
      }
      long losses = 0;
      long acked = 0;
      long keys = 0;
      StringBuilder perMember = new StringBuilder();
      for (MemberProcess c : members) {
        String answer = c.ask("verify " + logs, 150);
        if (!answer.startsWith("acked=")) {
          throw new IllegalStateException(
              names.get(c) + " could not verify: " + answer + "; " + events + stderrDigest());
        }
        String[] v = answer.split(" ", -1);
        acked = Long.parseLong(v[0].substring("acked=".length()));
        keys = Long.parseLong(v[1].substring("keys=".length()));
        long lost = Long.parseLong(v[2].substring("losses=".length()));
        losses += lost;
        perMember.append(names.get(c)).append(": ").append(lost).append(" losses; ");
      }
      return new Result(
          done,
          acked,
          keys,
          losses,
          members.size(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - trialStart),
          losses == 0 ? "" : perMember + events.toString() + stderrDigest());
    } finally {
      stopAll();
    }
  }

  /**
   * Starts members at once. Each waits, before it is ready, until its view holds {@code nodes}
   * members (the cluster's initialClusterSize), so the first ones must start together.
   */
  private List<MemberProcess> startMembers(int count) throws Exception {
    List<String> newNames = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      newNames.add("m" + incarnations++);
    }
    ExecutorService starters = Executors.newFixedThreadPool(count);
    try {
      List<Future<MemberProcess>> starting = new ArrayList<>();
      for (String name : newNames) {
        starting.add(
            starters.submit(
                () ->
                    MemberProcess.start(
                        "256m",
                        errors.resolve(name + ".err"),
                        KillTrialNode.class,
                        port,
                        cluster,
                        name,
                        mode.name(),
                        logs.resolve(name + ".log").toString(),
                        String.valueOf(nodes))));
      }
      List<MemberProcess> started = new ArrayList<>();
      Exception failure = null;
      for (Future<MemberProcess> f : starting) {
        try {
          started.add(f.get());
        } catch (ExecutionException e) {
          failure = e.getCause() instanceof Exception cause ? cause : e;
        }
      }
      if (failure != null) {
        for (MemberProcess m : started) {
          m.kill();
        }
        throw failure;
      }
      for (int i = 0; i < count; i++) {
        names.put(started.get(i), newNames.get(i));
        event("started " + newNames.get(i));
      }
      return started;
    } finally {
      starters.shutdownNow();
    }
  }

  private void event(String what) {
    events
        .append(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - trialStart))
        .append(" ms: ")
        .append(what)
        .append("; ");
  }

  /** The warnings and loss lines of every incarnation's standard error. */
  private String stderrDigest() throws IOException {
    StringBuilder out = new StringBuilder();
    try (Stream<Path> files = Files.list(errors)) {
      for (Path f : files.sorted().toList()) {
        List<String> kept =
            Files.readAllLines(f).stream()
                .filter(
                    l ->
                        l.startsWith("WARNING")
                            || l.startsWith("SEVERE")
                            || l.startsWith("loss:")
                            || l.startsWith("put failed:")
                            || l.startsWith("verify:")
                            || l.contains("Exception"))
                .limit(DETAIL_LINES)
                .toList();
        if (!kept.isEmpty()) {
          out.append("\n")
              .append(f.getFileName())
              .append(":\n  ")
              .append(String.join("\n  ", kept));
        }
      }
    }
    return out.toString();
  }

  private void awaitStable() throws InterruptedException {
    MemberProcess.awaitMembers(members, nodes);
    for (MemberProcess c : members) {
      String answer = c.ask("rebalanced", 60);
      if (!answer.equals("true")) {
        throw new IllegalStateException(
            names.get(c) + " did not finish its state transfer: " + answer);
      }
    }
    event("stable");
  }

  private void stopAll() throws IOException, InterruptedException {
    for (MemberProcess c : members) {
      c.stop();
    }
    for (Path dir : new Path[] {logs, errors}) {
      if (dir != null) {
        try (Stream<Path> files = Files.walk(dir)) {
          for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
            Files.deleteIfExists(p);
          }
        }
      }
    }
  }
}
