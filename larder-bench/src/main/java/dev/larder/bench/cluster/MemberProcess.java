package dev.larder.bench.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A cluster member in a child JVM (same classpath, 127.0.0.1 only), spoken to one command line at a
 * time over stdin/stdout. Every wait is bounded.
 */
final class MemberProcess {

  final Process process;
  private final Path stderr;
  private final PrintStream in;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

  private MemberProcess(Process process, Path stderr) {
    this.process = process;
    this.stderr = stderr;
    this.in = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l = r.readLine(); l != null; l = r.readLine()) {
                  lines.add(l);
                }
              } catch (IOException e) {
                lines.add("io-error " + e.getMessage());
              }
            });
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts {@code mainClass} with the arguments and waits for its {@code ready} line.
   *
   * @param heap -Xmx (and -Xms, pre-touched, so that resident growth is native memory) The
   *     environment variable {@code LARDER_BENCH_MEMBER_JVM_ARGS} (space-separated) adds options to
   *     every member JVM, e.g. a flight recording for profiling.
   */
  static MemberProcess start(String heap, Class<?> mainClass, String... args) throws Exception {
    return start(heap, null, mainClass, args);
  }

  /**
   * Like {@link #start(String, Class, String...)}, keeping the member's standard error.
   *
   * @param stderr the file the member's standard error goes to, or null to discard it
   */
  static MemberProcess start(String heap, Path stderr, Class<?> mainClass, String... args)
      throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms" + heap,
                "-Xmx" + heap,
                "-XX:+AlwaysPreTouch",
                "-Djava.net.preferIPv4Stack=true",
                "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow",
                "-cp",
                System.getProperty("java.class.path"),
                mainClass.getName()));
    String extra = System.getenv("LARDER_BENCH_MEMBER_JVM_ARGS");
    if (extra != null && !extra.isBlank()) {
      command.addAll(1, List.of(extra.trim().split("\\s+")));
    }
    command.addAll(List.of(args));
    Process p =
        new ProcessBuilder(command)
            .redirectError(
                stderr == null
                    ? ProcessBuilder.Redirect.DISCARD
                    : ProcessBuilder.Redirect.to(stderr.toFile()))
            .start();
    MemberProcess m = new MemberProcess(p, stderr);
    // lines before "ready" are the JVM's own (e.g. a flight recording's start): skipped
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    String ready = null;
    while (!"ready".equals(ready)
        && System.nanoTime() < deadline
        && (ready == null || !ready.startsWith("io-error"))) {
      // a second at a time: a member that exited (a port it could not bind) is told at once
      ready =
          m.lines.poll(
              Math.max(1, Math.min(deadline - System.nanoTime(), TimeUnit.SECONDS.toNanos(1))),
              TimeUnit.NANOSECONDS);
      if (ready == null && !p.isAlive() && m.lines.isEmpty()) {
        p.waitFor();
        // its last lines may still be on their way from the reader
        ready = m.lines.poll(1, TimeUnit.SECONDS);
        if (ready == null) {
          break;
        }
      }
    }
    if (!"ready".equals(ready)) {
      boolean exited = !p.isAlive();
      p.destroyForcibly();
      // the member's own words, for a failure that a CI log must explain on its own
      throw new IllegalStateException(
          mainClass.getSimpleName()
              + " did not start: "
              + (ready == null ? "no ready line" + (exited ? "" : " in 120 s") : ready)
              + (exited ? " (it exited, code " + p.waitFor() + ")" : " (killed)")
              + (stderr == null ? "" : "; its standard error ends: " + tail(stderr)));
    }
    return m;
  }

  /** Returns the last 2,000 characters of a member's standard error file, or why not. */
  private static String tail(Path file) {
    try {
      String all = Files.readString(file, StandardCharsets.UTF_8);
      return all.isEmpty() ? "(empty)" : all.substring(Math.max(0, all.length() - 2_000));
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  void send(String command) {
    in.println(command);
  }

  /**
   * Waits for the member's next line. A member that exits (an uncaught exception ends its command
   * loop) fails the wait at once rather than at the timeout, and every failure carries the end of
   * the member's standard error, so that a CI log explains itself.
   */
  String answer(int seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (true) {
      String l = lines.poll(1, TimeUnit.SECONDS);
      if (l != null) {
        return l;
      }
      if (!process.isAlive()) {
        // its last lines may still be on their way through the reader thread
        l = lines.poll(1, TimeUnit.SECONDS);
        if (l != null) {
          return l;
        }
        throw new IllegalStateException(
            "member "
                + process.pid()
                + " exited (code "
                + process.exitValue()
                + ") without answering"
                + stderrTail());
      }
      if (System.nanoTime() >= deadline) {
        throw new IllegalStateException(
            "member " + process.pid() + " did not answer in " + seconds + " s" + stderrTail());
      }
    }
  }

  private String stderrTail() {
    return stderr == null ? "" : "; its standard error ends: " + tail(stderr);
  }

  String ask(String command, int seconds) throws InterruptedException {
    send(command);
    return answer(seconds);
  }

  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  /** Asks the member to quit; kills it if it has not exited within 15 s. */
  void stop() throws InterruptedException {
    in.println("quit");
    in.close();
    if (!process.waitFor(15, TimeUnit.SECONDS)) {
      kill();
    }
  }

  /** Polls {@code members} until every given member sees {@code n}, for at most 60 s. */
  static void awaitMembers(List<MemberProcess> members, int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (MemberProcess m : members) {
      while (!m.ask("members", 30).equals(String.valueOf(n))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the cluster did not settle at " + n + " members");
        }
        Thread.sleep(50);
      }
    }
  }
}
