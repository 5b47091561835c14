package dev.larder.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.wal.testing.SimulatedDisk;
import java.nio.file.Path;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Concurrent committers under {@code always} on a disk that loses, reorders and tears every write
 * not yet forced when the power goes: recovery must keep every acknowledged record and yield a
 * gap-free prefix of the log.
 */
@Timeout(120)
class PowerCutTest {

  @Test
  void noAcknowledgedRecordIsLostInManyCuts() throws Exception {
    Random random = new Random(2026);
    long lost = 0;
    long acknowledgedTotal = 0;
    for (int cut = 0; cut < 200; cut++) {
      SimulatedDisk disk = new SimulatedDisk();
      WalConfig config = WalConfig.of(Path.of("/sim")).withFiles(disk).withSegmentBytes(4096);
      Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
      WriteAheadLog log = WriteAheadLog.open(config, new LogTesting.Collected());
      AtomicLong sequence = new AtomicLong();
      Object commitLock = new Object();
      Thread[] threads = new Thread[4];
      for (int t = 0; t < threads.length; t++) {
        threads[t] =
            new Thread(
                () -> {
                  try {
                    while (true) {
                      long s;
                      long ticket;
                      synchronized (commitLock) {
                        s = sequence.incrementAndGet();
                        ticket = log.append(s, 1, LogTesting.payload(s, 16 + (int) (s % 300)));
                      }
                      log.sync(ticket);
                      acknowledged.add(s);
                    }
                  } catch (RuntimeException dead) {
                    // the power went: this committer's process is gone
                  }
                });
        threads[t].start();
      }
      long deadline = System.nanoTime() + random.nextInt(3_000_000);
      while (System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      disk.powerCut(random);
      for (Thread t : threads) {
        t.join(10_000);
      }
      LogTesting.Collected c = new LogTesting.Collected();
      try (WriteAheadLog reopened = WriteAheadLog.open(config, c)) {
        for (int i = 0; i < c.sequences.size(); i++) {
          assertEquals(i + 1, c.sequences.get(i), "gap in recovered log, cut " + cut);
        }
        for (long s : acknowledged) {
          if (s > c.sequences.size()) {
            lost++;
          }
        }
        acknowledgedTotal += acknowledged.size();
        assertTrue(reopened.recovery().lastSequence() >= c.sequences.size());
      }
    }
    assertEquals(0, lost, "acknowledged records lost");
    assertTrue(acknowledgedTotal > 200, "too few commits to mean anything: " + acknowledgedTotal);
  }
}
