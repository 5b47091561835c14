package dev.larder.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.larder.codec.Codecs;
import dev.larder.testing.Workers;
import dev.larder.tx.internal.BlindWrite;
import dev.larder.tx.internal.KeyRef;
import dev.larder.tx.internal.SnapshotRegistry;
import dev.larder.wal.FsyncPolicy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
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

  /**
   * The fast path's hand-over: a snapshot taken while a blind write is announced and not yet
   * published includes that commit, with the write as the overlay for its key; once the commit is
   * published the announcement is not used. Registration counts what release uncounts.
   */
  @Test
  void aSnapshotTakenDuringAFastBlindWriteIncludesItAsAnOverlay() {
    SnapshotRegistry registry = new SnapshotRegistry();
    AtomicLong visible = new AtomicLong(7);
    BlindWrite inFlight = new BlindWrite(8, new KeyRef(0, new byte[] {1}), new byte[] {8, 42});
    SnapshotRegistry.Snapshot during = registry.register(visible, () -> inFlight);
    assertEquals(8, during.sequence());
    assertSame(inFlight, during.overlay());
    assertEquals(1, registry.registered());
    assertEquals(7, registry.horizon(visible), "the horizon never passes the visible sequence");
    visible.set(8);
    SnapshotRegistry.Snapshot after = registry.register(visible, () -> inFlight);
    assertEquals(8, after.sequence());
    assertNull(after.overlay());
    SnapshotRegistry.Snapshot none = registry.register(visible, () -> null);
    assertEquals(8, none.sequence());
    assertNull(none.overlay());
    registry.release(8);
    registry.release(8);
    registry.release(8);
    registry.release(8); // not registered any more: ignored
    assertEquals(0, registry.registered());
  }

  /**
   * Transactions that begin while blind writes take the fast path see each write whole, and
   * conflict with the ones after their snapshot: a reader of two keys written in turn by one blind
   * writer (a, then b, each with the next number) sees a equal to b or one ahead of it, and an
   * increment of a conflicts or lands.
   */
  @Test
  void transactionsBegunBesideFastBlindWritesSeeConsistentStates() throws Exception {
    try (TxStore store = TxStore.builder().cache(ACCOUNTS).build()) {
      TxCache<String, Long> accounts = store.cache(ACCOUNTS);
      accounts.put("a", 0L);
      accounts.put("b", 0L);
      java.util.concurrent.atomic.AtomicBoolean stop =
          new java.util.concurrent.atomic.AtomicBoolean();
      long checked = 0;
      try (Workers writer = Workers.named("blind-writer")) {
        writer.start(
            () -> {
              try {
                for (long i = 1; i <= 20_000 && !stop.get(); i++) {
                  accounts.put("a", i);
                  accounts.put("b", i);
                }
              } finally {
                stop.set(true);
              }
            });
        try {
          while (!stop.get() && checked < 200_000) {
            try (Transaction tx = store.begin()) {
              long b = tx.get(accounts, "b");
              long a = tx.get(accounts, "a");
              long again = tx.get(accounts, "b");
              assertEquals(b, again, "non-repeatable read");
              if (a != b && a != b + 1) {
                throw new AssertionError("saw a=" + a + ", b=" + b + " at " + tx.snapshot());
              }
            }
            checked++;
          }
        } finally {
          stop.set(true);
        }
        writer.join(java.time.Duration.ofSeconds(30));
      }
      assertEquals(accounts.get("a"), accounts.get("b"));
    }
  }

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
    TxCacheSpec<String, byte[]> small =
        TxCacheSpec.of("small", Codecs.strings(), Codecs.bytes())
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
      try (TxStore store =
          TxStore.builder().cache(ACCOUNTS).persistence(dir).fsync(policy).build()) {
        TxCache<String, Long> accounts = store.cache(ACCOUNTS);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
          int id = t;
          threads.add(
              Thread.ofPlatform()
                  .start(
                      () -> {
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
      try (TxStore store =
          TxStore.builder().cache(ACCOUNTS).persistence(dir).fsync(policy).build()) {
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
