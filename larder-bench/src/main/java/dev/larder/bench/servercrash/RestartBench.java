package dev.larder.bench.servercrash;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What a durable server's data costs on disk and how long it takes to come back: load n keys of
 * random (incompressible) values, compact the files (Larder: BGREWRITEAOF, a checkpoint; Redis:
 * BGREWRITEAOF, an AOF whose base is an RDB preamble), measure the directory, kill the server with
 * SIGKILL, start it again and time it until it answers PING and holds all n keys. For Redis, also
 * the size of an RDB snapshot of the same data ({@code SAVE}).
 *
 * <p>Not thread-safe; one run at a time.
 */
public final class RestartBench {
  private static final int BATCH = 1000;

  private final CrashTarget target;
  private final long keys;
  private final int valueBytes;

  /**
   * @param implementation "Larder" or "Redis"
   * @param directory an empty directory for the server's files
   * @param keys how many keys to load
   * @param valueBytes the size of each value
   */
  public RestartBench(String implementation, Path directory, long keys, int valueBytes) {
    this.target = new CrashTarget(implementation, directory, "everysec");
    this.keys = keys;
    this.valueBytes = valueBytes;
  }

  /**
   * Runs the measurement.
   *
   * @return the figures by name: keys, valueBytes, diskBytesPerKey (after the compaction),
   *     restartMillis (process start to PONG), loadMillis (the server's own count of its load),
   *     rdbBytesPerKey (Redis only)
   * @throws Exception if a server fails
   */
  public Map<String, Object> run() throws Exception {
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("keys", keys);
    figures.put("valueBytes", valueBytes);
    CrashTarget.Running server = target.start();
    try {
      load(server.respPort(), keys, valueBytes);
      compact(server.respPort());
      figures.put("diskBytesPerKey", (double) directoryBytes(false) / keys);
      if (target.implementation().equals("Redis")) {
        try (Wire w = new Wire(server.respPort())) {
          w.call("SAVE");
        }
        figures.put("rdbBytesPerKey", (double) directoryBytes(true) / keys);
      }
    } finally {
      server.kill();
    }
    CrashTarget.Running again = target.start();
    try {
      long size;
      try (Wire w = new Wire(again.respPort())) {
        size = Long.parseLong((String) w.call("DBSIZE"));
      }
      if (size != keys) {
        throw new IllegalStateException(
            target.implementation() + " came back with " + size + " keys of " + keys);
      }
      figures.put("restartMillis", again.readyMillis());
      figures.put("loadMillis", target.loadMillis(again));
    } finally {
      again.kill();
    }
    return figures;
  }

  /**
   * SETs key:0 ... key:n-1 with random values over one pipelined connection.
   *
   * @param port the server's RESP port
   * @param keys n
   * @param valueBytes each value's size
   * @throws IOException if the server fails or answers other than OK
   */
  static void load(int port, long keys, int valueBytes) throws IOException {
    Random random = new Random(2026);
    byte[] value = new byte[valueBytes];
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.setSoTimeout(300_000);
      OutputStream out = new BufferedOutputStream(s.getOutputStream(), 1 << 16);
      InputStream in = s.getInputStream();
      byte[] ok = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);
      for (long start = 0; start < keys; start += BATCH) {
        long end = Math.min(keys, start + BATCH);
        for (long i = start; i < end; i++) {
          random.nextBytes(value);
          byte[] key = ("key:" + i).getBytes(StandardCharsets.US_ASCII);
          out.write(
              ("*3\r\n$3\r\nSET\r\n$" + key.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
          out.write(key);
          out.write(("\r\n$" + value.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
          out.write(value);
          out.write('\r');
          out.write('\n');
        }
        out.flush();
        for (long i = start; i < end; i++) {
          byte[] reply = in.readNBytes(ok.length);
          if (!java.util.Arrays.equals(ok, reply)) {
            throw new IOException(
                "unexpected reply while loading: " + new String(reply, StandardCharsets.US_ASCII));
          }
        }
      }
    }
  }

  /**
   * BGREWRITEAOF, then waits until no rewrite is running or scheduled (at most 10 minutes).
   *
   * @param port the server's RESP port
   * @throws Exception if the server fails or the rewrite does not finish in time
   */
  static void compact(int port) throws Exception {
    try (Wire w = new Wire(port)) {
      w.call("BGREWRITEAOF");
      awaitRewrite(w, 100);
    }
  }

  /**
   * Waits until no rewrite is running or scheduled (at most 10 minutes), asking INFO every {@code
   * pollMillis}.
   *
   * @param w a connection to the server
   * @param pollMillis the pause between two questions
   * @throws Exception if the server fails or the rewrite does not finish in time
   */
  static void awaitRewrite(Wire w, long pollMillis) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    while (true) {
      String info = (String) w.call("INFO", "persistence");
      if (info.contains("aof_rewrite_in_progress:0")
          && info.contains("aof_rewrite_scheduled:0")
          && !info.contains("aof_rewrite_in_progress:1")) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the rewrite did not finish in 10 minutes");
      }
      Thread.sleep(pollMillis);
    }
  }

  /** Returns whether the file is Redis's RDB snapshot (not an AOF's RDB base). */
  private static boolean snapshot(Path p) {
    return p.getFileName().toString().endsWith(".rdb")
        && !p.getParent().getFileName().toString().equals("appendonlydir");
  }

  /** Returns bytes of the server's files: RDB snapshots only, or everything else. */
  private long directoryBytes(boolean rdb) throws IOException {
    try (Stream<Path> files = Files.walk(target.directory())) {
      return files
          .filter(Files::isRegularFile)
          .filter(p -> snapshot(p) == rdb)
          .mapToLong(p -> p.toFile().length())
          .sum();
    }
  }
}
