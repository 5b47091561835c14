package dev.larder.bench.servercrash;

import dev.larder.bench.harness.FreshPortStart;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A server that keeps its data in a directory, run as a child process on 127.0.0.1 so that it can
 * be killed with SIGKILL: Larder's ({@code ./larder serve --dir}, whose JVM replaces the script's
 * process, so the child's pid is the server's) or redis-server ({@code appendonly yes}, no RDB
 * snapshots, the same {@code appendfsync}).
 *
 * @param implementation "Larder" or "Redis"
 * @param directory where the server keeps its data (reused across starts)
 * @param policy always, everysec or no
 * @param larderSettings more {@code --set NAME=VALUE} settings for Larder's server, none for Redis
 */
record CrashTarget(
    String implementation, Path directory, String policy, List<String> larderSettings) {

  CrashTarget(String implementation, Path directory, String policy) {
    this(implementation, directory, policy, List.of());
  }

  /** Returns where the server's standard output and error go, beside its directory. */
  Path output() {
    return directory.resolveSibling(directory.getFileName() + "-" + implementation + ".out");
  }

  /** Returns Redis's log file, beside its directory (not in it: it is not data). */
  Path logFile() {
    return directory.resolveSibling(directory.getFileName() + "-redis.log");
  }

  /**
   * The time the server spent loading its data at its last start, as it reports it: Larder's {@code
   * larder_last_recovery_ms} (INFO persistence), Redis's "DB loaded from append only file: S
   * seconds" log line.
   *
   * @param running the server
   * @return milliseconds, NaN if the server did not say
   * @throws IOException if the figure cannot be read
   */
  double loadMillis(Running running) throws IOException {
    if (implementation.equals("Redis")) {
      double found = Double.NaN;
      for (String line : java.nio.file.Files.readAllLines(logFile())) {
        int at = line.indexOf("DB loaded from append only file: ");
        if (at >= 0) {
          found = 1000 * Double.parseDouble(line.substring(at + 34).replace(" seconds", "").trim());
        }
      }
      return found;
    }
    try (Wire w = new Wire(running.respPort())) {
      for (String line : ((String) w.call("INFO", "persistence")).split("\r\n", -1)) {
        if (line.startsWith("larder_last_recovery_ms:")) {
          return Double.parseDouble(line.substring(line.indexOf(':') + 1));
        }
      }
    }
    return Double.NaN;
  }

  /** Returns whether this server speaks memcached's protocol too. */
  boolean speaksMemcached() {
    return implementation.equals("Larder");
  }

  /**
   * Starts the server on the directory, on ports found free, and waits until it answers PING with
   * PONG (after it has recovered), at most 120 s. A port taken between found free and bound moves
   * the server to fresh ones ({@link FreshPortStart}): each start chooses its ports anew, the data
   * is in the directory.
   *
   * @return the running server and how long its successful start took to answer
   * @throws IOException if it exits or does not answer in time
   * @throws InterruptedException if interrupted while waiting
   */
  Running start() throws IOException, InterruptedException {
    return start(FreshPortStart.PortSource.FREE);
  }

  /** Like {@link #start()}, on ports from {@code ports}. */
  Running start(FreshPortStart.PortSource ports) throws IOException, InterruptedException {
    try {
      return FreshPortStart.start(implementation, () -> startOnce(ports));
    } catch (IOException | InterruptedException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(e);
    }
  }

  private Running startOnce(FreshPortStart.PortSource ports)
      throws IOException, InterruptedException {
    int resp = ports.freePort();
    int memcache = speaksMemcached() ? ports.freePort() : 0;
    long outputBefore = size(output());
    long logBefore = size(logFile());
    long started = System.nanoTime();
    ProcessBuilder builder = new ProcessBuilder(command(resp, memcache));
    // ./larder bench built the product beside the bench: no build or training run inside a start
    builder.environment().put("LARDER_NO_BUILD", "1");
    Process p =
        builder
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(output().toFile()))
            .start();
    long deadline = started + TimeUnit.SECONDS.toNanos(120);
    while (true) {
      try (Wire w = new Wire(resp)) {
        // short reads: a stranger holding a port taken before the server bound it never answers
        w.readTimeout(2_000);
        Object reply = w.call("PING");
        if ("PONG".equals(reply)) {
          return new Running(p, resp, memcache, (System.nanoTime() - started) / 1e6);
        }
      } catch (IOException | IllegalStateException notYet) {
        // Not listening yet, or Redis answering -LOADING while it reads its files.
      }
      if (!p.isAlive() || System.nanoTime() > deadline) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        throw new IOException(
            implementation
                + " did not start on "
                + directory
                + (p.isAlive() ? " within 120 s" : ": exit code " + p.exitValue())
                + "; what it wrote: "
                + since(output(), outputBefore)
                + (implementation.equals("Redis")
                    ? "; its log: " + since(logFile(), logBefore)
                    : ""));
      }
      Thread.sleep(20);
    }
  }

  private static long size(Path file) throws IOException {
    return java.nio.file.Files.exists(file) ? java.nio.file.Files.size(file) : 0;
  }

  /**
   * Returns the end (at most 1,500 characters) of what a file gained past {@code from}: what this
   * start wrote to an output or log that earlier starts wrote to too.
   */
  private static String since(Path file, long from) {
    try (java.nio.channels.FileChannel c = java.nio.channels.FileChannel.open(file)) {
      long start = Math.max(from, c.size() - 1500);
      java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate((int) Math.max(0, c.size() - start));
      while (b.hasRemaining() && c.read(b, start + b.position()) > 0) {
        // read to the end
      }
      String s = new String(b.array(), 0, b.position(), java.nio.charset.StandardCharsets.UTF_8);
      return s.isBlank() ? "(nothing)" : s.strip();
    } catch (IOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }

  private List<String> command(int resp, int memcache) {
    if (implementation.equals("Redis")) {
      return List.of(
          "redis-server",
          "--port",
          Integer.toString(resp),
          "--bind",
          "127.0.0.1",
          "--dir",
          directory.toString(),
          "--appendonly",
          "yes",
          "--appendfsync",
          policy,
          "--save",
          "",
          "--protected-mode",
          "no",
          "--daemonize",
          "no",
          "--logfile",
          logFile().toString());
    }
    // The product's own command, as a user starts it: ./larder serve, with its JVM options
    // (heap caps from the settings) and its start-up cache (docs/design/server.md, "Start-up").
    List<String> c =
        new ArrayList<>(
            List.of(
                launcher().toString(),
                "serve",
                "--dir",
                directory.toString(),
                "--appendfsync",
                policy,
                "--port",
                Integer.toString(resp),
                "--memcache-port",
                Integer.toString(memcache),
                "--http-port",
                "-1"));
    for (String setting : larderSettings) {
      c.add("--set=" + setting);
    }
    return c;
  }

  /** Returns the {@code ./larder} script of the repository the bench runs from. */
  static Path launcher() {
    Path script = Path.of(System.getProperty("larder.root", "."), "larder").toAbsolutePath();
    if (!java.nio.file.Files.isExecutable(script)) {
      throw new IllegalStateException(
          "no ./larder script at " + script + " (run the bench through ./larder bench)");
    }
    return script;
  }

  /**
   * A started server.
   *
   * @param process its process
   * @param respPort its RESP port
   * @param memcachePort its memcached port, 0 if none
   * @param readyMillis from its start to its first PONG
   */
  record Running(Process process, int respPort, int memcachePort, double readyMillis) {
    /** Kills it with SIGKILL and waits for it to be gone. */
    void kill() throws InterruptedException {
      process.destroyForcibly();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the server did not die after SIGKILL");
      }
    }
  }
}
