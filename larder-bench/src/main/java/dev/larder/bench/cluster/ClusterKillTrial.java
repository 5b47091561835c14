package dev.larder.bench.cluster;

import dev.larder.cluster.ClusterMode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * A kill trial: N member JVMs on the loopback stack under continuous SYNC writes; every
 * {@code pauseMillis} one member, picked at random, is killed with SIGKILL, the survivors are
 * given time to see the view and restore their copies, and a fresh JVM takes its place and
 * rejoins; the next kill comes once every member has finished its state transfer. At the end
 * the writers stop and every member checks every acknowledged write of every incarnation.
 *
 * <p>Child JVMs are started and stopped here, bind 127.0.0.1 only, and every wait is bounded.
 */
public final class ClusterKillTrial {

  /**
   * @param kills SIGKILLs done
   * @param acked acknowledged writes (over all incarnations)
   * @param keys distinct keys with an acknowledged write
   * @param losses acknowledged writes not readable with their latest value, summed over members
   * @param verifiedMembers members that verified
   * @param millis wall-clock time of the trial
   */
  public record Result(int kills, long acked, long keys, long losses, int verifiedMembers,
      long millis) {}

  private final ClusterMode mode;
  private final int nodes;
  private final int kills;
  private final long pauseMillis;
  private final Consumer<String> progress;
  private final Random random = new Random();
  private final String port = String.valueOf(21000 + new Random().nextInt(20000));
  private final String cluster = "kill-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
  private final List<Child> members = new ArrayList<>();
  private int incarnations;
  private Path logs;

  /**
   * @param mode REPLICATED or DISTRIBUTED (owners 2)
   * @param nodes member JVMs, at least 3
   * @param kills how many SIGKILLs
   * @param pauseMillis time between a rejoin and the next kill
   * @param progress where to report progress lines
   */
  public ClusterKillTrial(ClusterMode mode, int nodes, int kills, long pauseMillis,
      Consumer<String> progress) {
    if (nodes < 3) {
      throw new IllegalArgumentException("a kill trial needs at least 3 nodes, got " + nodes);
    }
    this.mode = mode;
    this.nodes = nodes;
    this.kills = kills;
    this.pauseMillis = pauseMillis;
    this.progress = progress;
  }

  /** A member JVM. */
  private static final class Child {
    final Process process;
    final PrintStream in;
    final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    Child(Process process) {
      this.process = process;
      this.in = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
      Thread reader = new Thread(() -> {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(
            process.getInputStream(), StandardCharsets.UTF_8))) {
          for (String l = r.readLine(); l != null; l = r.readLine()) {
            lines.add(l);
          }
        } catch (IOException e) {
          lines.add("io-error");
        }
      });
      reader.setDaemon(true);
      reader.start();
    }

    String ask(String command, int seconds) throws InterruptedException {
      in.println(command);
      String l = lines.poll(seconds, TimeUnit.SECONDS);
      if (l == null) {
        throw new IllegalStateException("member " + process.pid() + " did not answer " + command);
      }
      return l;
    }
  }

  /**
   * Runs the trial.
   *
   * @return the counts
   * @throws Exception if a member cannot be started or stops answering
   */
  public Result run() throws Exception {
    long start = System.nanoTime();
    logs = Files.createTempDirectory("larder-kill-trial");
    try {
      for (int i = 0; i < nodes; i++) {
        members.add(startMember());
      }
      awaitStable();
      int done = 0;
      while (done < kills) {
        Thread.sleep(pauseMillis);
        int victim = random.nextInt(members.size());
        members.get(victim).process.destroyForcibly();
        members.get(victim).process.waitFor(10, TimeUnit.SECONDS);
        members.remove(victim);
        done++;
        awaitMembers(nodes - 1);
        members.add(startMember());
        awaitStable();
        progress.accept(mode + ": " + done + " kills");
      }
      for (Child c : members) {
        c.ask("stop", 60);
      }
      long losses = 0;
      long acked = 0;
      long keys = 0;
      for (Child c : members) {
        String[] v = c.ask("verify " + logs, 300).split(" ");
        acked = Long.parseLong(v[0].substring("acked=".length()));
        keys = Long.parseLong(v[1].substring("keys=".length()));
        losses += Long.parseLong(v[2].substring("losses=".length()));
      }
      return new Result(done, acked, keys, losses, members.size(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    } finally {
      stopAll();
    }
  }

  private Child startMember() throws Exception {
    String name = "m" + (incarnations++);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(java, "-Xmx256m", "-Djava.net.preferIPv4Stack=true",
        "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
        KillTrialNode.class.getName(), port, cluster, name, mode.name(),
        logs.resolve(name + ".log").toString())
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    Child c = new Child(p);
    String ready = c.lines.poll(60, TimeUnit.SECONDS);
    if (!"ready".equals(ready)) {
      p.destroyForcibly();
      throw new IllegalStateException("member " + name + " did not start: " + ready);
    }
    return c;
  }

  private void awaitMembers(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (Child c : members) {
      while (!c.ask("members", 30).equals(String.valueOf(n))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the cluster did not settle at " + n + " members");
        }
        Thread.sleep(50);
      }
    }
  }

  private void awaitStable() throws InterruptedException {
    awaitMembers(nodes);
    for (Child c : members) {
      if (!c.ask("rebalanced", 60).equals("true")) {
        throw new IllegalStateException("a member did not finish its state transfer");
      }
    }
  }

  private void stopAll() throws IOException, InterruptedException {
    for (Child c : members) {
      c.in.println("quit");
      c.in.close();
    }
    for (Child c : members) {
      if (!c.process.waitFor(15, TimeUnit.SECONDS)) {
        c.process.destroyForcibly();
        c.process.waitFor(10, TimeUnit.SECONDS);
      }
    }
    if (logs != null) {
      try (Stream<Path> files = Files.walk(logs)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }
}
