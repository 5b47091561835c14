package dev.larder.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.codec.Codecs;
import dev.larder.wal.FileLayer;
import dev.larder.wal.FsyncPolicy;
import dev.larder.wal.WalConfig;
import dev.larder.wal.testing.HookedFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under {@code always} a commit becomes visible only after its force. The retry helper waits for
 * the commits it collided with to become visible before trying again; otherwise, on a slow disk,
 * every attempt met the same not-yet-visible commit and contended increments ran out of attempts.
 */
@Timeout(120)
class RetryOnSlowDiskTest {

  static final TxCacheSpec<String, Long> COUNTERS =
      TxCacheSpec.of("counters", Codecs.strings(), Codecs.longs());

  @TempDir Path directory;

  @Test
  void contendedIncrementsOnASlowDiskAllCommit() throws Exception {
    WalConfig wal = WalConfig.of(directory).withPolicy(FsyncPolicy.always())
        .withFiles(slowForces(30));
    try (TxStore store = TxStore.builder().cache(COUNTERS).persistence(wal).build()) {
      TxCache<String, Long> counters = store.cache(COUNTERS);
      counters.put("c", 0L);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        threads.add(Thread.ofPlatform().start(() -> {
          try {
            for (int i = 0; i < 10; i++) {
              store.inTransaction(tx -> {
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

  /** The standard files, with every force taking at least {@code millis}: a slow disk. */
  static FileLayer slowForces(long millis) {
    return new HookedFiles(FileLayer.standard(), HookedFiles.NONE, position -> {
      try {
        Thread.sleep(millis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
  }
}
