package dev.larder.bench.cluster;

import dev.larder.bench.measure.MemoryProbe;
import dev.larder.bench.measure.MemorySnapshot;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Recorder;
import org.HdrHistogram.Histogram;

/**
 * One member JVM of {@code ./larder bench cluster}, driven over stdin/stdout, one answer line
 * per command: {@code members}; {@code load FROM TO SIZE} (put keys {@code kFROM..kTO-1} with
 * values of SIZE bytes); {@code run SECONDS THREADS KEYS SIZE} (90% gets, 10% puts of uniform
 * random keys, answers {@code ops p50us p99us errors}); {@code memory} (answers the settled heap
 * plus resident growth since start, and the entries held here); {@code rebalanced} (answers the
 * milliseconds from the start of the cache to the end of its state transfer); {@code quit}.
 *
 * <p>Arguments: implementation, shape, port, cluster name, node name.
 */
public final class ClusterBenchNode {

  private ClusterBenchNode() {}

  public static void main(String[] args) throws Exception {
    System.setProperty("larder.cluster.port", args[2]);
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    MemoryProbe probe = new MemoryProbe(20);
    MemorySnapshot before = probe.settle();
    long start = System.nanoTime();
    try (ClusterSubject subject = ClusterSubject.open(args[0],
        ClusterSubject.Shape.valueOf(args[1]), args[3], args[4])) {
      out.println("ready");
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in,
          StandardCharsets.UTF_8));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String[] w = line.trim().split(" ");
        switch (w[0]) {
          case "members" -> out.println(subject.members());
          case "load" -> {
            byte[] value = new byte[Integer.parseInt(w[3])];
            for (int i = Integer.parseInt(w[1]); i < Integer.parseInt(w[2]); i++) {
              ThreadLocalRandom.current().nextBytes(value);
              subject.put("k" + i, value.clone());
            }
            out.println("ok");
          }
          case "run" -> out.println(run(subject, Integer.parseInt(w[1]), Integer.parseInt(w[2]),
              Integer.parseInt(w[3]), Integer.parseInt(w[4])));
          case "memory" -> {
            MemorySnapshot after = probe.settle();
            out.println((after.heapDelta(before) + after.nativeDelta(before)) + " "
                + subject.localEntries());
          }
          case "rebalanced" -> {
            subject.awaitRebalanced();
            out.println((System.nanoTime() - start) / 1_000_000);
          }
          case "quit" -> {
            return;
          }
          default -> out.println("unknown " + line);
        }
      }
    }
  }

  private static String run(ClusterSubject subject, int seconds, int threads, int keys,
      int size) throws InterruptedException {
    Recorder recorder = new Recorder(3);
    AtomicLong ops = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      workers.add(Thread.ofPlatform().start(() -> {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        byte[] value = new byte[size];
        random.nextBytes(value);
        long n = 0;
        while (System.nanoTime() < end) {
          String key = "k" + random.nextInt(keys);
          long t0 = System.nanoTime();
          try {
            if (random.nextInt(10) == 0) {
              subject.put(key, value);
            } else {
              subject.get(key);
            }
          } catch (RuntimeException e) {
            errors.incrementAndGet();
          }
          recorder.recordValue(Math.max(1, (System.nanoTime() - t0) / 1000));
          n++;
        }
        ops.addAndGet(n);
      }));
    }
    for (Thread w : workers) {
      w.join();
    }
    Histogram h = recorder.getIntervalHistogram();
    return ops.get() + " " + h.getValueAtPercentile(50) + " " + h.getValueAtPercentile(99) + " "
        + errors.get();
  }
}
