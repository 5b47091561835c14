package dev.larder.wal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.wal.testing.HookedFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under {@code none} a commit is acknowledged once appended; records are written in batches (by the
 * committer that fills {@code BATCH_BYTES}, or by the timer every {@code BATCH_MILLIS}) and so
 * reach the operating system, where a process kill cannot take them, without a write per record.
 */
@Timeout(60)
class NoneBatchingTest {

  @TempDir Path dir;
  @TempDir Path copy;

  @Test
  void manyRecordsShareAWrite() throws Exception {
    WalConfig config = WalConfig.of(dir).withPolicy(FsyncPolicy.none());
    try (WriteAheadLog log = WriteAheadLog.open(config, new LogTesting.Collected())) {
      for (long s = 1; s <= 5000; s++) {
        log.sync(log.append(s, 1, LogTesting.payload(s, 100)));
      }
      // The timer writes at most once per 10 ms: this loop of memory appends would have to take
      // 50 s for every record to get a write of its own.
      LogStats stats = log.stats();
      assertEquals(5000, stats.records());
      assertTrue(stats.writes() < 5000, stats.toString());
    }
  }

  @Test
  void acknowledgedRecordsReachTheOperatingSystemWithinTheBatchWindow() throws Exception {
    WalConfig config = WalConfig.of(dir).withPolicy(FsyncPolicy.none());
    try (WriteAheadLog log = WriteAheadLog.open(config, new LogTesting.Collected())) {
      for (long s = 1; s <= 20; s++) {
        log.sync(log.append(s, 1, LogTesting.payload(s, 100)));
      }
      // What a SIGKILL would leave: the files as the operating system has them now, read while
      // the log is still open. Copies are taken until the timer's write shows (bounded).
      LogTesting.Collected recovered = null;
      for (int attempt = 0; attempt < 200; attempt++) {
        recovered = recoverCopy();
        if (recovered.sequences.size() == 20) {
          break;
        }
        Thread.sleep(50);
      }
      assertEquals(20, recovered.sequences.size(), "records the operating system has");
      for (int i = 0; i < 20; i++) {
        assertArrayEquals(LogTesting.payload(i + 1, 100), recovered.payloads.get(i));
      }
    }
  }

  /**
   * Commits that outrun the disk wait once 4 MiB are pending: the pending buffer stays bounded. The
   * file layer holds every record write made by another thread than the committer (the log's timer)
   * until released, as a slow disk would hold the flusher; a committer of 1 KiB records must then
   * stop well short of the 20,000 it would otherwise append to memory (20 MiB), finish once writes
   * go through, and every record is there after reopening.
   */
  @Test
  void committersWaitForTheDiskOncePendingBytesReachTheLimit() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch writerHeld = new CountDownLatch(1);
    AtomicReference<Thread> committerThread = new AtomicReference<>();
    // a segment's header (position 0) and the committer's own writes go through
    FileLayer gated =
        new HookedFiles(
            FileLayer.standard(),
            position -> {
              if (position > 0 && Thread.currentThread() != committerThread.get()) {
                try {
                  writerHeld.countDown();
                  release.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  throw new IOException(e);
                }
              }
            },
            HookedFiles.NONE);
    int records = 20_000;
    int size = 1024;
    AtomicLong acknowledged = new AtomicLong();
    WalConfig config = WalConfig.of(dir).withPolicy(FsyncPolicy.none()).withFiles(gated);
    try (WriteAheadLog log = WriteAheadLog.open(config, new LogTesting.Collected())) {
      // one record, below a batch: the timer writes it, and is held in that write from now on
      log.sync(log.append(1, 1, LogTesting.payload(1, size)));
      acknowledged.incrementAndGet();
      if (!writerHeld.await(10, TimeUnit.SECONDS)) {
        release.countDown();
        throw new AssertionError("the log's timer did not write within 10 s");
      }
      Thread committer =
          new Thread(
              () -> {
                for (long s = 2; s <= records; s++) {
                  log.sync(log.append(s, 1, LogTesting.payload(s, size)));
                  acknowledged.incrementAndGet();
                }
              });
      committer.setDaemon(true);
      committerThread.set(committer);
      committer.start();
      long held;
      try {
        // wait until the committer stops advancing (or gets through everything)
        long last = -1;
        while (acknowledged.get() != last && acknowledged.get() < records) {
          last = acknowledged.get();
          Thread.sleep(300);
        }
        held = acknowledged.get();
      } finally {
        release.countDown(); // before any assertion: closing the log needs the writes to go
      }
      // 4 MiB of 1 KiB records (plus one batch being written), far below 20,000
      assertTrue(
          held < 2 * (4 << 20) / size,
          "records acknowledged while no write went" + " through: " + held);
      assertTrue(held > (4 << 20) / (2 * size), "the committer ran ahead to the limit: " + held);
      committer.join(30_000);
      assertEquals(records, acknowledged.get());
    }
    LogTesting.Collected recovered = new LogTesting.Collected();
    WriteAheadLog.open(WalConfig.of(dir), recovered).close();
    assertEquals(records, recovered.sequences.size());
    assertArrayEquals(LogTesting.payload(records, size), recovered.payloads.get(records - 1));
  }

  private LogTesting.Collected recoverCopy() throws Exception {
    try (Stream<Path> old = Files.list(copy)) {
      for (Path p : old.toList()) {
        Files.delete(p);
      }
    }
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p : files.toList()) {
        if (p.getFileName().toString().endsWith(".wal")) {
          Files.copy(p, copy.resolve(p.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
    LogTesting.Collected c = new LogTesting.Collected();
    WriteAheadLog.open(WalConfig.of(copy), c).close();
    return c;
  }
}
