package dev.larder.bench.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The throughput trial of {@code ./larder bench cluster-tx}: {@code nodes} member JVMs of one
 * implementation ({@link TxBenchNode}); a warm-up, then for each thread count and conflict share
 * every member runs transfers with that many threads for {@code seconds}, at once; commits and
 * aborts are summed over the members. Child JVMs bind 127.0.0.1 only; every wait is bounded.
 */
public final class TxThroughputTrial {

  /**
   * One cell.
   *
   * @param threads client threads per member
   * @param conflictPercent share of transactions on the shared hot keys
   * @param commits committed transfers, all members
   * @param aborts refused transfers
   * @param errors transfers that failed otherwise (timeouts)
   * @param seconds measured time
   */
  public record Cell(
      int threads, int conflictPercent, long commits, long aborts, long errors, int seconds) {
    /** Returns commits a second. */
    public double commitsPerSecond() {
      return commits / (double) seconds;
    }

    /** Returns aborts as a share of attempts, in percent. */
    public double abortPercent() {
      long attempts = commits + aborts;
      return attempts == 0 ? 0 : 100.0 * aborts / attempts;
    }
  }

  private final String mode;
  private final String implementation;
  private final int nodes;
  private final List<Long> threads;
  private final List<Long> conflicts;
  private final int seconds;
  private final int warmupSeconds;
  private final Consumer<String> progress;

  public TxThroughputTrial(
      String implementation,
      int nodes,
      List<Long> threads,
      List<Long> conflicts,
      int seconds,
      int warmupSeconds,
      String mode,
      Consumer<String> progress) {
    TxClusterMode.parse(mode);
    this.mode = mode;
    this.implementation = implementation;
    this.nodes = nodes;
    this.threads = threads;
    this.conflicts = conflicts;
    this.seconds = seconds;
    this.warmupSeconds = warmupSeconds;
    this.progress = progress;
  }

  public List<Cell> run() throws Exception {
    String port = String.valueOf(21000 + new Random().nextInt(20000));
    String cluster = "txb-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    Path root = Files.createTempDirectory("larder-tx-bench");
    List<MemberProcess> members = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(nodes);
    try {
      List<Future<MemberProcess>> starting = new ArrayList<>();
      for (int i = 0; i < nodes; i++) {
        String name = "b" + i;
        starting.add(
            pool.submit(
                () ->
                    MemberProcess.start(
                        "512m",
                        root.resolve(name + ".err"),
                        TxBenchNode.class,
                        implementation,
                        port,
                        cluster,
                        name,
                        String.valueOf(nodes),
                        root.resolve("data-" + name).toString(),
                        mode)));
      }
      for (Future<MemberProcess> f : starting) {
        members.add(f.get(150, TimeUnit.SECONDS));
      }
      MemberProcess.awaitMembers(members, nodes);
      if (warmupSeconds > 0) {
        runAll(pool, members, 4, 0, warmupSeconds);
      }
      List<Cell> cells = new ArrayList<>();
      for (long t : threads) {
        for (long c : conflicts) {
          long[] sums = runAll(pool, members, (int) t, (int) c, seconds);
          Cell cell = new Cell((int) t, (int) c, sums[0], sums[1], sums[2], seconds);
          cells.add(cell);
          progress.accept(
              implementation
                  + ": "
                  + t
                  + " threads, "
                  + c
                  + "% conflicting: "
                  + Math.round(cell.commitsPerSecond())
                  + " commits/s, "
                  + Math.round(cell.abortPercent())
                  + "% aborts");
        }
      }
      return cells;
    } finally {
      for (MemberProcess m : members) {
        m.stop();
      }
      pool.shutdownNow();
      try (Stream<Path> files = Files.walk(root)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      } catch (IOException e) {
        progress.accept("could not delete " + root + ": " + e);
      }
    }
  }

  private static long[] runAll(
      ExecutorService pool, List<MemberProcess> members, int threads, int conflict, int seconds)
      throws Exception {
    List<Future<String>> answers = new ArrayList<>();
    for (MemberProcess m : members) {
      answers.add(
          pool.submit(
              () -> m.ask("run " + threads + " " + conflict + " " + seconds, seconds + 120)));
    }
    long[] sums = new long[3];
    for (Future<String> f : answers) {
      String[] w = f.get(seconds + 180L, TimeUnit.SECONDS).split(" ", -1);
      for (int i = 0; i < 3; i++) {
        sums[i] += Long.parseLong(w[i]);
      }
    }
    return sums;
  }
}
