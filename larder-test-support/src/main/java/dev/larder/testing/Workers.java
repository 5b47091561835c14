package dev.larder.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The worker threads of one concurrent test, whose failures fail the test. A worker that throws (an
 * assertion, an exception, an error) is remembered; {@link #join} waits for every worker and then
 * throws an {@link AssertionError} naming the failed workers, with the first failure as its cause
 * and the others suppressed. A test that only joined its threads would pass with a dead worker: its
 * exception went to the thread's default handler, which prints and forgets it.
 *
 * <p>Typical use:
 *
 * <pre>{@code
 * try (Workers writers = Workers.named("writer")) {
 *   writers.start(4, index -> { ... assertions ... });
 *   ... the test thread's own work, which may call writers.rethrowFailures() ...
 *   writers.join(Duration.ofSeconds(30));
 * }
 * }</pre>
 *
 * {@link #close} interrupts workers still running, waits briefly for them, and reports failures
 * that {@link #join} has not reported, so a test that fails early does not leave threads behind.
 *
 * <p>Thread safety: start, join and close are called by the test's thread; {@link #failed}, {@link
 * #rethrowFailures} and {@link #countWaitingIn} may be called from any thread.
 */
public final class Workers implements AutoCloseable {

  /** A worker's body; may throw anything, which fails the test at {@link #join}. */
  @FunctionalInterface
  public interface Task {
    /**
     * Does the worker's work.
     *
     * @throws Exception to fail the test
     */
    void run() throws Exception;
  }

  /** A worker's body given its index among the workers started together. */
  @FunctionalInterface
  public interface IndexedTask {
    /**
     * Does the work of the worker with this index.
     *
     * @param index 0 for the first worker started by the call, 1 for the next...
     * @throws Exception to fail the test
     */
    void run(int index) throws Exception;
  }

  /** How long {@link #close} waits for interrupted workers to end. */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

  private final String name;
  private final List<Thread> threads = new ArrayList<>();
  private final ConcurrentLinkedQueue<Failure> failures = new ConcurrentLinkedQueue<>();
  private boolean reported;

  private record Failure(String worker, Throwable error) {}

  private Workers(String name) {
    this.name = name;
  }

  /**
   * Returns an empty group of workers.
   *
   * @param name what the workers are, used in their thread names and in failure messages
   * @throws NullPointerException if {@code name} is null
   */
  public static Workers named(String name) {
    return new Workers(Objects.requireNonNull(name, "name"));
  }

  /**
   * Starts one worker on a new platform thread named after the group.
   *
   * @param task the worker's body
   * @return the worker's thread (already started)
   */
  public Thread start(Task task) {
    Objects.requireNonNull(task, "task");
    String threadName = name + "-" + threads.size();
    Thread thread =
        Thread.ofPlatform()
            .name(threadName)
            .unstarted(
                () -> {
                  try {
                    task.run();
                  } catch (Throwable t) {
                    failures.add(new Failure(threadName, t));
                  }
                });
    threads.add(thread);
    thread.start();
    return thread;
  }

  /**
   * Starts {@code count} workers running {@code task} with their index.
   *
   * @param count workers to start, at least 0
   * @param task the workers' body
   * @return this
   */
  public Workers start(int count, IndexedTask task) {
    Objects.requireNonNull(task, "task");
    for (int i = 0; i < count; i++) {
      int index = i;
      start(() -> task.run(index));
    }
    return this;
  }

  /** Returns the workers' threads, in the order started. */
  public List<Thread> threads() {
    return List.copyOf(threads);
  }

  /** Returns whether a worker has failed so far. */
  public boolean failed() {
    return !failures.isEmpty();
  }

  /**
   * Throws now if a worker has failed, without waiting for the others: for a test thread that loops
   * until its workers are done and should stop at the first failure.
   *
   * @throws AssertionError describing the failures so far
   */
  public void rethrowFailures() {
    if (!failures.isEmpty()) {
      reported = true;
      throw failure("failed");
    }
  }

  /**
   * Waits for every worker to end, then fails if any failed or any is still running.
   *
   * @param timeout how long to wait for all of them together
   * @throws AssertionError if a worker threw (first failure as the cause, the others suppressed),
   *     or if a worker was still running at the timeout (its stack attached)
   * @throws InterruptedException if the test thread is interrupted while waiting
   */
  public void join(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Thread thread : threads) {
      // join can return while the thread still reads as alive (it is terminating): wait again
      // until it reads as ended or the time is up, so a finished worker is never reported running.
      long left = deadline - System.nanoTime();
      while (thread.isAlive() && left > 0) {
        thread.join(Duration.ofNanos(left));
        left = deadline - System.nanoTime();
      }
    }
    List<Thread> running = threads.stream().filter(Thread::isAlive).toList();
    if (!running.isEmpty()) {
      AssertionError error =
          failures.isEmpty()
              ? new AssertionError(describe(running) + " still running after " + timeout)
              : failure("failed, and " + describe(running) + " still running after " + timeout);
      for (Thread thread : running) {
        Throwable where = new Throwable(thread.getName() + " was here");
        where.setStackTrace(thread.getStackTrace());
        error.addSuppressed(where);
      }
      reported = true;
      throw error;
    }
    rethrowFailures();
    reported = true;
  }

  /**
   * Counts the workers parked (waiting, with or without a timeout) in a method: an observable sign
   * that they reached a wait, for a test that must not release something before every worker waits
   * on it. The frame may be anywhere on the worker's stack.
   *
   * @param className the frame's class, by its binary name ({@code Outer$Inner} for a nested class)
   *     or a suffix of it starting after a {@code .} or {@code $}
   * @param methodName the frame's method
   * @return how many workers are parked with that frame on their stack now
   */
  public int countWaitingIn(String className, String methodName) {
    int count = 0;
    for (Thread thread : threads) {
      Thread.State state = thread.getState();
      if ((state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING)
          && Arrays.stream(thread.getStackTrace())
              .anyMatch(
                  frame ->
                      frame.getMethodName().equals(methodName)
                          && classMatches(frame.getClassName(), className))) {
        count++;
      }
    }
    return count;
  }

  private static boolean classMatches(String actual, String wanted) {
    return actual.equals(wanted) || actual.endsWith("." + wanted) || actual.endsWith("$" + wanted);
  }

  /**
   * Interrupts the workers still running, waits up to 10 s for them, and throws the failures that
   * {@link #join} or {@link #rethrowFailures} did not already report. Inside a try-with-resources
   * whose body threw, what this throws is suppressed into that exception.
   *
   * @throws AssertionError if a worker failed and that was not reported yet, or if a worker did not
   *     end within 10 s of its interrupt
   */
  @Override
  public void close() {
    List<Thread> running = threads.stream().filter(Thread::isAlive).toList();
    running.forEach(Thread::interrupt);
    long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
    boolean interrupted = false;
    for (Thread thread : running) {
      try {
        thread.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    List<Thread> stuck = running.stream().filter(Thread::isAlive).toList();
    if (!stuck.isEmpty()) {
      throw new AssertionError(
          describe(stuck) + " did not end within " + CLOSE_WAIT + " of an interrupt");
    }
    if (!reported && !failures.isEmpty()) {
      reported = true;
      throw failure("failed");
    }
  }

  private AssertionError failure(String what) {
    List<Failure> all = List.copyOf(failures);
    AssertionError error =
        new AssertionError(
            all.size()
                + " of "
                + threads.size()
                + " "
                + name
                + " workers "
                + what
                + "; first, "
                + all.getFirst().worker()
                + ": "
                + all.getFirst().error(),
            all.getFirst().error());
    for (Failure other : all.subList(1, all.size())) {
      error.addSuppressed(other.error());
    }
    return error;
  }

  private static String describe(List<Thread> threads) {
    return threads.stream().map(Thread::getName).toList().toString();
  }
}
