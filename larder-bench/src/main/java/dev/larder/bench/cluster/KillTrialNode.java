package dev.larder.bench.cluster;

import dev.larder.cluster.ClusterConfig;
import dev.larder.cluster.ClusterMode;
import dev.larder.cluster.ClusterTimeoutException;
import dev.larder.cluster.ClusteredCache;
import dev.larder.cluster.Stacks;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One member of a kill trial, in its own JVM. A writer thread puts (SYNC) keys of its own, logging
 * each attempt before the put ({@code A key value}) and each acknowledgement after it ({@code K key
 * value}) to a file, so the log survives a SIGKILL. Commands on stdin, one answer line each: {@code
 * members}, {@code rebalanced}, {@code stop} (stop writing), {@code verify LOGDIR} (check every
 * acknowledged write of every log against this member's reads), {@code quit}. A command that fails
 * answers {@code error} and the exception, so the driver hears of it at once.
 *
 * <p>Arguments: port, cluster name, node name, mode, log file, the cluster's size (its
 * initialClusterSize: a member takes no writes before its view holds that many members).
 */
public final class KillTrialNode {

  private static final int KEYS_PER_WRITER = 200;

  /** Reads during verification that time out are retried this many times after a settle. */
  private static final int READ_ATTEMPTS = 5;

  private KillTrialNode() {}

  public static void main(String[] args) throws Exception {
    System.setProperty("larder.cluster.port", args[0]);
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    ClusterMode mode = ClusterMode.valueOf(args[3]);
    try (ClusteredCache<String, String> cache =
        ClusteredCache.builder(String.class, String.class)
            .cluster(
                ClusterConfig.builder()
                    .stack(Stacks.LOOPBACK)
                    .clusterName(args[1])
                    .nodeName(args[2])
                    .mode(mode)
                    .owners(2)
                    .timeout(Duration.ofSeconds(5))
                    .initialClusterSize(Integer.parseInt(args[5]))
                    .segments(64)
                    .build())
            .build()) {
      out.println("ready");
      AtomicBoolean stop = new AtomicBoolean();
      Thread writer = new Thread(() -> write(cache, args[2], Path.of(args[4]), stop));
      writer.setDaemon(true);
      writer.start();
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String[] w = line.trim().split(" ", -1);
        if (w[0].equals("quit")) {
          return;
        }
        try {
          switch (w[0]) {
            case "members" -> out.println(cache.members().size());
            case "rebalanced" -> out.println(cache.awaitRebalanced(Duration.ofSeconds(30)));
            case "stop" -> {
              stop.set(true);
              writer.join(30_000);
              out.println("stopped");
            }
            case "verify" -> out.println(verify(cache, Path.of(w[1])));
            default -> out.println("unknown " + line);
          }
        } catch (RuntimeException | IOException e) {
          e.printStackTrace();
          out.println("error " + e);
        }
      }
    }
  }

  private static void write(
      ClusteredCache<String, String> cache, String incarnation, Path log, AtomicBoolean stop) {
    try (Writer w = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
      long failures = 0;
      for (long i = 0; !stop.get(); i++) {
        String key = incarnation + "/k" + (i % KEYS_PER_WRITER);
        String value = incarnation + "/" + i;
        w.write("A " + key + " " + value + "\n");
        w.flush();
        try {
          cache.put(key, value);
        } catch (RuntimeException e) {
          // not acknowledged: the log has the attempt only
          if (++failures <= 5) {
            System.err.println("put failed: " + key + " " + value + ": " + e);
          }
          continue;
        }
        w.write("K " + key + " " + value + "\n");
        w.flush();
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot write the acknowledgement log " + log, e);
    }
  }

  /**
   * Reads every log in the directory; each key's last acknowledged value must be read here, or a
   * value attempted after it (an unacknowledged write may have landed). Anything else, including a
   * value that was never attempted, is a loss.
   *
   * @return {@code acked=N keys=M losses=L}
   */
  static String verify(ClusteredCache<String, String> cache, Path dir) throws IOException {
    Map<String, String> lastAcked = new HashMap<>();
    Map<String, Set<String>> allowed = new HashMap<>();
    long acked = 0;
    try (var files = Files.list(dir)) {
      for (Path f : files.toList()) {
        List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
        for (String l : lines) {
          String[] p = l.split(" ", -1);
          if (p.length != 3 || p[2].isEmpty()) {
            continue; // a line torn by the kill (a value is never empty)
          }
          if (p[0].equals("K")) {
            acked++;
            lastAcked.put(p[1], p[2]);
            allowed.put(p[1], new HashSet<>(Set.of(p[2])));
          } else if (allowed.containsKey(p[1])) {
            allowed.get(p[1]).add(p[2]);
          }
        }
      }
    }
    long losses = 0;
    for (Map.Entry<String, String> e : lastAcked.entrySet()) {
      String read = read(cache, e.getKey());
      if (read == null || !allowed.get(e.getKey()).contains(read)) {
        losses++;
        if (losses <= 5) {
          System.err.println(
              "loss: "
                  + e.getKey()
                  + " acked "
                  + e.getValue()
                  + " read "
                  + read
                  + (cache.isLocalOwner(e.getKey()) ? " (owned here)" : " (owned elsewhere)"));
        }
      }
    }
    if (losses > 0) {
      System.err.println("loss: this member's rebalances: " + cache.rebalanceStats());
    }
    return "acked=" + acked + " keys=" + lastAcked.size() + " losses=" + losses;
  }

  /**
   * A read that timed out says the cluster is still settling (a late view change on a busy
   * machine), not that the write is lost: wait for the state transfer and ask again.
   */
  private static String read(ClusteredCache<String, String> cache, String key) {
    for (int attempt = 1; ; attempt++) {
      try {
        return cache.getIfPresent(key);
      } catch (ClusterTimeoutException e) {
        if (attempt == READ_ATTEMPTS) {
          throw e;
        }
        System.err.println("verify: read of " + key + " timed out, settling: " + e);
        cache.awaitRebalanced(Duration.ofSeconds(30));
      }
    }
  }
}
