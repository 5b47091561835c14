package dev.larder.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codecs;
import dev.larder.wal.WalConfig;
import dev.larder.wal.testing.SimulatedDisk;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Transfers between accounts and inserts of unique ids, committed under {@code always} by
 * concurrent threads (with checkpoints running) on a simulated disk whose power is cut at a random
 * moment; then the store is rebuilt on what the disk kept. Every acknowledged commit must be there,
 * no commit may be there in part (the account total is unchanged and every transfer's id comes with
 * its money), over hundreds of cuts.
 */
@Timeout(300)
class TxPowerCutTest {

  static final TxCacheSpec<Integer, Long> ACCOUNTS =
      TxCacheSpec.of("accounts", Codecs.integers(), Codecs.longs());
  static final TxCacheSpec<Long, Long> IDS = TxCacheSpec.of("ids", Codecs.longs(), Codecs.longs());
  private static final int ACCOUNT_COUNT = 8;
  private static final long INITIAL = 1_000;

  @Test
  void noAcknowledgedCommitIsLostAndNoneIsHalfApplied() throws Exception {
    Random random = new Random(22);
    long acknowledgedTotal = 0;
    int cuts = 150;
    for (int cut = 0; cut < cuts; cut++) {
      SimulatedDisk disk = new SimulatedDisk();
      WalConfig wal = WalConfig.of(Path.of("/sim")).withFiles(disk).withSegmentBytes(4096);
      Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
      TxStore store = open(wal);
      TxCache<Integer, Long> accounts = store.cache(ACCOUNTS);
      store.inTransaction(
          tx -> {
            for (int a = 0; a < ACCOUNT_COUNT; a++) {
              tx.put(accounts, a, INITIAL);
            }
            return null;
          });
      AtomicLong ids = new AtomicLong();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        threads.add(Thread.ofPlatform().start(() -> work(store, ids, acknowledged)));
      }
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      while (true) {
                        store.checkpoint();
                        Thread.sleep(1);
                      }
                    } catch (RuntimeException | InterruptedException dead) {
                      // the power went
                    }
                  }));
      long deadline = System.nanoTime() + 200_000 + random.nextInt(4_000_000);
      while (System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      disk.powerCut(random);
      for (Thread t : threads) {
        t.join(10_000);
      }
      closeDead(store);
      try (TxStore reopened = open(wal)) {
        verify(reopened, acknowledged, "cut " + cut);
        acknowledgedTotal += acknowledged.size();
      }
    }
    assertTrue(acknowledgedTotal > cuts, "too few commits to mean anything: " + acknowledgedTotal);
  }

  static TxStore open(WalConfig wal) {
    return TxStore.builder()
        .cache(ACCOUNTS)
        .cache(IDS)
        .persistence(wal)
        .checkpointEvery(Duration.ZERO)
        .build();
  }

  /** Transfers (recording the id with the amount) and plain unique inserts, until it fails. */
  static void work(TxStore store, AtomicLong ids, Set<Long> acknowledged) {
    TxCache<Integer, Long> accounts = store.cache(ACCOUNTS);
    TxCache<Long, Long> idCache = store.cache(IDS);
    ThreadLocalRandom random = ThreadLocalRandom.current();
    try {
      while (true) {
        long id = ids.incrementAndGet();
        if (random.nextInt(4) == 0) {
          idCache.put(id, 0L);
        } else {
          int from = random.nextInt(ACCOUNT_COUNT);
          int to = (from + 1 + random.nextInt(ACCOUNT_COUNT - 1)) % ACCOUNT_COUNT;
          long amount = 1L + random.nextInt(50);
          store.inTransaction(
              1_000,
              tx -> {
                tx.put(accounts, from, tx.get(accounts, from) - amount);
                tx.put(accounts, to, tx.get(accounts, to) + amount);
                tx.put(idCache, id, amount);
                return null;
              });
        }
        acknowledged.add(id);
      }
    } catch (RuntimeException dead) {
      // the power went: this process is gone
    }
  }

  static void verify(TxStore store, Set<Long> acknowledged, String where) {
    TxCache<Integer, Long> accounts = store.cache(ACCOUNTS);
    TxCache<Long, Long> idCache = store.cache(IDS);
    long total = 0;
    for (int a = 0; a < ACCOUNT_COUNT; a++) {
      Long balance = accounts.get(a);
      assertTrue(balance != null, where + ": account " + a + " of the first commit lost");
      total += balance;
    }
    assertEquals(ACCOUNT_COUNT * INITIAL, total, where + ": a transfer was half applied");
    for (long id : acknowledged) {
      assertTrue(idCache.get(id) != null, where + ": acknowledged commit " + id + " lost");
    }
  }

  static void closeDead(TxStore store) {
    try {
      store.close();
    } catch (RuntimeException expected) {
      // its disk is gone; closing only releases memory
    }
  }
}
