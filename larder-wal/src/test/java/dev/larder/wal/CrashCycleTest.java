package dev.larder.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.wal.testing.SimulatedDisk;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One log crashed again and again (power cuts and kills, under every policy) while committers
 * append across small segments and a checkpointer rolls and deletes them: each recovery must open
 * with nothing to report but torn tails, keep every record acknowledged as the policy promises and
 * yield a log without gaps. The checks that refuse a log with missing files must never fire on what
 * a crash leaves (a segment created by a roll whose predecessor never got its footer, a footer
 * written at open, a checkpoint half installed).
 */
@Timeout(300)
class CrashCycleTest {

  private static final Path DIR = Path.of("/sim");

  @Test
  void alwaysPowerCuts() throws Exception {
    cycles(FsyncPolicy.always(), true, 101);
  }

  @Test
  void intervalKills() throws Exception {
    cycles(FsyncPolicy.interval(Duration.ofMillis(2)), false, 102);
  }

  @Test
  void intervalPowerCuts() throws Exception {
    cycles(FsyncPolicy.interval(Duration.ofMillis(2)), true, 103);
  }

  @Test
  void noneKillsAndPowerCuts() throws Exception {
    cycles(FsyncPolicy.none(), false, 104);
    cycles(FsyncPolicy.none(), true, 105);
  }

  /**
   * 20 logs, each crashed 8 times. Under {@code always} (and under {@code interval} when the
   * process is killed) every acknowledged record must survive; otherwise the recovered log must
   * still be a prefix without gaps.
   */
  private static void cycles(FsyncPolicy policy, boolean powerCut, long seed) throws Exception {
    Random random = new Random(seed);
    boolean keepsAcknowledged =
        policy instanceof FsyncPolicy.Always
            || (!powerCut && policy instanceof FsyncPolicy.Interval);
    for (int log = 0; log < 20; log++) {
      SimulatedDisk disk = new SimulatedDisk();
      WalConfig config =
          WalConfig.of(DIR).withFiles(disk).withSegmentBytes(4096).withPolicy(policy);
      Set<Long> acknowledged = Set.of();
      for (int crash = 0; crash <= 8; crash++) {
        String where = policy + (powerCut ? " power cut " : " kill ") + log + "." + crash;
        LogTesting.Collected c = new LogTesting.Collected();
        WriteAheadLog wal;
        try {
          wal = WriteAheadLog.open(config, c);
        } catch (LogCorruptedException e) {
          throw new AssertionError(where + ": " + e.getMessage(), e);
        }
        checkRecovered(wal, c, where);
        if (keepsAcknowledged) {
          for (long s : acknowledged) {
            assertTrue(
                s <= wal.recovery().lastSequence(), where + ": acknowledged record " + s + " lost");
          }
        }
        if (crash == 8) {
          wal.close();
          break;
        }
        acknowledged = run(wal, wal.recovery().lastSequence(), random, disk, powerCut);
        try {
          wal.close(); // the dead process's log: its files refuse every operation
        } catch (RuntimeException dead) {
          // it says so
        }
      }
    }
  }

  /** Every problem is a torn tail; replayed sequences continue from the checkpoint, one by one. */
  private static void checkRecovered(WriteAheadLog wal, LogTesting.Collected c, String where) {
    for (String problem : wal.recovery().problems()) {
      assertTrue(problem.startsWith("torn tail"), where + ": " + problem);
    }
    long expected = wal.recovery().checkpointSequence() + 1;
    for (long s : c.sequences) {
      assertEquals(expected++, s, where + ": gap in the replayed log");
    }
  }

  /**
   * Three committers and a checkpointer run for a random moment, then the disk crashes.
   *
   * @return the sequences acknowledged before the crash
   */
  private static Set<Long> run(
      WriteAheadLog wal, long last, Random random, SimulatedDisk disk, boolean powerCut)
      throws InterruptedException {
    Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
    AtomicLong sequence = new AtomicLong(last);
    AtomicReference<Throwable> unexpected = new AtomicReference<>();
    Object commitLock = new Object();
    Thread[] threads = new Thread[4];
    for (int t = 0; t < 3; t++) {
      threads[t] =
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      while (true) {
                        long s;
                        long ticket;
                        synchronized (commitLock) {
                          s = sequence.incrementAndGet();
                          ticket = wal.append(s, 1, LogTesting.payload(s, 16 + (int) (s % 200)));
                        }
                        wal.sync(ticket);
                        acknowledged.add(s);
                      }
                    } catch (java.io.UncheckedIOException | IllegalStateException dead) {
                      // the crash: this process is gone
                    } catch (Throwable e) {
                      unexpected.compareAndSet(null, e);
                    }
                  });
    }
    threads[3] =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    while (true) {
                      Checkpoint checkpoint;
                      synchronized (commitLock) {
                        checkpoint = wal.beginCheckpoint(sequence.get());
                      }
                      try (checkpoint) {
                        checkpoint.add(new byte[] {1});
                        checkpoint.complete();
                      }
                      Thread.sleep(1);
                    }
                  } catch (java.io.UncheckedIOException
                      | IllegalStateException
                      | InterruptedException dead) {
                    // the crash
                  } catch (Throwable e) {
                    unexpected.compareAndSet(null, e);
                  }
                });
    long deadline = System.nanoTime() + 100_000 + random.nextInt(3_000_000);
    while (System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    if (powerCut) {
      disk.powerCut(random);
    } else {
      disk.kill();
    }
    for (Thread t : threads) {
      t.join(10_000);
    }
    if (unexpected.get() != null) {
      throw new AssertionError("a worker failed", unexpected.get());
    }
    return acknowledged;
  }
}
