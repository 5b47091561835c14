package dev.larder.wal;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.wal.testing.HookedFiles;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log's timer (the periodic write under {@code none}, the periodic force under an interval)
 * must not die quietly: a scheduled task that throws an unchecked exception is never run again, and
 * the log would then accept commits that nothing writes or forces any more. The log fails instead,
 * as it does on an I/O error, and refuses the next commit.
 */
@Timeout(60)
class TimerFailureTest {

  @TempDir Path dir;

  @Test
  void anUncheckedFailureInTheTimersWriteFailsTheLog() throws Exception {
    CountDownLatch thrown = new CountDownLatch(1);
    FileLayer failing =
        new HookedFiles(
            FileLayer.standard(),
            position -> {
              if (Thread.currentThread().getName().equals("larder-wal-write")) {
                thrown.countDown();
                throw new IllegalStateException("a fault in the layer beneath");
              }
            },
            HookedFiles.NONE);
    assertLogFailsAfterTheTimerThrows(
        WalConfig.of(dir).withPolicy(FsyncPolicy.none()).withFiles(failing), thrown);
  }

  @Test
  void anUncheckedFailureInTheTimersForceFailsTheLog() throws Exception {
    CountDownLatch thrown = new CountDownLatch(1);
    FileLayer failing =
        new HookedFiles(
            FileLayer.standard(),
            HookedFiles.NONE,
            position -> {
              if (Thread.currentThread().getName().equals("larder-wal-fsync")) {
                thrown.countDown();
                throw new IllegalStateException("a fault in the layer beneath");
              }
            });
    assertLogFailsAfterTheTimerThrows(
        WalConfig.of(dir)
            .withPolicy(FsyncPolicy.interval(Duration.ofMillis(10)))
            .withFiles(failing),
        thrown);
  }

  private static void assertLogFailsAfterTheTimerThrows(WalConfig config, CountDownLatch thrown)
      throws Exception {
    WriteAheadLog log = WriteAheadLog.open(config, new LogTesting.Collected());
    try {
      log.sync(log.append(1, 1, LogTesting.payload(1, 100)));
      assertTrue(thrown.await(10, TimeUnit.SECONDS), "the timer did not run within 10 s");
      // the tick records the failure just after the hook throws: poll, bounded by the timeout
      assertThrows(
          UncheckedIOException.class,
          () -> {
            for (long s = 2; ; s++) {
              log.sync(log.append(s, 1, LogTesting.payload(s, 100)));
              Thread.sleep(5);
            }
          });
      // a failed log says so at close too
      assertThrows(UncheckedIOException.class, log::close);
    } finally {
      try {
        log.close(); // a no-op once closed; closes it when an assertion above failed
      } catch (UncheckedIOException alreadyReported) {
        // the assertion above reports the failure
      }
    }
  }
}
