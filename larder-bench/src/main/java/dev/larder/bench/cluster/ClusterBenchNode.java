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
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * One member JVM of {@code ./larder bench cluster}, driven over stdin/stdout, one answer line per
 * command: {@code members}; {@code load FROM TO SIZE} (put keys {@code kFROM..kTO-1} with values of
 * SIZE bytes); {@code run SECONDS THREADS KEYS SIZE} (90% gets, 10% puts of uniform random keys,
 * answers {@code ops p50us p99us errors}); {@code memory} (answers the settled heap plus resident
 * growth since start, and the entries held here); {@code rebalanced} (answers the milliseconds from
 * the start of the cache to the end of its state transfer); {@code fill FROM TO SIZE THREADS} (as
 * load, by THREADS threads); {@code transfer} (answers the last state transfer's own milliseconds
 * and bytes, where the implementation reports them, else {@code 0 0}); {@code cpu} (answers this
 * JVM's CPU time since just before its cache started, in ns: the JVM's own start and heap pre-touch
 * are left out); {@code quit}.
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
    long startCpu = processCpuNanos();
    try (ClusterSubject subject =
        ClusterSubject.open(args[0], ClusterSubject.Shape.valueOf(args[1]), args[3], args[4])) {
      out.println("ready");
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String[] w = line.trim().split(" ", -1);
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
          case "fill" -> {
            fill(
                subject,
                Integer.parseInt(w[1]),
                Integer.parseInt(w[2]),
                Integer.parseInt(w[3]),
                Integer.parseInt(w[4]));
            out.println("ok");
          }
          case "transfer" -> out.println(subject.lastTransfer());
          case "cpu" -> out.println(processCpuNanos() - startCpu);
          case "run" ->
              out.println(
                  run(
                      subject,
                      Integer.parseInt(w[1]),
                      Integer.parseInt(w[2]),
                      Integer.parseInt(w[3]),
                      Integer.parseInt(w[4])));
          case "memory" -> {
            MemorySnapshot after = probe.settle();
            out.println(
                (after.heapDelta(before) + after.nativeDelta(before))
                    + " "
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

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** Puts keys {@code from..to-1}, split into contiguous ranges over {@code threads} threads. */
  private static void fill(ClusterSubject subject, int from, int to, int size, int threads)
      throws InterruptedException {
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int a = from + (int) ((long) (to - from) * t / threads);
      int b = from + (int) ((long) (to - from) * (t + 1) / threads);
      workers.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    byte[] value = new byte[size];
                    for (int i = a; i < b; i++) {
                      ThreadLocalRandom.current().nextBytes(value);
                      subject.put("k" + i, value.clone());
                    }
                  }));
    }
    for (Thread w : workers) {
      w.join();
    }
  }

  private static String run(ClusterSubject subject, int seconds, int threads, int keys, int size)
      throws InterruptedException {
    Recorder recorder = new Recorder(3);
    AtomicLong ops = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      workers.add(
          Thread.ofPlatform()
              .start(
                  () -> {
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
    return ops.get()
        + " "
        + h.getValueAtPercentile(50)
        + " "
        + h.getValueAtPercentile(99)
        + " "
        + errors.get();
  }
}
