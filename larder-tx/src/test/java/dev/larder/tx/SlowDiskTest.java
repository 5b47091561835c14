package dev.larder.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.larder.codec.Codecs;
import dev.larder.wal.FileLayer;
import dev.larder.wal.FsyncPolicy;
import dev.larder.wal.WalConfig;
import dev.larder.wal.testing.HookedFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Commits under {@code always} on a disk whose forces are slow, so that committers wait. */
@Timeout(120)
class SlowDiskTest {

  static final TxCacheSpec<String, Long> COUNTERS =
      TxCacheSpec.of("counters", Codecs.strings(), Codecs.longs());

  @TempDir Path directory;

  /**
   * A commit becomes visible only after its force. The retry helper waits for the commits it
   * collided with to become visible before trying again; otherwise every attempt met the same
   * not-yet-visible commit and contended increments ran out of attempts.
   */
  @Test
  void contendedIncrementsOnASlowDiskAllCommit() throws Exception {
    try (TxStore store = storeWithSlowForces(30)) {
      TxCache<String, Long> counters = store.cache(COUNTERS);
      counters.put("c", 0L);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        threads.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      try {
                        for (int i = 0; i < 10; i++) {
                          store.inTransaction(
                              tx -> {
                                tx.put(counters, "c", tx.get(counters, "c") + 1);
                                return null;
                              });
                        }
                      } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                      }
                    }));
      }
      for (Thread t : threads) {
        t.join();
      }
      assertEquals(null, failure.get(), "an increment ran out of attempts");
      assertEquals(30L, counters.get("c"));
    }
  }

  /**
   * Committers are the application's threads, and applications interrupt their threads. An
   * interrupt while a commit waits for its force must not leave the commit in doubt: a wait that
   * ended with an exception made the store refuse every later commit.
   */
  @Test
  void interruptedCommittersCommitAndTheStoreGoesOn() throws Exception {
    try (TxStore store = storeWithSlowForces(2)) {
      TxCache<String, Long> cache = store.cache(COUNTERS);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      List<Thread> committers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        String prefix = "t" + t + "-";
        committers.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      try {
                        for (long i = 0; i < 60; i++) {
                          cache.put(prefix + i, i);
                          Thread.interrupted(); // each put starts uninterrupted; interrupts land in
                          // its wait
                        }
                      } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                      }
                    }));
      }
      while (committers.stream().anyMatch(Thread::isAlive)) {
        committers.get(ThreadLocalRandom.current().nextInt(committers.size())).interrupt();
        Thread.sleep(0, 300_000);
      }
      for (Thread t : committers) {
        t.join();
      }
      assertNull(failure.get(), "a commit failed because its thread was interrupted");
      cache.put("after", -1L); // the store still takes commits
      assertEquals(241, cache.estimatedSize());
    }
    try (TxStore reopened =
        TxStore.builder().cache(COUNTERS).persistence(WalConfig.of(directory)).build()) {
      assertEquals(241, reopened.cache(COUNTERS).estimatedSize());
    }
  }

  /** A store under {@code always} whose every force takes at least {@code millis}. */
  private TxStore storeWithSlowForces(long millis) {
    FileLayer slow =
        new HookedFiles(
            FileLayer.standard(),
            HookedFiles.NONE,
            position -> {
              try {
                Thread.sleep(millis);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    return TxStore.builder()
        .cache(COUNTERS)
        .persistence(WalConfig.of(directory).withPolicy(FsyncPolicy.always()).withFiles(slow))
        .build();
  }
}
