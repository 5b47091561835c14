package dev.larder.wal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.wal.testing.SimulatedDisk;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class WriteAheadLogTest {

  @TempDir Path dir;

  @Test
  void recordsSurviveReopenInOrderAcrossSegments() throws Exception {
    WalConfig config = WalConfig.of(dir).withSegmentBytes(4096);
    try (WriteAheadLog log = WriteAheadLog.open(config, new LogTesting.Collected())) {
      for (long s = 1; s <= 300; s++) {
        log.sync(log.append(s, 1, LogTesting.payload(s, 40)));
      }
    }
    LogTesting.Collected c = new LogTesting.Collected();
    try (WriteAheadLog log = WriteAheadLog.open(config, c)) {
      assertEquals(300, c.sequences.size());
      for (int i = 0; i < 300; i++) {
        assertEquals(i + 1, c.sequences.get(i));
        assertArrayEquals(LogTesting.payload(i + 1, 40), c.payloads.get(i));
      }
      assertEquals(300, log.recovery().lastSequence());
      assertTrue(log.recovery().problems().isEmpty(), log.recovery().problems().toString());
      assertThrows(IllegalArgumentException.class, () -> log.append(300, 1, new byte[1]));
    }
    assertTrue(config.files().list(dir).stream().filter(n -> n.endsWith(".wal")).count() > 2);
  }

  @Test
  void secondOpenOfADirectoryIsRefusedWithAClearError() throws Exception {
    try (WriteAheadLog log = WriteAheadLog.open(WalConfig.of(dir), new LogTesting.Collected())) {
      assertEquals(0, log.lastSequence());
      LogDirectoryLockedException e =
          assertThrows(
              LogDirectoryLockedException.class,
              () -> WriteAheadLog.open(WalConfig.of(dir), new LogTesting.Collected()));
      assertTrue(e.getMessage().contains("in use"), e.getMessage());
    }
    WriteAheadLog.open(WalConfig.of(dir), new LogTesting.Collected()).close();
  }

  @Test
  void concurrentCommitsShareForces() throws Exception {
    int threads = 16;
    int perThread = 100;
    try (WriteAheadLog log = WriteAheadLog.open(WalConfig.of(dir), new LogTesting.Collected())) {
      AtomicLong sequence = new AtomicLong();
      Object commitLock = new Object();
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < perThread; i++) {
                    long ticket;
                    synchronized (commitLock) {
                      long s = sequence.incrementAndGet();
                      ticket = log.append(s, 1, LogTesting.payload(s, 100));
                    }
                    log.sync(ticket);
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
      pool.shutdown();
      assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
      LogStats stats = log.stats();
      assertEquals(threads * ((long) perThread), stats.records());
      assertEquals(stats.records(), stats.recordsForced());
      // Group commit: one force made more than one commit durable on average.
      assertTrue(stats.forces() < stats.records(), stats.toString());
    }
  }

  @Test
  void checkpointDeletesCoveredSegmentsAndRecoveryStartsFromIt() throws Exception {
    SimulatedDisk disk = new SimulatedDisk();
    WalConfig config = WalConfig.of(Path.of("/sim")).withFiles(disk).withSegmentBytes(4096);
    try (WriteAheadLog log = WriteAheadLog.open(config, new LogTesting.Collected())) {
      for (long s = 1; s <= 200; s++) {
        log.sync(log.append(s, 1, LogTesting.payload(s, 30)));
      }
      Checkpoint checkpoint = log.beginCheckpoint(200);
      for (long s = 201; s <= 210; s++) {
        log.sync(log.append(s, 1, LogTesting.payload(s, 30))); // writers carry on meanwhile
      }
      checkpoint.add(new byte[] {42});
      checkpoint.add(new byte[0]);
      assertEquals(2, checkpoint.complete());
      for (long s = 211; s <= 220; s++) {
        log.sync(log.append(s, 1, LogTesting.payload(s, 30)));
      }
    }
    List<String> names = disk.list(Path.of("/sim"));
    assertEquals(1, names.stream().filter(n -> n.endsWith(".ckp")).count(), names.toString());
    assertTrue(names.stream().filter(n -> n.endsWith(".wal")).count() <= 2, names.toString());
    LogTesting.Collected c = new LogTesting.Collected();
    try (WriteAheadLog log = WriteAheadLog.open(config, c)) {
      assertEquals(200, c.checkpointSequence);
      assertEquals(2, c.entries.size());
      assertArrayEquals(new byte[] {42}, c.entries.get(0));
      assertEquals(20, c.sequences.size());
      assertEquals(201, c.sequences.getFirst());
      assertEquals(220, log.recovery().lastSequence());
    }
  }

  @Test
  void damagedCheckpointFailsNamingTheFileUnlessSalvaged() throws Exception {
    SimulatedDisk disk = new SimulatedDisk();
    WalConfig config = WalConfig.of(Path.of("/sim")).withFiles(disk);
    try (WriteAheadLog log = WriteAheadLog.open(config, new LogTesting.Collected())) {
      log.sync(log.append(1, 1, new byte[3]));
      try (Checkpoint checkpoint = log.beginCheckpoint(1)) {
        checkpoint.add(new byte[] {1, 2, 3});
        checkpoint.complete();
      }
    }
    Path file = Path.of("/sim").resolve("checkpoint-0000000000000001.ckp");
    byte[] bytes = disk.content(file);
    bytes[30] ^= 4;
    disk.replace(file, bytes);
    LogCorruptedException e =
        assertThrows(
            LogCorruptedException.class,
            () -> WriteAheadLog.open(config, new LogTesting.Collected()));
    assertEquals("checkpoint-0000000000000001.ckp", e.file());
    try (WriteAheadLog log =
        WriteAheadLog.open(config.withSalvage(true), new LogTesting.Collected())) {
      assertTrue(log.recovery().lostAnything());
      assertTrue(log.recovery().problems().getFirst().contains("checkpoint-"));
    }
  }
}
