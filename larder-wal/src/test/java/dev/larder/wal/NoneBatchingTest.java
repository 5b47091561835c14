package dev.larder.wal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under {@code none} a commit is acknowledged once appended; records are written in batches (by
 * the committer that fills {@code BATCH_BYTES}, or by the timer every {@code BATCH_MILLIS}) and
 * so reach the operating system, where a process kill cannot take them, without a write per
 * record.
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
