package dev.larder.bench.measure;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Runs an operation on several threads for a fixed time and counts completed operations: a warm-up
 * period that is discarded, then repetitions of equal length.
 *
 * <p>Each thread gets its own {@link Worker} (from the factory, given the thread's index), so
 * per-thread state such as random sources needs no sharing. Workers check the stop flag between
 * operations; an operation in progress completes.
 */
public final class TimedLoop {

  /** One thread's operation loop body. */
  @FunctionalInterface
  public interface Worker {
    /** Performs one operation. */
    void step();
  }

  private TimedLoop() {}

  /**
   * Returns operations per second of each repetition.
   *
   * @param threads worker threads; positive
   * @param workers creates the worker of thread {@code i}
   * @param warmupMillis warm-up, discarded
   * @param millis length of each repetition
   * @param repetitions repetitions; positive
   * @throws InterruptedException if interrupted while waiting
   */
  public static double[] run(
      int threads, IntFunction<Worker> workers, long warmupMillis, long millis, int repetitions)
      throws InterruptedException {
    List<Worker> list = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      list.add(workers.apply(i));
    }
    if (warmupMillis > 0) {
      once(list, warmupMillis);
    }
    double[] result = new double[repetitions];
    for (int r = 0; r < repetitions; r++) {
      result[r] = once(list, millis);
    }
    return result;
  }

  /** One timed run of the workers: the same slice the interleaved measurement runs. */
  private static double once(List<Worker> workers, long millis) throws InterruptedException {
    return InterleavedLoop.slice(workers, millis).opsPerSecond();
  }
}
