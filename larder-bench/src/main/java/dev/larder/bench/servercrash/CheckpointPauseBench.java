package dev.larder.bench.servercrash;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * How long writers wait while a durable server compacts its files: n keys are loaded, then w
 * writers (one connection each, one SET at a time, random keys of the n, values of the same size)
 * write for a few seconds with no compaction running ("steady"), then go on writing while the
 * server runs BGREWRITEAOF (Larder: a checkpoint of the keyspace; Redis: a forked AOF rewrite)
 * until it has finished ("checkpoint"). Each reply's latency, from the send of its SET to the reply
 * read, goes into the histogram of the phase in which the SET was sent.
 *
 * <p>Not thread-safe; one run at a time.
 */
public final class CheckpointPauseBench {
  private static final long HIGHEST_MICROS = TimeUnit.MINUTES.toMicros(10);

  private final CrashTarget target;
  private final long keys;
  private final int valueBytes;
  private final int writers;
  private final long steadyMillis;

  /** The phase a SET is sent in: 0 steady, 1 checkpoint, 2 done (writers stop). */
  private volatile int phase;

  /**
   * @param implementation "Larder" or "Redis"
   * @param directory an empty directory for the server's files
   * @param keys how many keys to load (and to write among)
   * @param valueBytes the size of each value
   * @param writers concurrent writing connections
   * @param steadyMillis how long to write before the checkpoint
   */
  public CheckpointPauseBench(
      String implementation,
      Path directory,
      long keys,
      int valueBytes,
      int writers,
      long steadyMillis) {
    // No checkpoint of Larder's own starts during the run (a log grown past checkpoint-log-bytes
    // would start one in the steady phase and refuse the measured BGREWRITEAOF): only the measured
    // one runs, as only the measured rewrite runs on Redis.
    this.target =
        new CrashTarget(implementation, directory, "everysec", List.of("checkpoint-log-bytes=0"));
    this.keys = keys;
    this.valueBytes = valueBytes;
    this.writers = writers;
    this.steadyMillis = steadyMillis;
  }

  /**
   * Runs the measurement.
   *
   * @return two rows of figures by name, steady then checkpoint: phase, keys, valueBytes, writers,
   *     writes, p50Micros, p99Micros, p999Micros, maxMicros, seconds, and for the checkpoint phase
   *     checkpointMillis (from BGREWRITEAOF to INFO saying no rewrite runs)
   * @throws Exception if the server or a writer fails
   */
  public List<Map<String, Object>> run() throws Exception {
    CrashTarget.Running server = target.start();
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      RestartBench.load(server.respPort(), keys, valueBytes);
      // The load may have started a rewrite of its own (Redis's automatic AOF rewrite): the
      // steady phase begins once none runs.
      try (Wire w = new Wire(server.respPort())) {
        RestartBench.awaitRewrite(w, 100);
      }
      List<Future<Histogram[]>> running = new ArrayList<>();
      for (int i = 0; i < writers; i++) {
        int slot = i;
        running.add(pool.submit(() -> write(server.respPort(), slot)));
      }
      long steadyStart = System.nanoTime();
      Thread.sleep(steadyMillis);
      long checkpointStart = System.nanoTime();
      phase = 1;
      try (Wire w = new Wire(server.respPort())) {
        Object reply = w.call("BGREWRITEAOF");
        if (!"Background append only file rewriting started".equals(reply)) {
          throw new IllegalStateException("BGREWRITEAOF answered " + reply);
        }
        RestartBench.awaitRewrite(w, 10);
      }
      long checkpointEnd = System.nanoTime();
      phase = 2;
      Histogram steady = new Histogram(HIGHEST_MICROS, 3);
      Histogram during = new Histogram(HIGHEST_MICROS, 3);
      for (Future<Histogram[]> f : running) {
        Histogram[] h = f.get(10, TimeUnit.MINUTES);
        steady.add(h[0]);
        during.add(h[1]);
      }
      Map<String, Object> steadyRow = figures("steady", steady, checkpointStart - steadyStart);
      Map<String, Object> checkpointRow =
          figures("checkpoint", during, checkpointEnd - checkpointStart);
      checkpointRow.put("checkpointMillis", (checkpointEnd - checkpointStart) / 1e6);
      return List.of(steadyRow, checkpointRow);
    } finally {
      phase = 2;
      pool.shutdownNow();
      server.kill();
      pool.awaitTermination(1, TimeUnit.MINUTES);
    }
  }

  private Map<String, Object> figures(String name, Histogram h, long nanos) {
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("phase", name);
    f.put("keys", keys);
    f.put("valueBytes", valueBytes);
    f.put("writers", writers);
    f.put("writes", h.getTotalCount());
    f.put("seconds", nanos / 1e9);
    f.put("p50Micros", h.getValueAtPercentile(50));
    f.put("p99Micros", h.getValueAtPercentile(99));
    f.put("p999Micros", h.getValueAtPercentile(99.9));
    f.put("maxMicros", h.getMaxValue());
    return f;
  }

  /** One writer: SETs until the phases are done; returns its steady and checkpoint histograms. */
  private Histogram[] write(int port, int slot) throws IOException {
    Histogram[] h = {new Histogram(HIGHEST_MICROS, 3), new Histogram(HIGHEST_MICROS, 3)};
    SplittableRandom random = new SplittableRandom(slot);
    byte[] value = new byte[valueBytes];
    byte[] ok = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.setSoTimeout((int) TimeUnit.MINUTES.toMillis(10));
      s.setTcpNoDelay(true);
      OutputStream out = new BufferedOutputStream(s.getOutputStream(), 4096);
      InputStream in = s.getInputStream();
      while (true) {
        int now = phase;
        if (now > 1) {
          return h;
        }
        for (int i = 0; i < value.length; i++) {
          value[i] = (byte) random.nextInt(256);
        }
        byte[] key = ("key:" + random.nextLong(keys)).getBytes(StandardCharsets.US_ASCII);
        long sent = System.nanoTime();
        out.write(
            ("*3\r\n$3\r\nSET\r\n$" + key.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(key);
        out.write(("\r\n$" + value.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(value);
        out.write('\r');
        out.write('\n');
        out.flush();
        byte[] reply = in.readNBytes(ok.length);
        if (!java.util.Arrays.equals(ok, reply)) {
          throw new IOException(
              "unexpected reply: " + new String(reply, StandardCharsets.US_ASCII));
        }
        h[now].recordValue(
            Math.min(HIGHEST_MICROS, TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - sent)));
      }
    }
  }
}
