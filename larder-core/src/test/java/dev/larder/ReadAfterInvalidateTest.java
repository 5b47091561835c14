package dev.larder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A caller that arrives after an invalidation has returned starts or joins a load that began after
 * it: it never shares the result of a load that read the data before the change the invalidation
 * was made for. The "database" is a version counter per key; a write raises the version, then
 * invalidates.
 */
class ReadAfterInvalidateTest {

  /** The writes that remove a key; each must keep later callers off the loads it superseded. */
  enum Removal {
    INVALIDATE,
    INVALIDATE_ALL,
    INVALIDATE_KEYS,
    REMOVE,
    COMPUTE_TO_NULL,
    MAP_REMOVE;

    void apply(Cache<Long, Long> cache, long key) {
      switch (this) {
        case INVALIDATE -> cache.invalidate(key);
        case INVALIDATE_ALL -> cache.invalidateAll();
        case INVALIDATE_KEYS -> cache.invalidateAll(List.of(key));
        case REMOVE -> cache.remove(key);
        case COMPUTE_TO_NULL -> cache.compute(key, (k, v) -> null);
        case MAP_REMOVE -> cache.asMap().remove(key);
      }
    }
  }

  /**
   * A slow load reads version 1; the version becomes 2 and the key is removed; the same thread then
   * reads through the cache and must get version 2, not wait for the old load and share its version
   * 1.
   */
  @ParameterizedTest
  @EnumSource(Removal.class)
  @Timeout(30)
  void aReadAfterAnInvalidationNeverJoinsTheLoadItSuperseded(Removal removal) throws Exception {
    for (Storage storage : Storage.values()) {
      for (double tier : HOT_TIER_SHARES) {
        readAfterInvalidation(removal, storage, tier);
      }
    }
  }

  /** Without the hot tier, and with one that holds half the bound (every key read, here). */
  private static final double[] HOT_TIER_SHARES = {0, 0.5};

  private static void readAfterInvalidation(Removal removal, Storage storage, double tier)
      throws Exception {
    AtomicLong database = new AtomicLong(1);
    CountDownLatch oldLoadRead = new CountDownLatch(1);
    CountDownLatch releaseOldLoad = new CountDownLatch(1);
    try (Cache<Long, Long> cache =
        Cache.builder(Long.class, Long.class)
            .storage(storage)
            .maximumEntries(100)
            .hotTierShare(tier)
            .build()) {
      // the key read often first, so that its count in the sketch takes the loaded values
      // into the tier (with the tier on) as soon as they are read
      cache.put(7L, 0L);
      for (int i = 0; i < 5; i++) {
        cache.getIfPresent(7L);
      }
      cache.invalidate(7L);
      Thread oldLoad =
          Thread.ofPlatform()
              .start(
                  () ->
                      cache.get(
                          7L,
                          k -> {
                            long version = database.get();
                            oldLoadRead.countDown();
                            await(releaseOldLoad);
                            return version;
                          }));
      assertTrue(oldLoadRead.await(10, TimeUnit.SECONDS));
      AtomicReference<Long> readAfter = new AtomicReference<>();
      Thread writer =
          Thread.ofPlatform()
              .start(
                  () -> {
                    database.set(2);
                    removal.apply(cache, 7L);
                    readAfter.set(cache.get(7L, k -> database.get()));
                  });
      // Without the fix the writer's read waits on the old load: let that load finish then,
      // so the test fails on the stale version instead of hanging.
      waitUntilDoneOrBlocked(writer);
      releaseOldLoad.countDown();
      writer.join(10_000);
      oldLoad.join(10_000);
      assertEquals(2L, readAfter.get(), storage + ", tier " + tier + ": read after " + removal);
      assertEquals(
          2L, cache.getIfPresent(7L), storage + ", tier " + tier + ": stored after " + removal);
    }
  }

  /**
   * Writers raise a key's version and remove it, then read it back; readers read through the cache
   * all along with a loader that takes its time. No read after a removal may return a version older
   * than the one that removal was made for.
   */
  @ParameterizedTest
  @CsvSource({"OFF_HEAP, 0", "OFF_HEAP, 0.5", "HEAP, 0", "HEAP, 0.5"})
  @Timeout(90)
  void noStaleReadsUnderConcurrentInvalidation(Storage storage, double tier) throws Exception {
    int keys = 4;
    AtomicLongArray database = new AtomicLongArray(keys);
    AtomicLong stale = new AtomicLong();
    AtomicLong checked = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Removal[] removals = Removal.values();
    try (Cache<Long, Long> cache =
        Cache.builder(Long.class, Long.class)
            .storage(storage)
            .maximumEntries(1000)
            .hotTierShare(tier)
            .build()) {
      // At least 4 s and 20,000 checked reads, whichever comes later, but at most 40 s: a
      // loaded machine makes fewer reads per second, not a weaker test. The race this found
      // last (a write that saw no load in flight because it asked ConcurrentHashMap.isEmpty,
      // a sum of striped counters) showed about once in 5 million reads: 34 stale reads in
      // 60 s off heap, 68 on heap, on an idle 2-core machine.
      long start = System.nanoTime();
      long least = start + TimeUnit.SECONDS.toNanos(4);
      long most = start + TimeUnit.SECONDS.toNanos(40);
      Thread[] threads = new Thread[6];
      for (int t = 0; t < threads.length; t++) {
        boolean writer = t % 2 == 0;
        threads[t] =
            Thread.ofPlatform()
                .start(
                    () -> {
                      try {
                        ThreadLocalRandom random = ThreadLocalRandom.current();
                        for (long now = System.nanoTime();
                            now < most && (now < least || checked.get() < 20_000);
                            now = System.nanoTime()) {
                          int key = random.nextInt(keys);
                          long expected = 0;
                          if (writer) {
                            expected = database.incrementAndGet(key);
                            removals[random.nextInt(removals.length)].apply(cache, key);
                          }
                          Long read = cache.get((long) key, k -> slowRead(database, key));
                          checked.incrementAndGet();
                          if (read < expected) {
                            stale.incrementAndGet();
                          }
                        }
                      } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                      }
                    });
      }
      for (Thread thread : threads) {
        thread.join(60_000);
      }
    }
    if (failure.get() != null) {
      throw new AssertionError(failure.get());
    }
    assertTrue(checked.get() > 1000, "too few reads to tell in 40 s: " + checked.get());
    assertEquals(0, stale.get(), "stale reads out of " + checked.get());
  }

  // The yield lets the invalidating thread run between the database read and the cache's fill,
  // which
  // is the window this test needs on a machine with two cores.
  @SuppressWarnings("ThreadPriorityCheck")
  private static long slowRead(AtomicLongArray database, int key) {
    long version = database.get(key);
    for (int i = 0; i < 200; i++) {
      Thread.onSpinWait();
    }
    Thread.yield();
    return version;
  }

  private static void waitUntilDoneOrBlocked(Thread thread) throws InterruptedException {
    Set<Thread.State> blocked =
        Set.of(Thread.State.WAITING, Thread.State.TIMED_WAITING, Thread.State.TERMINATED);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!blocked.contains(thread.getState()) && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
