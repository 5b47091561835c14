package dev.larder.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.larder.codec.Codecs;
import dev.larder.wal.FsyncPolicy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TxCache#put} and {@link TxCache#remove} outside a transaction are blind writes applied at
 * the commit point: open transactions still read their snapshot and still conflict with them, a
 * failed one changes nothing, and concurrent ones lose nothing across a reopen.
 */
@Timeout(60)
class BlindWriteTest {

  static final TxCacheSpec<String, Long> ACCOUNTS =
      TxCacheSpec.of("accounts", Codecs.strings(), Codecs.longs());

  @TempDir Path directory;

  @Test
  void openTransactionsKeepTheirSnapshotAndConflict() {
    for (Isolation isolation : Isolation.values()) {
      try (TxStore store = TxStore.builder().cache(ACCOUNTS).build()) {
        TxCache<String, Long> accounts = store.cache(ACCOUNTS);
        accounts.put("a", 1L);
        accounts.put("b", 1L);
        Transaction tx = store.begin(isolation);
        assertEquals(1L, tx.get(accounts, "a"));
        accounts.put("a", 2L);
        accounts.remove("b");
        assertEquals(1L, tx.get(accounts, "a"), isolation.toString());
        assertEquals(1L, tx.get(accounts, "b"), "first read after the blind removal");
        assertEquals(2L, accounts.get("a"));
        assertNull(accounts.get("b"));
        tx.put(accounts, "a", tx.get(accounts, "a") + 10);
        assertThrows(TransactionConflictException.class, tx::commit, isolation.toString());
        assertEquals(2L, accounts.get("a"));
      }
    }
  }

  @Test
  void aBlindWriteTooLargeForItsCacheChangesNothing() {
    TxCacheSpec<String, byte[]> small = TxCacheSpec.of("small", Codecs.strings(), Codecs.bytes())
        .with(b -> b.maximumMemory(1 << 20));
    try (TxStore store = TxStore.builder().cache(small).build()) {
      TxCache<String, byte[]> cache = store.cache(small);
      cache.put("keep", new byte[10]);
      Transaction reader = store.begin();
      assertThrows(IllegalArgumentException.class, () -> cache.put("keep", new byte[4 << 20]));
      assertEquals(10, cache.get("keep").length);
      assertEquals(10, reader.get(cache, "keep").length);
      reader.close();
      cache.put("keep", new byte[30]);
      assertEquals(30, cache.get("keep").length);
    }
  }

  @Test
  void concurrentBlindWritesUnderEachPolicySurviveAReopen() throws Exception {
    for (FsyncPolicy policy : List.of(FsyncPolicy.always(), FsyncPolicy.none())) {
      Path dir = directory.resolve(policy.toString());
      try (TxStore store = TxStore.builder().cache(ACCOUNTS).persistence(dir).fsync(policy)
          .build()) {
        TxCache<String, Long> accounts = store.cache(ACCOUNTS);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
          int id = t;
          threads.add(Thread.ofPlatform().start(() -> {
            for (long i = 0; i < 500; i++) {
              accounts.put("t" + id + "-" + (i % 50), i);
              if (i % 7 == 0) {
                accounts.remove("t" + id + "-" + ((i + 1) % 50));
              }
            }
          }));
        }
        for (Thread t : threads) {
          t.join();
        }
      }
      try (TxStore store = TxStore.builder().cache(ACCOUNTS).persistence(dir).fsync(policy)
          .build()) {
        TxCache<String, Long> accounts = store.cache(ACCOUNTS);
        for (int t = 0; t < 4; t++) {
          for (long k = 0; k < 50; k++) {
            Long expected = expectedAfter(k);
            assertEquals(expected, accounts.get("t" + t + "-" + k), policy + " key " + k);
          }
        }
      }
    }
  }

  /** Replays one thread's sequence of writes for one key. */
  private static Long expectedAfter(long key) {
    Long value = null;
    for (long i = 0; i < 500; i++) {
      if (i % 50 == key) {
        value = i;
      }
      if (i % 7 == 0 && (i + 1) % 50 == key) {
        value = null;
      }
    }
    return value;
  }
}
