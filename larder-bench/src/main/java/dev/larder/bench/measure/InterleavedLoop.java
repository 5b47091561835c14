package dev.larder.bench.measure;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs several subjects in one JVM, one at a time in short alternating slices, and counts each
 * slice's operations per second of the process's CPU time as well as per second of wall time.
 *
 * <p>Why: on a machine shared with other work, the wall-clock throughput of one implementation can
 * change severalfold between two identical runs, so implementations measured one after the other
 * (each in its own JVM) cannot be compared. Slicing them finely and alternating their order puts
 * each pair of neighbouring slices under nearly the same outside load, and dividing by the CPU time
 * the process got (its worker threads, and its GC and compiler threads) removes most of what
 * remains: time given to other processes does not count. What it hides is idle time: a subject
 * whose threads wait (on a lock whose holder is descheduled) uses less CPU and is not charged for
 * the wait, which is why the wall-clock rate is reported beside it.
 *
 * <p>Not thread-safe: one run at a time.
 */
public final class InterleavedLoop {

  /**
   * One slice of one subject.
   *
   * @param operations operations completed
   * @param cpuNanos CPU time the process used during the slice
   * @param wallNanos wall time of the slice
   */
  public record Slice(long operations, long cpuNanos, long wallNanos) {

    /** Returns operations per second of process CPU time. */
    public double opsPerCpuSecond() {
      return operations * 1e9 / Math.max(1, cpuNanos);
    }

    /** Returns operations per second of wall time. */
    public double opsPerSecond() {
      return operations * 1e9 / Math.max(1, wallNanos);
    }
  }

  private InterleavedLoop() {}

  /**
   * Warms every subject up once, then runs {@code rounds} rounds of one slice of each subject; even
   * rounds take the subjects in the order given, odd rounds in the reverse order, so that no
   * subject always follows the same neighbour.
   *
   * @param subjects each subject's workers, one per thread (the same thread count or not)
   * @param warmupMillis each subject's warm-up, discarded; 0 for none
   * @param sliceMillis the length of each slice; positive
   * @param rounds rounds; positive
   * @return for each subject, in the order given, its slices in round order
   * @throws InterruptedException if interrupted while waiting
   */
  public static List<List<Slice>> run(
      List<List<TimedLoop.Worker>> subjects, long warmupMillis, long sliceMillis, int rounds)
      throws InterruptedException {
    if (sliceMillis <= 0 || rounds <= 0) {
      throw new IllegalArgumentException(
          "slices of " + sliceMillis + " ms, " + rounds + " rounds: both must be positive");
    }
    List<List<Slice>> result = new ArrayList<>();
    for (List<TimedLoop.Worker> workers : subjects) {
      if (warmupMillis > 0) {
        slice(workers, warmupMillis);
      }
      result.add(new ArrayList<>());
    }
    int n = subjects.size();
    for (int r = 0; r < rounds; r++) {
      for (int k = 0; k < n; k++) {
        int s = r % 2 == 0 ? k : n - 1 - k;
        result.get(s).add(slice(subjects.get(s), sliceMillis));
      }
    }
    return result;
  }

  /**
   * Runs the workers, one thread each, for about {@code millis}; each does at least one operation.
   *
   * @return what they did, and the CPU time the process used meanwhile
   */
  public static Slice slice(List<TimedLoop.Worker> workers, long millis)
      throws InterruptedException {
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch ready = new CountDownLatch(workers.size());
    CountDownLatch start = new CountDownLatch(1);
    long[] counts = new long[workers.size()];
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < workers.size(); i++) {
      int index = i;
      TimedLoop.Worker worker = workers.get(i);
      threads.add(
          Thread.ofPlatform()
              .name("bench-" + i)
              .start(
                  () -> {
                    ready.countDown();
                    counts[index] = loop(worker, start, stop);
                  }));
    }
    ready.await();
    long cpuBefore = ProcessCpuClock.nanos();
    long begin = System.nanoTime();
    start.countDown();
    Thread.sleep(millis);
    stop.set(true);
    for (Thread t : threads) {
      t.join();
    }
    long wall = System.nanoTime() - begin;
    long cpu = ProcessCpuClock.nanos() - cpuBefore;
    long total = 0;
    for (long c : counts) {
      total += c;
    }
    return new Slice(total, cpu, wall);
  }

  private static long loop(TimedLoop.Worker worker, CountDownLatch start, AtomicBoolean stop) {
    try {
      start.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 0;
    }
    // at least one operation, so that a thread the scheduler starts late still shows up
    long n = 0;
    do {
      worker.step();
      n++;
    } while (!stop.get());
    return n;
  }
}
