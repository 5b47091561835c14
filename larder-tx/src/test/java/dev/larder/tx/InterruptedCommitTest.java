package dev.larder.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.larder.codec.Codecs;
import dev.larder.wal.FsyncPolicy;
import dev.larder.wal.WalConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Committers are the application's threads, and applications interrupt their threads. An
 * interrupt while a commit waits for its force must not leave the commit in doubt: a wait that
 * ended with an exception made the store refuse every later commit.
 */
@Timeout(120)
class InterruptedCommitTest {

  static final TxCacheSpec<Long, Long> VALUES =
      TxCacheSpec.of("values", Codecs.longs(), Codecs.longs());

  @TempDir Path directory;

  @Test
  void interruptedCommittersCommitAndTheStoreGoesOn() throws Exception {
    WalConfig wal = WalConfig.of(directory).withPolicy(FsyncPolicy.always())
        .withFiles(RetryOnSlowDiskTest.slowForces(2));
    try (TxStore store = TxStore.builder().cache(VALUES).persistence(wal).build()) {
      TxCache<Long, Long> values = store.cache(VALUES);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      List<Thread> committers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        long base = t * 1_000L;
        committers.add(Thread.ofPlatform().start(() -> {
          try {
            for (long i = 0; i < 60; i++) {
              values.put(base + i, i);
              Thread.interrupted(); // each put starts uninterrupted; interrupts land in its wait
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
      values.put(-1L, -1L); // the store still takes commits
      assertEquals(241, values.estimatedSize());
    }
    try (TxStore reopened = TxStore.builder().cache(VALUES)
        .persistence(WalConfig.of(directory)).build()) {
      assertEquals(241, reopened.cache(VALUES).estimatedSize());
    }
  }
}
