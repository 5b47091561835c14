package dev.larder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.testing.Await;
import dev.larder.testing.Workers;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Concurrent misses on one key load once; a slow load blocks nobody else. */
class SingleFlightTest {

  @ParameterizedTest
  @EnumSource(Storage.class)
  @Timeout(30)
  void concurrentMissesRunTheLoaderOnce(Storage storage) throws Exception {
    AtomicInteger calls = new AtomicInteger();
    CountDownLatch release = new CountDownLatch(1);
    try (Cache<String, String> cache =
        Cache.builder(String.class, String.class)
            .storage(storage)
            .maximumEntries(1000)
            .loader(
                key -> {
                  calls.incrementAndGet();
                  release.await();
                  return "value of " + key;
                })
            .build()) {
      ConcurrentLinkedQueue<String> results = new ConcurrentLinkedQueue<>();
      try (Workers callers = Workers.named("caller")) {
        callers.start(16, i -> results.add(cache.get("k")));
        awaitEveryCallerJoinedTheLoad(callers, calls);
        release.countDown();
        callers.join(Duration.ofSeconds(10));
      }
      assertEquals(Collections.nCopies(16, "value of k"), List.copyOf(results));
      assertEquals(1, calls.get());
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  @Timeout(30)
  void allWaitersGetTheLoadersException(Storage storage) throws Exception {
    AtomicInteger calls = new AtomicInteger();
    CountDownLatch release = new CountDownLatch(1);
    IllegalStateException boom = new IllegalStateException("boom");
    try (Cache<String, String> cache =
        Cache.builder(String.class, String.class).storage(storage).maximumEntries(1000).build()) {
      ConcurrentLinkedQueue<Throwable> results = new ConcurrentLinkedQueue<>();
      try (Workers callers = Workers.named("caller")) {
        callers.start(
            8,
            i -> {
              try {
                cache.get(
                    "k",
                    key -> {
                      calls.incrementAndGet();
                      try {
                        release.await();
                      } catch (InterruptedException e) {
                        throw new AssertionError(e);
                      }
                      throw boom;
                    });
                results.add(new AssertionError("returned instead of throwing"));
              } catch (IllegalStateException e) {
                results.add(e);
              }
            });
        awaitEveryCallerJoinedTheLoad(callers, calls);
        release.countDown();
        callers.join(Duration.ofSeconds(10));
      }
      assertEquals(8, results.size());
      for (Throwable thrown : results) {
        assertSame(boom, thrown);
      }
      assertEquals(1, calls.get());
      assertTrue(!cache.containsKey("k"));
    }
  }

  /**
   * Waits until the loader has been called once and every other caller waits on that load: the
   * observable moment at which all of them have joined it. (A caller that arrived only after the
   * release would find the value stored and prove nothing about single flight; a fixed sleep cannot
   * tell the two apart on a loaded machine.)
   */
  private static void awaitEveryCallerJoinedTheLoad(Workers callers, AtomicInteger calls)
      throws InterruptedException {
    int waiters = callers.threads().size() - 1;
    Await.until(
        "the loader called once and "
            + waiters
            + " callers waiting on its load"
            + " (LarderCache.Flight.await)",
        Duration.ofSeconds(10),
        () -> calls.get() == 1 && callers.countWaitingIn("LarderCache$Flight", "await") == waiters);
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  @Timeout(30)
  void aSlowLoadBlocksNoOtherKeyNorItsSegment(Storage storage) throws Exception {
    CountDownLatch loading = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try (Cache<Long, Long> cache =
        Cache.builder(Long.class, Long.class)
            .storage(storage)
            .maximumEntries(100)
            .segments(1)
            .build()) {
      cache.put(2L, 20L);
      Thread slow =
          Thread.ofPlatform()
              .start(
                  () ->
                      cache.get(
                          1L,
                          key -> {
                            loading.countDown();
                            try {
                              release.await();
                            } catch (InterruptedException e) {
                              throw new AssertionError(e);
                            }
                            return 10L;
                          }));
      assertTrue(loading.await(10, TimeUnit.SECONDS));
      // One segment: the same stripe as the loading key, yet reads and writes go through.
      for (long i = 0; i < 1000; i++) {
        assertEquals(20L, cache.getIfPresent(2L));
        cache.put(3L, i);
        assertEquals(i, cache.getIfPresent(3L));
        assertEquals(7L, cache.get(4L + i % 3, k -> 7L));
      }
      release.countDown();
      slow.join(10_000);
      assertEquals(10L, cache.getIfPresent(1L));
    }
  }

  /** What a write during a load does to the cache, and what the loading caller gets. */
  enum WriteDuringLoad {
    INVALIDATE(null, "loaded"),
    INVALIDATE_ALL(null, "loaded"),
    REMOVE(null, "loaded"),
    COMPUTE_TO_NULL(null, "loaded"),
    PUT("written", "written"),
    PUT_IF_ABSENT("written", "written");

    final String cached;
    final String returned;

    WriteDuringLoad(String cached, String returned) {
      this.cached = cached;
      this.returned = returned;
    }

    void apply(Cache<String, String> cache) {
      switch (this) {
        case INVALIDATE -> cache.invalidate("k");
        case INVALIDATE_ALL -> cache.invalidateAll();
        case REMOVE -> cache.remove("k");
        case COMPUTE_TO_NULL -> cache.compute("k", (k, v) -> null);
        case PUT -> cache.put("k", "written");
        case PUT_IF_ABSENT -> cache.putIfAbsent("k", "written");
      }
    }
  }

  /**
   * The read-through race: the loader reads the data, the data changes and the key is invalidated,
   * then the load finishes. The load must not store what it read before the change, and the write
   * must not wait for the load.
   */
  @ParameterizedTest
  @EnumSource(WriteDuringLoad.class)
  @Timeout(30)
  void aWriteDuringALoadWinsAndDoesNotWait(WriteDuringLoad write) throws Exception {
    CountDownLatch loading = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try (Cache<String, String> cache =
        Cache.builder(String.class, String.class).maximumEntries(100).build()) {
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try {
        Future<String> load =
            pool.submit(
                () ->
                    cache.get(
                        "k",
                        k -> {
                          loading.countDown();
                          awaitUninterruptibly(release);
                          return "loaded";
                        }));
        assertTrue(loading.await(10, TimeUnit.SECONDS));
        pool.submit(() -> write.apply(cache)).get(10, TimeUnit.SECONDS);
        release.countDown();
        assertEquals(write.returned, load.get(10, TimeUnit.SECONDS));
        assertEquals(write.cached, cache.getIfPresent("k"));
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  @Timeout(30)
  void aLoadThatBeginsAfterAWriteStoresItsValue(Storage storage) {
    try (Cache<String, String> cache =
        Cache.builder(String.class, String.class).storage(storage).maximumEntries(100).build()) {
      cache.invalidate("k");
      assertEquals("loaded", cache.get("k", k -> "loaded"));
      assertEquals("loaded", cache.getIfPresent("k"));
    }
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
