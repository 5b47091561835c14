package dev.larder.testing;

import java.time.Duration;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * Waits for an observable condition instead of sleeping for a time that is supposed to be long
 * enough: the wait ends as soon as the condition holds, and a condition that never holds fails the
 * test saying what was awaited, rather than letting it go on as if it had held.
 */
public final class Await {

  /** Between two evaluations of the condition. */
  private static final Duration POLL = Duration.ofMillis(2);

  private Await() {}

  /**
   * Evaluates {@code condition} until it returns true.
   *
   * @param what what the condition means, for the failure message
   * @param timeout how long to wait at most
   * @param condition evaluated on the calling thread, repeatedly; must not block for long
   * @throws AssertionError if the condition did not hold within the timeout
   * @throws InterruptedException if interrupted while waiting
   */
  public static void until(String what, Duration timeout, BooleanSupplier condition)
      throws InterruptedException {
    Objects.requireNonNull(what, "what");
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("not within " + timeout + ": " + what);
      }
      Thread.sleep(POLL);
    }
  }
}
