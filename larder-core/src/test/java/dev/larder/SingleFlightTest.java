package dev.larder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
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
    try (Cache<String, String> cache = Cache.builder(String.class, String.class)
        .storage(storage).maximumEntries(1000).loader(key -> {
          calls.incrementAndGet();
          release.await();
          return "value of " + key;
        }).build()) {
      ExecutorService pool = Executors.newFixedThreadPool(16);
      List<Future<String>> results = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        results.add(pool.submit(() -> cache.get("k")));
      }
      Thread.sleep(100);
      release.countDown();
      for (Future<String> f : results) {
        assertEquals("value of k", f.get(10, TimeUnit.SECONDS));
      }
      assertEquals(1, calls.get());
      pool.shutdownNow();
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  @Timeout(30)
  void allWaitersGetTheLoadersException(Storage storage) throws Exception {
    AtomicInteger calls = new AtomicInteger();
    CountDownLatch release = new CountDownLatch(1);
    IllegalStateException boom = new IllegalStateException("boom");
    try (Cache<String, String> cache = Cache.builder(String.class, String.class)
        .storage(storage).maximumEntries(1000).build()) {
      ExecutorService pool = Executors.newFixedThreadPool(8);
      List<Future<Throwable>> results = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        results.add(pool.submit(() -> {
          try {
            cache.get("k", key -> {
              calls.incrementAndGet();
              try {
                release.await();
              } catch (InterruptedException e) {
                throw new AssertionError(e);
              }
              throw boom;
            });
            return null;
          } catch (IllegalStateException e) {
            return e;
          }
        }));
      }
      Thread.sleep(100);
      release.countDown();
      for (Future<Throwable> f : results) {
        assertSame(boom, f.get(10, TimeUnit.SECONDS));
      }
      assertEquals(1, calls.get());
      assertTrue(!cache.containsKey("k"));
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  @Timeout(30)
  void aSlowLoadBlocksNoOtherKeyNorItsSegment(Storage storage) throws Exception {
    CountDownLatch loading = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try (Cache<Long, Long> cache = Cache.builder(Long.class, Long.class).storage(storage)
        .maximumEntries(100).segments(1).build()) {
      cache.put(2L, 20L);
      Thread slow = Thread.ofPlatform().start(() -> cache.get(1L, key -> {
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
}
