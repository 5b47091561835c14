package dev.larder.bench.crash;

import dev.larder.bench.scenario.ProgressCount;
import dev.larder.tx.TxCache;
import dev.larder.tx.TxStore;
import dev.larder.wal.FsyncPolicy;
import dev.larder.wal.RecoveryReport;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Crash trials: start {@link CrashChild} in its own JVM on a directory, let it commit for a random
 * time, kill it with SIGKILL ({@link Process#destroyForcibly()} on Linux), rebuild the store from
 * the directory in this process and check that every commit the child printed is there, that the
 * account total is unchanged (no commit visible in part), and how long recovery took. The same
 * directory carries over from trial to trial, so each recovery also starts from the previous one.
 *
 * <p>Not thread-safe; one run at a time per directory.
 */
public final class CrashTrials {

  /**
   * What a run found.
   *
   * @param policy the fsync policy
   * @param trials trials run
   * @param acknowledged commits the children printed
   * @param lost printed commits missing after recovery
   * @param partial trials where the account total was wrong
   * @param tornTails trials where recovery reported a torn tail
   * @param recoveryMillis rebuild time of each trial, sorted
   * @param childFailures trials where the child died before being killed (its stderr tail)
   * @param trialsWithLoss trials that lost at least one acknowledged commit
   * @param lostMaxAgeMillis the oldest lost commit: how long before the kill it was acknowledged
   *     (the child's clock and this one are the same monotonic clock on Linux); NaN if none lost
   */
  public record Result(
      String policy,
      int trials,
      long acknowledged,
      long lost,
      int partial,
      int tornTails,
      List<Double> recoveryMillis,
      List<String> childFailures,
      int trialsWithLoss,
      double lostMaxAgeMillis) {

    /**
     * Returns a quantile of the recovery times.
     *
     * @param q a quantile in [0, 1]
     * @return that quantile of the recovery times, ms
     */
    public double recoveryQuantile(double q) {
      if (recoveryMillis.isEmpty()) {
        return Double.NaN;
      }
      return recoveryMillis.get(
          (int) Math.min(recoveryMillis.size() - 1, Math.floor(q * recoveryMillis.size())));
    }
  }

  private final Path directory;
  private final FsyncPolicy policy;
  private final int threads;
  private final Random random;

  /**
   * @param directory the log directory (created; reused across trials)
   * @param policy the child's fsync policy
   * @param threads the child's committing threads
   * @param seed seeds the kill times
   */
  public CrashTrials(Path directory, FsyncPolicy policy, int threads, long seed) {
    this.directory = directory;
    this.policy = policy;
    this.threads = threads;
    this.random = new Random(seed);
  }

  /**
   * Returns the findings.
   *
   * @param trials how many kills
   * @param maxRunMillis each child runs a random time up to this after it is ready
   * @param progress receives a {@link ProgressCount} message after each trial
   * @throws Exception if a child cannot be started or the directory cannot be recovered
   */
  public Result run(int trials, int maxRunMillis, Consumer<String> progress) throws Exception {
    try (TxStore store = CrashWorkload.open(directory, policy, Duration.ZERO)) {
      if (store.cache(CrashWorkload.ACCOUNTS).get(0) == null) {
        CrashWorkload.initialize(store);
      }
    }
    long acknowledged = 0;
    long lost = 0;
    int partial = 0;
    int torn = 0;
    List<Double> recovery = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    int trialsWithLoss = 0;
    double lostMaxAge = Double.NaN;
    for (int trial = 0; trial < trials; trial++) {
      Child child = runChild((trial + 1) * 1_000_000_000L, 10 + random.nextInt(maxRunMillis));
      if (child.failure != null) {
        failures.add(child.failure);
      }
      acknowledged += child.acknowledged.size();
      long started = System.nanoTime();
      try (TxStore store = CrashWorkload.open(directory, policy, Duration.ZERO)) {
        recovery.add((System.nanoTime() - started) / 1e6);
        RecoveryReport report = store.recovery().orElseThrow();
        if (report.problems().stream().anyMatch(p -> p.startsWith("torn tail"))) {
          torn++;
        }
        TxCache<Long, Long> ids = store.cache(CrashWorkload.IDS);
        long lostHere = 0;
        for (int i = 0; i < child.acknowledged.size(); i++) {
          if (ids.get(child.acknowledged.get(i)) == null) {
            lostHere++;
            double age = (child.killNanos - child.ackNanos.get(i)) / 1e6;
            lostMaxAge = Double.isNaN(lostMaxAge) ? age : Math.max(lostMaxAge, age);
          }
        }
        lost += lostHere;
        if (lostHere > 0) {
          trialsWithLoss++;
        }
        if (!PowerCutTrials.totalHolds(store)) {
          partial++;
        }
      }
      // A trial takes seconds: count each one (the harness draws a bar with the time left).
      progress.accept(
          new ProgressCount(
                  "kills",
                  trial + 1,
                  trials,
                  lost
                      + " lost"
                      + (lost > 0
                          ? " in "
                              + trialsWithLoss
                              + " trials, oldest "
                              + lostMaxAge
                              + " ms before "
                              + "the kill"
                          : "")
                      + ", "
                      + partial
                      + " partial")
              .encode());
    }
    Collections.sort(recovery);
    return new Result(
        policy.toString(),
        trials,
        acknowledged,
        lost,
        partial,
        torn,
        recovery,
        failures,
        trialsWithLoss,
        lostMaxAge);
  }

  /**
   * A killed child: the ids it printed, when it acknowledged each, when it was killed, and why it
   * died if it died on its own.
   */
  private record Child(
      List<Long> acknowledged, List<Long> ackNanos, long killNanos, String failure) {}

  private Child runChild(long firstId, int runMillis) throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    ProcessBuilder builder =
        new ProcessBuilder(
            java.toString(),
            "-Xmx256m",
            "--enable-native-access=ALL-UNNAMED",
            "-cp",
            System.getProperty("java.class.path"),
            CrashChild.class.getName(),
            directory.toString(),
            policy.toString().replace("ms", ""),
            String.valueOf(threads),
            String.valueOf(firstId));
    builder.redirectError(ProcessBuilder.Redirect.PIPE);
    Process process = builder.start();
    List<Long> acknowledged = new ArrayList<>();
    List<Long> ackNanos = new ArrayList<>();
    CountDownLatch ready = new CountDownLatch(1);
    Thread reader = Thread.ofPlatform().start(() -> read(process, acknowledged, ackNanos, ready));
    StringBuilder errors = new StringBuilder();
    Thread errorReader = Thread.ofPlatform().start(() -> drain(process, errors));
    boolean started = ready.await(60, TimeUnit.SECONDS);
    if (started) {
      Thread.sleep(runMillis);
    }
    boolean diedAlone = !process.isAlive();
    long killNanos = System.nanoTime();
    process.destroyForcibly(); // SIGKILL on Linux and macOS
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("child did not die after SIGKILL");
    }
    reader.join(30_000);
    errorReader.join(30_000);
    String failure = !started || diedAlone ? "child exited early: " + tail(errors) : null;
    // The reader thread has ended (joined): its lists are complete and visible here.
    return new Child(List.copyOf(acknowledged), List.copyOf(ackNanos), killNanos, failure);
  }

  private static void read(
      Process process, List<Long> acknowledged, List<Long> ackNanos, CountDownLatch ready) {
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.equals("READY")) {
          ready.countDown();
        } else if (line.startsWith("C ")) {
          String[] parts = line.split(" ", -1);
          acknowledged.add(Long.parseLong(parts[1]));
          ackNanos.add(parts.length > 2 ? Long.parseLong(parts[2]) : System.nanoTime());
        }
        // The child writes each line whole with one write(2), so no line is cut by the kill.
      }
    } catch (IOException | NumberFormatException e) {
      // the pipe closed with the process
    }
  }

  private static void drain(Process process, StringBuilder errors) {
    try {
      errors.append(new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      // the pipe closed with the process
    }
  }

  private static String tail(StringBuilder errors) {
    String s = errors.toString().strip();
    return s.length() > 500 ? s.substring(s.length() - 500) : s;
  }
}
