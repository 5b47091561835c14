package dev.larder.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Interrupts reach the threads that write and force the log (committers are the application's
 * threads; the interval policy has a timer): they must never close the log's files. With
 * FileChannel, one interrupt during a force closed the channel and failed every later commit.
 */
@Timeout(120)
class InterruptTest {

  @TempDir Path dir;

  @Test
  void interruptedCommittersLeaveTheLogWorking() throws Exception {
    WalConfig config = WalConfig.of(dir).withPolicy(FsyncPolicy.always());
    ConcurrentSkipListSet<Long> acknowledged = new ConcurrentSkipListSet<>();
    AtomicLong sequence = new AtomicLong();
    Object commitLock = new Object();
    AtomicLong lostInterrupts = new AtomicLong();
    try (WriteAheadLog log = WriteAheadLog.open(config, new LogTesting.Collected())) {
      List<Thread> committers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        committers.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      for (int i = 0; i < 300; i++) {
                        long s;
                        long ticket;
                        synchronized (commitLock) {
                          s = sequence.incrementAndGet();
                          ticket = log.append(s, 1, LogTesting.payload(s, 64));
                        }
                        // An interrupt neither fails the wait nor is lost: the commit is
                        // acknowledged and
                        // the flag is still set (once, a wait ended with an exception, leaving the
                        // commit in
                        // doubt, which larder-tx answers by refusing every later commit).
                        boolean before = Thread.currentThread().isInterrupted();
                        log.sync(ticket);
                        acknowledged.add(s);
                        if (before && !Thread.currentThread().isInterrupted()) {
                          lostInterrupts.incrementAndGet();
                        }
                        Thread.interrupted();
                      }
                    }));
      }
      // Interrupt the committers at random moments until they are done, which happens while
      // some of them lead a group's write and force.
      while (committers.stream().anyMatch(Thread::isAlive)) {
        committers.get(ThreadLocalRandom.current().nextInt(committers.size())).interrupt();
        Thread.sleep(0, 200_000);
      }
      for (Thread t : committers) {
        t.join();
      }
      assertEquals(1_200, acknowledged.size(), "every commit acknowledged despite interrupts");
      assertEquals(0, lostInterrupts.get(), "a committer's interrupt was swallowed");
      // The log still takes and forces commits after all those interrupts.
      long s = sequence.incrementAndGet();
      log.sync(log.append(s, 1, LogTesting.payload(s, 64)));
      acknowledged.add(s);
    }
    LogTesting.Collected replayed = new LogTesting.Collected();
    try (WriteAheadLog log = WriteAheadLog.open(config, replayed)) {
      assertTrue(
          replayed.sequences.containsAll(acknowledged),
          "acknowledged records missing after reopen");
      assertEquals(sequence.get(), log.lastSequence());
    }
  }

  @Test
  void closingAnIntervalLogDuringItsPeriodicForceSucceeds() throws Exception {
    for (int round = 0; round < 40; round++) {
      Path directory = dir.resolve("r" + round);
      WalConfig config =
          WalConfig.of(directory).withPolicy(FsyncPolicy.interval(Duration.ofMillis(1)));
      long last = 0;
      try (WriteAheadLog log = WriteAheadLog.open(config, new LogTesting.Collected())) {
        for (long s = 1; s <= 200; s++) {
          log.append(s, 1, LogTesting.payload(s, 512));
          last = s;
        }
      } // close() must not fail: it used to interrupt a force under way and fail the log
      LogTesting.Collected replayed = new LogTesting.Collected();
      try (WriteAheadLog log = WriteAheadLog.open(config, replayed)) {
        assertEquals(last, log.lastSequence(), "round " + round);
      }
    }
  }
}
