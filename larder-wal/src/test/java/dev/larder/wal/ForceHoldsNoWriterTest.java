package dev.larder.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.wal.testing.HookedFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under an interval policy a commit waits only for its record to be written to the operating
 * system, so the timer's force must not hold it up: a force can take long (a checkpoint of hundreds
 * of megabytes written beside the log makes the file system's journal commit wait for it), and
 * every everysec writer used to wait for the whole of it. Here the timer's force is held on a latch
 * for as long as the test needs: commits and the counters must go on meanwhile, and nothing may
 * count as forced before a force has ended.
 */
@Timeout(60)
class ForceHoldsNoWriterTest {

  @TempDir Path dir;

  private final AtomicBoolean holdForces = new AtomicBoolean();
  private final CountDownLatch forcing = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);
  private final ExecutorService committer = Executors.newSingleThreadExecutor();
  private WriteAheadLog log;

  @BeforeEach
  void open() throws IOException {
    FileLayer held =
        new HookedFiles(
            FileLayer.standard(),
            HookedFiles.NONE,
            position -> {
              if (holdForces.get() && Thread.currentThread().getName().equals("larder-wal-fsync")) {
                forcing.countDown();
                awaitRelease();
              }
            });
    log =
        WriteAheadLog.open(
            WalConfig.of(dir)
                .withPolicy(FsyncPolicy.interval(Duration.ofMillis(20)))
                .withFiles(held),
            new LogTesting.Collected());
  }

  @AfterEach
  void close() {
    release.countDown();
    committer.shutdownNow();
    log.close();
  }

  @Test
  void aCommitIsWrittenWhileTheTimersForceIsUnderWay() throws Exception {
    holdTheNextForce();
    Future<?> commit =
        committer.submit(() -> log.sync(log.append(2, 1, LogTesting.payload(2, 100))));
    try {
      commit.get(10, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("a commit waited for the timer's force to end", e);
    }
    assertEquals(1, release.getCount(), "the force was still held while the commit returned");
    assertEquals(
        0, log.stats().recordsForced(), "a record counted as forced before its force ended");
  }

  @Test
  void theCountersAnswerWhileTheTimersForceIsUnderWay() throws Exception {
    holdTheNextForce();
    Future<LogStats> stats = committer.submit(log::stats);
    LogStats during;
    try {
      during = stats.get(10, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("the counters waited for the timer's force to end", e);
    }
    assertTrue(during.recordsForced() <= during.records(), during.toString());
  }

  /** Commits record 1 (so the timer has something to force), then waits until its force is held. */
  private void holdTheNextForce() throws InterruptedException {
    holdForces.set(true);
    log.sync(log.append(1, 1, LogTesting.payload(1, 100)));
    assertTrue(forcing.await(10, TimeUnit.SECONDS), "the timer did not force within 10 s");
  }

  private void awaitRelease() {
    try {
      if (!release.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test never released the force");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
