package dev.larder.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codecs;
import dev.larder.wal.FsyncPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many blind writers on the fast path at once, each changing the cache after the commit lock
 * (docs/design/transactions.md, "Blind writes on the fast path"): the writes of one key land in
 * sequence order, transactions and checkpoints that start among them see whole commits, and a
 * reopen finds what the cache held.
 */
@Timeout(120)
class ConcurrentBlindWriteTest {

  static final TxCacheSpec<Long, Long> NUMBERS =
      TxCacheSpec.of("numbers", Codecs.longs(), Codecs.longs());

  private static final long COUNTER = 1_000;

  @TempDir Path directory;

  /** These tests are about the put after the commit lock: on every machine, not only on more
   * than two processors (the default's condition). */
  @org.junit.jupiter.api.BeforeAll
  static void putAfterTheLock() {
    System.setProperty(Engine.PUT_AFTER_LOCK_PROPERTY, "true");
  }

  @org.junit.jupiter.api.AfterAll
  static void defaultPlace() {
    System.clearProperty(Engine.PUT_AFTER_LOCK_PROPERTY);
  }

  /**
   * Rounds of 16 writers that put and remove 4 keys at once (many writes of a key in flight
   * together); after each round every key holds the value of its highest commit sequence, in
   * memory, and again after a reopen from the log and the checkpoints taken while writing. Fails
   * when a later write can reach the cache before an earlier one of the same key (with the lane
   * wait removed, the round check catches it).
   */
  @Test
  void theWritesOfAKeyLandInSequenceOrder() throws Exception {
    int writers = 16;
    int keys = 4;
    int rounds = 150;
    Map<Long, long[]> last = new HashMap<>(); // key -> {sequence, value or -1}
    try (TxStore store = TxStore.builder().cache(NUMBERS).persistence(directory)
        .fsync(FsyncPolicy.none()).checkpointEvery(Duration.ZERO).build()) {
      TxCache<Long, Long> numbers = store.cache(NUMBERS);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      List<Map<Long, long[]>> lastByWriter = new ArrayList<>();
      CyclicBarrier roundStart = new CyclicBarrier(writers + 1);
      CyclicBarrier roundEnd = new CyclicBarrier(writers + 1);
      List<Thread> threads = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        Map<Long, long[]> mine = new HashMap<>();
        lastByWriter.add(mine);
        long id = w;
        threads.add(Thread.ofPlatform().start(() -> {
          java.util.Random random = new java.util.Random(id);
          for (int round = 0; round < rounds; round++) {
            try {
              roundStart.await(30, TimeUnit.SECONDS);
              for (long i = 0; i < 25; i++) {
                long key = random.nextInt(keys);
                long value = id * 1_000_000 + round * 100 + i;
                boolean remove = random.nextInt(10) == 0;
                long sequence = store.commitBlind(numbers, key, remove ? null : value);
                long[] seen = mine.get(key);
                if (seen == null || seen[0] < sequence) {
                  mine.put(key, new long[] {sequence, remove ? -1 : value});
                }
              }
            } catch (Throwable t) {
              failure.compareAndSet(null, t);
            }
            try {
              roundEnd.await(30, TimeUnit.SECONDS);
            } catch (Exception e) {
              failure.compareAndSet(null, e);
              return;
            }
          }
        }));
      }
      for (int round = 0; round < rounds; round++) {
        roundStart.await(30, TimeUnit.SECONDS);
        if (round % 10 == 5) {
          store.checkpoint(); // while the round writes
        }
        roundEnd.await(30, TimeUnit.SECONDS);
        if (failure.get() != null) {
          throw new AssertionError("a writer failed", failure.get());
        }
        last.clear();
        for (Map<Long, long[]> mine : lastByWriter) {
          mine.forEach((key, seen) -> last.merge(key, seen, (x, y) -> x[0] > y[0] ? x : y));
        }
        assertFinal(numbers, last, "after round " + round);
      }
      for (Thread t : threads) {
        t.join();
      }
    }
    try (TxStore reopened = TxStore.builder().cache(NUMBERS).persistence(directory)
        .fsync(FsyncPolicy.none()).checkpointEvery(Duration.ZERO).build()) {
      assertFinal(reopened.cache(NUMBERS), last, "after reopening");
    }
  }

  private static void assertFinal(TxCache<Long, Long> numbers, Map<Long, long[]> last,
      String when) {
    assertTrue(last.size() > 0);
    last.forEach((key, seen) -> assertEquals(seen[1] < 0 ? null : seen[1], numbers.get(key),
        "key " + key + " " + when + " (last commit " + seen[0] + ")"));
  }

  /**
   * Four writers, each writing its own pair of keys in turn (a, then b, each with the next
   * number), beside transactions that begin among them and read every pair: each pair is seen
   * equal or with a one ahead, and a read repeats, whichever writes were still on their way to
   * the cache when the transaction began. Some of them also increment a counter that the first
   * writer blind-writes too (a transactional commit of a key whose fast blind write may still be
   * on its way to the cache): the increment conflicts or lands, and no snapshot is left behind.
   */
  @Test
  void transactionsAmongManyFastBlindWritersSeeWholeCommits() throws Exception {
    int pairs = 4;
    try (TxStore store = TxStore.builder().cache(NUMBERS).build()) {
      TxCache<Long, Long> numbers = store.cache(NUMBERS);
      for (long p = 0; p < pairs; p++) {
        numbers.put(2 * p, 0L);
        numbers.put(2 * p + 1, 0L);
      }
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong finished = new AtomicLong();
      List<Thread> writers = new ArrayList<>();
      for (long p = 0; p < pairs; p++) {
        long a = 2 * p;
        writers.add(Thread.ofPlatform().start(() -> {
          for (long i = 1; i <= 10_000 && !stop.get(); i++) {
            numbers.put(a, i);
            numbers.put(a + 1, i);
            if (a == 0) {
              numbers.put(COUNTER, i);
            }
          }
          finished.incrementAndGet();
        }));
      }
      long checked = 0;
      long increments = 0;
      try {
        while (finished.get() < pairs && checked < 100_000) {
          try (Transaction tx = store.begin()) {
            for (long p = 0; p < pairs; p++) {
              long b = tx.get(numbers, 2 * p + 1);
              long a = tx.get(numbers, 2 * p);
              assertEquals(b, tx.get(numbers, 2 * p + 1), "non-repeatable read");
              if (a != b && a != b + 1) {
                throw new AssertionError("pair " + p + ": a=" + a + ", b=" + b + " at snapshot "
                    + tx.snapshot());
              }
            }
            if (checked % 16 == 0) {
              Long counter = tx.get(numbers, COUNTER);
              tx.put(numbers, COUNTER, counter == null ? 1 : counter + 1);
              try {
                tx.commit();
                increments++;
              } catch (TransactionConflictException expected) {
                // a blind write of the counter came after the snapshot
              }
            }
          }
          checked++;
        }
      } finally {
        stop.set(true);
        for (Thread t : writers) {
          t.join();
        }
      }
      assertTrue(checked > 0);
      assertEquals(0, store.stats().activeSnapshots(), "every snapshot released");
    }
  }

  /**
   * A fast blind write held on its way to the cache (its cache write waits in the cache's clock):
   * a transaction that begins meanwhile includes the commit and reads the held write (an overlay),
   * before and after it lands; a checkpoint started meanwhile waits for it and holds it, so a
   * reopen finds it. Fails if a snapshot leaves in-flight writes out.
   */
  @Test
  void aWriteOnItsWayToTheCacheIsSeenByTransactionsAndCheckpoints() throws Exception {
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicReference<Thread> hold = new AtomicReference<>();
    dev.larder.Ticker ticker = () -> {
      if (hold.compareAndSet(Thread.currentThread(), null)) {
        held.countDown();
        try {
          release.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return System.nanoTime();
    };
    AtomicLong checkpointed = new AtomicLong(-1);
    TxCacheSpec<Long, Long> spec = NUMBERS.with(
        b -> b.expireAfterWrite(Duration.ofHours(1)).ticker(ticker)); // a clock read on put
    try (TxStore store = TxStore.builder().cache(spec).persistence(directory)
        .fsync(FsyncPolicy.none()).checkpointEvery(Duration.ZERO).build()) {
      TxCache<Long, Long> numbers = store.cache(spec);
      numbers.put(1L, 10L);
      numbers.put(2L, 20L);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread writer = Thread.ofPlatform().start(() -> {
        hold.set(Thread.currentThread());
        numbers.put(1L, 11L);
      });
      assertTrue(held.await(30, TimeUnit.SECONDS), "the write never reached the cache");
      Thread checkpointer = Thread.ofPlatform().start(() -> {
        try {
          checkpointed.set(store.checkpoint());
        } catch (Throwable t) {
          failure.set(t);
        }
      });
      // The checkpoint has taken its snapshot (and waits for the held write) or is done.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (store.stats().activeSnapshots() == 0 && checkpointer.isAlive()
          && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
      try (Transaction tx = store.begin()) {
        assertEquals(11L, tx.get(numbers, 1L), "the held write is part of the snapshot");
        assertEquals(20L, tx.get(numbers, 2L));
        release.countDown();
        writer.join();
        assertEquals(11L, tx.get(numbers, 1L));
      } finally {
        release.countDown();
      }
      checkpointer.join();
      if (failure.get() != null) {
        throw new AssertionError("checkpoint failed", failure.get());
      }
      assertEquals(3, checkpointed.get(), "the checkpoint includes the held commit");
      try (Transaction tx = store.begin()) {
        assertEquals(11L, tx.get(numbers, 1L));
      }
    }
    try (TxStore reopened = TxStore.builder().cache(NUMBERS).persistence(directory)
        .fsync(FsyncPolicy.none()).checkpointEvery(Duration.ZERO).build()) {
      assertEquals(11L, reopened.cache(NUMBERS).get(1L));
      assertEquals(3, reopened.recovery().orElseThrow().checkpointSequence(),
          "recovered from the checkpoint, which holds the write that was in flight");
    }
  }
}
