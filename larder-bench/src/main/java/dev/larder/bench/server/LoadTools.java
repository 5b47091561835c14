package dev.larder.bench.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs redis-benchmark, memcaslap and memcslap (Debian's redis-tools and libmemcached-tools) and
 * reads them.
 */
final class LoadTools {
  /** memcaslap's key length: its shortest. */
  static final int MEMCASLAP_KEY_BYTES = 16;

  /** memcaslap's window per connection: each connection's keys, so 50 connections load 51,200. */
  static final String MEMCASLAP_WINDOW = "1k";

  private static final Pattern MEMCASLAP_GLOBAL =
      Pattern.compile(
          "(Get|Set) Statistics\\s*\\n.*\\n(?:Period[^\\n]*\\n)?Global\\s+\\d+\\s+\\d+\\s+(\\d+)\\s");
  private static final Pattern MEMCASLAP_COUNT = Pattern.compile("cmd_(get|set): (\\d+)");
  private static final Pattern MEMCSLAP =
      Pattern.compile(
          "Time to (set|get)\\s+(\\d+) keys by\\s+(\\d+) threads:\\s+([0-9.]+) seconds");

  private LoadTools() {}

  /**
   * One measured test.
   *
   * @param test the tool's name for it: SET or GET for the memcached tools; redis-benchmark's own
   *     ({@code PING_INLINE}, {@code LRANGE_100 (first 100 elements)}...)
   * @param opsPerSec requests per second
   * @param p50Ms median latency, NaN if the tool gives none
   * @param p99Ms 99th percentile latency, NaN if the tool gives none
   */
  record Result(String test, double opsPerSec, double p50Ms, double p99Ms) {}

  static boolean onPath(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":", -1)) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
        return true;
      }
    }
    return false;
  }

  /**
   * redis-benchmark with the given tests ({@code -t}: one or more of {@link
   * RedisBenchmarkTests#ALL}, comma-separated), clients, pipeline depth and value size.
   */
  static List<Result> redisBenchmark(
      int port, String tests, int clients, int pipeline, int valueBytes, long requests)
      throws IOException, InterruptedException {
    List<String> command =
        List.of(
            "redis-benchmark",
            "-h",
            "127.0.0.1",
            "-p",
            Integer.toString(port),
            "-t",
            tests,
            "-c",
            Integer.toString(clients),
            "-P",
            Integer.toString(pipeline),
            "-d",
            Integer.toString(valueBytes),
            "-n",
            Long.toString(requests),
            "-r",
            "100000",
            "--csv");
    // redis-benchmark 7.0 sometimes never connects its clients and spins in its write loop for
    // ever (seen against a server that answered other clients at once): a run that takes far
    // longer than its requests need is stopped and run again, once.
    long limit = Math.max(300, requests / 1_000);
    String out = run(command, limit);
    if (out == null) {
      out = run(command, limit);
    }
    if (out == null) {
      throw new IOException("redis-benchmark did not finish in " + limit + " s, twice");
    }
    return parseRedisBenchmarkCsv(out);
  }

  /**
   * Reads every row of redis-benchmark's --csv output (test, rps, avg, min, p50, p95, p99, max),
   * named as redis-benchmark names them ({@code SET}, {@code LPUSH (needed to benchmark LRANGE)},
   * {@code MSET (10 keys)}...), in its order.
   *
   * @throws IOException if it holds no row
   */
  static List<Result> parseRedisBenchmarkCsv(String out) throws IOException {
    List<Result> results = new ArrayList<>();
    for (String line : out.split("\n", -1)) {
      String[] f = line.strip().replace("\"", "").split(",", -1);
      if (f.length >= 7 && !f[0].equals("test") && isNumber(f[1])) {
        results.add(
            new Result(
                f[0],
                Double.parseDouble(f[1]),
                Double.parseDouble(f[4]),
                Double.parseDouble(f[6])));
      }
    }
    if (results.isEmpty()) {
      throw new IOException("redis-benchmark gave no figure: " + out);
    }
    return results;
  }

  private static boolean isNumber(String field) {
    try {
      Double.parseDouble(field);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /**
   * One memcaslap test: only sets, or only gets of keys it first loads (untimed by it), with
   * fixed-size values, for a fixed time.
   *
   * @param test set or get
   * @param threads its event-loop threads
   * @param connections connections in all
   * @param seconds how long the timed part runs
   * @param valueBytes every value's size
   */
  static Memcaslap memcaslap(
      int port, String test, int threads, int connections, long seconds, int valueBytes)
      throws IOException, InterruptedException {
    Path config = Files.createTempFile("larder-memcaslap", ".cfg");
    try {
      // memcaslap's distribution file: key and value sizes (min max proportion), then the
      // command mix (0 is set, 1 is get, each with its proportion).
      Files.writeString(
          config,
          "key\n"
              + MEMCASLAP_KEY_BYTES
              + " "
              + MEMCASLAP_KEY_BYTES
              + " 1\nvalue\n"
              + valueBytes
              + " "
              + valueBytes
              + " 1\ncmd\n0 "
              + (test.equals("set") ? "1" : "0")
              + "\n1 "
              + (test.equals("set") ? "0" : "1")
              + "\n");
      return parseMemcaslap(
          run(
              List.of(
                  "memcaslap",
                  "-s",
                  "127.0.0.1:" + port,
                  "-T",
                  Integer.toString(threads),
                  "-c",
                  Integer.toString(connections),
                  "-w",
                  MEMCASLAP_WINDOW,
                  "-t",
                  seconds + "s",
                  "-S",
                  seconds + "s",
                  "-F",
                  config.toString())),
          test);
    } finally {
      Files.deleteIfExists(config);
    }
  }

  /**
   * What one memcaslap run did.
   *
   * @param result the timed part's ops/s (memcaslap gives a mean latency and a log2 histogram, no
   *     percentiles: p50 and p99 are NaN)
   * @param operations every operation it sent, the untimed loading of keys included (the
   *     denominator of the server's CPU per operation)
   */
  record Memcaslap(Result result, long operations) {}

  /**
   * Reads memcaslap's statistics: the last {@code Global} line of the Get or Set block (time,
   * operations, ops/s...) and the {@code cmd_get}/{@code cmd_set} counts.
   */
  static Memcaslap parseMemcaslap(String out, String test) throws IOException {
    String type = test.equals("set") ? "Set" : "Get";
    Matcher m = MEMCASLAP_GLOBAL.matcher(out);
    Result last = null;
    while (m.find()) {
      if (m.group(1).equals(type)) {
        last =
            new Result(
                type.toUpperCase(java.util.Locale.ROOT),
                Double.parseDouble(m.group(2)),
                Double.NaN,
                Double.NaN);
      }
    }
    if (last == null) {
      throw new IOException("memcaslap gave no " + type + " figure: " + out);
    }
    long operations = 0;
    Matcher c = MEMCASLAP_COUNT.matcher(out);
    while (c.find()) {
      operations += Long.parseLong(c.group(2));
    }
    return new Memcaslap(last, operations);
  }

  /** memcslap with one test (set or get) and the given threads; it reports times only. */
  static Result memcslap(int port, String test, int threads, long perThread)
      throws IOException, InterruptedException {
    return parseMemcslap(
        run(
            List.of(
                "memcslap",
                "--servers=127.0.0.1:" + port,
                "--concurrency=" + threads,
                "--execute-number=" + perThread,
                "--test=" + test)));
  }

  /** Reads memcslap's summary line: keys done by all threads over the elapsed seconds. */
  static Result parseMemcslap(String out) throws IOException {
    Matcher m = MEMCSLAP.matcher(out);
    if (!m.find()) {
      throw new IOException("memcslap gave no figure: " + out);
    }
    double ops = Double.parseDouble(m.group(2)) / Double.parseDouble(m.group(4));
    return new Result(m.group(1).toUpperCase(java.util.Locale.ROOT), ops, Double.NaN, Double.NaN);
  }

  private static String run(List<String> command) throws IOException, InterruptedException {
    String out = run(command, 30 * 60);
    if (out == null) {
      throw new IOException(command.getFirst() + " did not finish in 30 minutes");
    }
    return out;
  }

  /** Returns the tool's output, or null if it ran longer than the limit (it is then killed). */
  private static String run(List<String> command, long limitSeconds)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile("larder-load", ".out");
    try {
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .start();
      if (!p.waitFor(limitSeconds, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
        return null;
      }
      return Files.readString(out, StandardCharsets.ISO_8859_1);
    } finally {
      Files.deleteIfExists(out);
    }
  }
}
