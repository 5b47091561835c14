package dev.larder.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class WorkersTest {

  private static final Duration LONG = Duration.ofSeconds(30);

  @Test
  void joinReturnsWhenEveryWorkerSucceeded() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    try (Workers workers = Workers.named("ok")) {
      workers.start(4, index -> ran.addAndGet(index + 1));
      workers.join(LONG);
      assertFalse(workers.failed());
    }
    assertEquals(1 + 2 + 3 + 4, ran.get());
  }

  @Test
  void aFailedWorkerFailsJoinWithItsExceptionAsTheCauseAndTheOthersSuppressed() {
    IllegalStateException first = new IllegalStateException("first");
    AssertionError second = new AssertionError("second");
    AssertionError error;
    try (Workers workers = Workers.named("reader")) {
      workers.start(
          () -> {
            throw first;
          });
      // not before the first failure is recorded (a latch counted down before the throw let the
      // second failure be recorded first on a busy machine)
      workers.start(
          () -> {
            while (!workers.failed()) {
              Thread.sleep(1);
            }
            throw second;
          });
      workers.start(() -> {});
      error = assertThrows(AssertionError.class, () -> workers.join(LONG));
    }
    assertSame(first, error.getCause());
    assertEquals(1, error.getSuppressed().length);
    assertTrue(
        error.getMessage().startsWith("2 of 3 reader workers failed; first, reader-0"),
        error.getMessage());
  }

  @Test
  void aWorkerStillRunningAtTheTimeoutFailsJoinWithItsStack() {
    CountDownLatch never = new CountDownLatch(1);
    try (Workers workers = Workers.named("stuck")) {
      workers.start(never::await);
      AssertionError error =
          assertThrows(AssertionError.class, () -> workers.join(Duration.ofMillis(50)));
      assertTrue(error.getMessage().contains("[stuck-0] still running"), error.getMessage());
      assertEquals(1, error.getSuppressed().length);
    } // close interrupts it
  }

  @Test
  void closeReportsAFailureThatJoinDidNotAndInterruptsWhatStillRuns() {
    Workers workers = Workers.named("w");
    workers.start(
        () -> {
          throw new IllegalArgumentException("lost unless reported");
        });
    workers.start(() -> new CountDownLatch(1).await()); // ends only by interrupt
    AssertionError error =
        assertThrows(
            AssertionError.class,
            () -> {
              // The first worker's failure is recorded before its thread ends: waiting for the end
              // (not for a latch it counts down before throwing) keeps close's interrupt of the
              // second from being recorded first on a busy machine.
              workers.threads().get(0).join();
              workers.close();
            });
    assertTrue(error.getCause() instanceof IllegalArgumentException, error.toString());
    assertFalse(workers.threads().get(1).isAlive());
    workers.close(); // reported once only
  }

  @Test
  void rethrowFailuresStopsTheTestThreadAtTheFirstFailure() throws Exception {
    try (Workers workers = Workers.named("early")) {
      workers.start(
          () -> {
            throw new IllegalStateException("boom");
          });
      Await.until("the worker failed", LONG, workers::failed);
      assertThrows(AssertionError.class, workers::rethrowFailures);
    }
  }

  @Test
  void countWaitingInSeesWorkersParkedInAMethod() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (Workers workers = Workers.named("waiter")) {
      workers.start(3, index -> parkHere(release));
      Await.until(
          "three workers parked in parkHere",
          LONG,
          () -> workers.countWaitingIn("WorkersTest", "parkHere") == 3);
      assertEquals(3, workers.countWaitingIn("dev.larder.testing.WorkersTest", "parkHere"));
      assertEquals(0, workers.countWaitingIn("OtherTest", "parkHere"));
      assertEquals(0, workers.countWaitingIn("WorkersTest", "elsewhere"));
      release.countDown();
      workers.join(LONG);
    }
  }

  private static void parkHere(CountDownLatch release) throws InterruptedException {
    release.await();
  }
}
