package dev.larder.bench.servercrash;

import dev.larder.bench.scenario.ProgressCount;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

/**
 * Server crash trials: start a server on a directory, check it against what its clients had
 * acknowledged before the last kill, let the clients write for a random time, kill it with SIGKILL;
 * repeat. The directory carries over, so each start recovers everything before it.
 *
 * <p>Not thread-safe; one run at a time.
 */
public final class ServerCrashTrials {
  private final CrashTarget target;
  private final Random random;

  /**
   * @param implementation "Larder" or "Redis"
   * @param directory the server's directory (created empty by the caller; reused across trials)
   * @param policy always, everysec or no
   * @param seed seeds the kill times
   */
  public ServerCrashTrials(String implementation, Path directory, String policy, long seed) {
    this.target = new CrashTarget(implementation, directory, policy);
    this.random = new Random(seed);
  }

  /**
   * What a run found.
   *
   * @param trials kills
   * @param respAcknowledged RESP writes acknowledged (SETs and transactions)
   * @param memcachedAcknowledged memcached writes acknowledged (Larder only)
   * @param respLost acknowledged RESP writes missing after a restart
   * @param memcachedLost acknowledged memcached writes missing after a restart
   * @param partial transactions found with some of their writes and not others
   * @param readyMillis each restart's time from process start to its first PONG, sorted
   */
  public record Result(
      int trials,
      long respAcknowledged,
      long memcachedAcknowledged,
      long respLost,
      long memcachedLost,
      long partial,
      List<Double> readyMillis) {

    /**
     * Returns a quantile of the restart times.
     *
     * @param q a quantile in [0, 1]
     * @return that quantile of the restart times, ms
     */
    public double readyQuantile(double q) {
      return readyMillis.isEmpty()
          ? Double.NaN
          : readyMillis.get(
              (int) Math.min(readyMillis.size() - 1, Math.floor(q * readyMillis.size())));
    }
  }

  /** Returns whether the server speaks memcached (its rows exist). */
  public boolean speaksMemcached() {
    return target.speaksMemcached();
  }

  /**
   * Returns the findings.
   *
   * @param trials how many kills
   * @param maxRunMillis the writers run a random time from 100 ms up to this before each kill
   * @param progress told after each trial
   * @throws Exception if a server cannot be started or a client fails other than by the kill
   */
  public Result run(int trials, int maxRunMillis, Consumer<String> progress) throws Exception {
    CrashWriters writers = new CrashWriters(target.speaksMemcached());
    long respAcked = 0;
    long mcAcked = 0;
    long respLost = 0;
    long mcLost = 0;
    long partial = 0;
    List<Double> ready = new ArrayList<>();
    for (int trial = 0; trial <= trials; trial++) {
      CrashTarget.Running server = target.start();
      try {
        if (trial > 0) {
          ready.add(server.readyMillis());
        }
        CrashWriters.Found found = writers.check(server);
        respLost += found.lostResp();
        mcLost += found.lostMemcached();
        partial += found.partial();
        if (trial == trials) {
          break;
        }
        long runMillis = 100L + random.nextInt(Math.max(1, maxRunMillis - 100));
        CrashWriters.Acknowledged acked = writers.run(server, runMillis, server::kill);
        respAcked += acked.resp();
        mcAcked += acked.memcached();
      } finally {
        server.kill();
      }
      progress.accept(
          new ProgressCount(
                  "kills",
                  trial + 1,
                  trials,
                  (respLost + mcLost) + " lost, " + partial + " partial")
              .encode());
    }
    Collections.sort(ready);
    return new Result(trials, respAcked, mcAcked, respLost, mcLost, partial, ready);
  }
}
