package dev.larder.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codecs;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class TransactionApiTest {

  static final TxCacheSpec<String, Long> ACCOUNTS =
      TxCacheSpec.of("accounts", Codecs.strings(), Codecs.longs());
  static final TxCacheSpec<Long, String> LOG =
      TxCacheSpec.of("log", Codecs.longs(), Codecs.strings());

  @Test
  void tryWithResourcesRollsBackWhatWasNotCommitted() {
    try (TxStore store = TxStore.builder().cache(ACCOUNTS).build()) {
      TxCache<String, Long> accounts = store.cache(ACCOUNTS);
      try (Transaction tx = store.begin()) {
        tx.put(accounts, "a", 5L);
        assertEquals(5L, tx.get(accounts, "a")); // a transaction sees its own writes
      }
      assertNull(accounts.get("a"));
      Transaction done = store.begin();
      done.rollback();
      assertThrows(IllegalStateException.class, () -> done.get(accounts, "a"));
      assertEquals(0, store.stats().activeSnapshots());
    }
  }

  /**
   * A retry's wait for the commits it collided with ends when its thread is interrupted, rather
   * than spinning until its deadline ({@code parkNanos} does not park an interrupted thread).
   */
  @Test
  void anInterruptedRetryStopsWaitingForVisibilityAndKeepsTheFlag() {
    try (TxStore store = TxStore.builder().cache(ACCOUNTS).build()) {
      long wait = Duration.ofSeconds(20).toNanos();
      Thread.currentThread().interrupt();
      long start = System.nanoTime();
      try {
        store.engine().awaitVisible(Long.MAX_VALUE, wait); // a commit that never comes
        assertTrue(System.nanoTime() - start < wait / 2, "waited for the deadline");
        assertTrue(Thread.currentThread().isInterrupted(), "the interrupt flag was lost");
      } finally {
        Thread.interrupted();
      }
    }
  }

  @Test
  void misusesAreRefusedSayingWhatIsWrong(@TempDir Path dir) throws Exception {
    try (TxStore store = TxStore.builder().cache(ACCOUNTS).build()) {
      TxCacheSpec<String, Long> lookalike = ACCOUNTS.with(b -> b.maximumMemory(1 << 20));
      IllegalArgumentException other =
          assertThrows(IllegalArgumentException.class, () -> store.cache(lookalike));
      assertTrue(other.getMessage().contains("declared with another spec"), other.getMessage());
      IllegalArgumentException unknown =
          assertThrows(IllegalArgumentException.class, () -> store.cache(LOG));
      assertTrue(unknown.getMessage().contains("declares no cache log"), unknown.getMessage());
    }
    Path file = Files.createFile(dir.resolve("not-a-directory"));
    UncheckedIOException e =
        assertThrows(
            UncheckedIOException.class,
            () -> TxStore.builder().cache(ACCOUNTS).persistence(file).build());
    assertInstanceOf(NotDirectoryException.class, e.getCause());
    assertTrue(e.getMessage().contains("the log directory is a file"), e.getMessage());
  }

  @Test
  void commitAcrossCachesIsAllOrNothing() {
    try (TxStore store = TxStore.builder().cache(ACCOUNTS).cache(LOG).build()) {
      TxCache<String, Long> accounts = store.cache(ACCOUNTS);
      TxCache<Long, String> log = store.cache(LOG);
      accounts.put("a", 100L);
      Transaction loser = store.begin();
      loser.put(log, 1L, "loser");
      loser.compute(accounts, "a", (k, v) -> v - 1);
      store.inTransaction(
          tx -> {
            tx.put(log, 2L, "winner");
            tx.compute(accounts, "a", (k, v) -> v + 1);
            return null;
          });
      assertThrows(TransactionConflictException.class, loser::commit);
      assertNull(log.get(1L)); // nothing of the failed commit is visible, in any cache
      assertEquals("winner", log.get(2L));
      assertEquals(101L, accounts.get("a"));
    }
  }

  @Test
  void retryHelperReRunsOnConflictUpToItsLimit() {
    try (TxStore store = TxStore.builder().cache(ACCOUNTS).build()) {
      TxCache<String, Long> accounts = store.cache(ACCOUNTS);
      accounts.put("a", 0L);
      AtomicInteger runs = new AtomicInteger();
      long result =
          store.inTransaction(
              5,
              tx -> {
                long a = tx.get(accounts, "a");
                if (runs.incrementAndGet() < 3) {
                  accounts.put("a", a + 100); // someone else commits meanwhile
                }
                tx.put(accounts, "a", a + 1);
                return a + 1;
              });
      assertEquals(3, runs.get());
      assertEquals(201L, result);
      assertEquals(201L, accounts.get("a"));
      AtomicInteger always = new AtomicInteger();
      assertThrows(
          TransactionConflictException.class,
          () ->
              store.inTransaction(
                  2,
                  tx -> {
                    always.incrementAndGet();
                    long a = tx.get(accounts, "a");
                    accounts.put("a", a + 1);
                    tx.put(accounts, "a", a);
                    return null;
                  }));
      assertEquals(2, always.get());
      assertEquals(4, store.stats().conflicts()); // 2 in the first call, 2 in the second
    }
  }

  @Test
  void aValueTooLargeForItsCacheUndoesTheWholeCommit() {
    TxCacheSpec<String, byte[]> small =
        TxCacheSpec.of("small", Codecs.strings(), Codecs.bytes())
            .with(b -> b.maximumMemory(1 << 20));
    try (TxStore store = TxStore.builder().cache(small).build()) {
      TxCache<String, byte[]> cache = store.cache(small);
      cache.put("keep", new byte[10]);
      Transaction tx = store.begin();
      tx.put(cache, "keep", new byte[20]);
      tx.put(cache, "huge", new byte[4 << 20]);
      assertThrows(IllegalArgumentException.class, tx::commit);
      assertFalse(tx.isActive());
      assertEquals(10, cache.get("keep").length);
      assertNull(cache.get("huge"));
      cache.put("keep", new byte[30]); // the store still commits afterwards
      assertEquals(30, cache.get("keep").length);
    }
  }

  @Test
  void oldVersionsAndHistoryAreTrimmedOnceNoSnapshotNeedsThem() {
    try (TxStore store = TxStore.builder().cache(ACCOUNTS).build()) {
      TxCache<String, Long> accounts = store.cache(ACCOUNTS);
      Transaction reader = store.begin();
      for (long i = 0; i < 100; i++) {
        accounts.put("k" + (i % 10), i);
      }
      assertNull(reader.get(accounts, "k3"));
      assertTrue(store.stats().versionedKeys() >= 10);
      reader.close();
      accounts.put("k0", -1L);
      accounts.put("k1", -1L);
      TxStats stats = store.stats();
      assertTrue(stats.versionedKeys() <= 2, stats.toString());
      assertTrue(stats.historyCommits() <= 2, stats.toString());
    }
  }

  @Test
  void anExpiredEntryIsForgottenButATransactionKeepsWhatItRead() {
    AtomicLong now = new AtomicLong();
    TxCacheSpec<String, Long> expiring =
        ACCOUNTS.with(b -> b.expireAfterWrite(Duration.ofMinutes(1)).ticker(now::get));
    try (TxStore store = TxStore.builder().cache(expiring).build()) {
      TxCache<String, Long> cache = store.cache(expiring);
      cache.put("a", 1L);
      try (Transaction tx = store.begin()) {
        assertEquals(1L, tx.get(cache, "a"));
        now.addAndGet(Duration.ofMinutes(2).toNanos());
        assertEquals(1L, tx.get(cache, "a")); // repeatable within the transaction
        assertNull(store.cache(expiring).get("a")); // forgotten for everyone else
      }
    }
  }

  @Test
  void badInputGetsClearErrors() {
    try (TxStore store = TxStore.builder().cache(ACCOUNTS).build();
        TxStore other = TxStore.builder().cache(ACCOUNTS).build()) {
      TxCache<String, Long> foreign = other.cache(ACCOUNTS);
      try (Transaction tx = store.begin()) {
        assertThrows(IllegalArgumentException.class, () -> tx.get(foreign, "a"));
        assertThrows(NullPointerException.class, () -> tx.put(store.cache(ACCOUNTS), "a", null));
      }
      assertThrows(IllegalArgumentException.class, () -> store.cache(LOG));
      assertThrows(IllegalArgumentException.class, () -> store.inTransaction(0, tx -> null));
    }
    assertThrows(
        IllegalArgumentException.class, () -> TxStore.builder().cache(ACCOUNTS).cache(ACCOUNTS));
    assertThrows(IllegalArgumentException.class, () -> TxStore.builder().build());
  }
}
