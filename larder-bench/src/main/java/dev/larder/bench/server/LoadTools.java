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

/** Runs redis-benchmark and memcslap (Debian's redis-tools and libmemcached-tools) and reads them. */
final class LoadTools {
  private static final Pattern MEMCSLAP =
      Pattern.compile("Time to (set|get)\\s+(\\d+) keys by\\s+(\\d+) threads:\\s+([0-9.]+) seconds");

  private LoadTools() {}

  /**
   * One measured test.
   *
   * @param test SET or GET
   * @param opsPerSec requests per second
   * @param p50Ms median latency, NaN if the tool gives none
   * @param p99Ms 99th percentile latency, NaN if the tool gives none
   */
  record Result(String test, double opsPerSec, double p50Ms, double p99Ms) {}

  static boolean onPath(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
        return true;
      }
    }
    return false;
  }

  /**
   * redis-benchmark with the given tests (set, get or set,get), clients, pipeline depth and
   * value size.
   */
  static List<Result> redisBenchmark(int port, String tests, int clients, int pipeline,
      int valueBytes, long requests) throws IOException, InterruptedException {
    String out = run(List.of("redis-benchmark", "-h", "127.0.0.1", "-p", Integer.toString(port),
        "-t", tests, "-c", Integer.toString(clients), "-P", Integer.toString(pipeline),
        "-d", Integer.toString(valueBytes), "-n", Long.toString(requests), "-r", "100000",
        "--csv"));
    return parseRedisBenchmarkCsv(out);
  }

  /** Reads redis-benchmark's --csv output: test, rps, avg, min, p50, p95, p99, max. */
  static List<Result> parseRedisBenchmarkCsv(String out) throws IOException {
    List<Result> results = new ArrayList<>();
    for (String line : out.split("\n")) {
      String[] f = line.replace("\"", "").split(",");
      if (f.length >= 7 && (f[0].equals("SET") || f[0].equals("GET"))) {
        results.add(new Result(f[0], Double.parseDouble(f[1]), Double.parseDouble(f[4]),
            Double.parseDouble(f[6])));
      }
    }
    if (results.isEmpty()) {
      throw new IOException("redis-benchmark gave no SET or GET figure: " + out);
    }
    return results;
  }

  /** memcslap with one test (set or get) and the given threads; it reports times only. */
  static Result memcslap(int port, String test, int threads, long perThread)
      throws IOException, InterruptedException {
    return parseMemcslap(run(List.of("memcslap", "--servers=127.0.0.1:" + port,
        "--concurrency=" + threads, "--execute-number=" + perThread, "--test=" + test)));
  }

  /** Reads memcslap's summary line: keys done by all threads over the elapsed seconds. */
  static Result parseMemcslap(String out) throws IOException {
    Matcher m = MEMCSLAP.matcher(out);
    if (!m.find()) {
      throw new IOException("memcslap gave no figure: " + out);
    }
    double ops = Double.parseDouble(m.group(2)) / Double.parseDouble(m.group(4));
    return new Result(m.group(1).toUpperCase(java.util.Locale.ROOT), ops, Double.NaN,
        Double.NaN);
  }

  private static String run(List<String> command) throws IOException, InterruptedException {
    Path out = Files.createTempFile("larder-load", ".out");
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(out.toFile()).start();
      if (!p.waitFor(30, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IOException(command.getFirst() + " did not finish in 30 minutes");
      }
      return Files.readString(out, StandardCharsets.ISO_8859_1);
    } finally {
      Files.deleteIfExists(out);
    }
  }
}
