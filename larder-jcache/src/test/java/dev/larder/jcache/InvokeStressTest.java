package dev.larder.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.processor.EntryProcessor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Entry processors are atomic per key: concurrent increments through invoke, mixed with
 * replace-based compare-and-set increments, lose no update in either store mode.
 */
class InvokeStressTest {

  private static final int THREADS = 4;
  private static final int ROUNDS = 2_000;
  private static final int KEYS = 8;

  private static final EntryProcessor<Integer, Long, Void> INCREMENT =
      (entry, args) -> {
        entry.setValue(entry.exists() ? entry.getValue() + 1 : 1L);
        return null;
      };

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void noLostUpdatesByValue() throws Exception {
    run(true);
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void noLostUpdatesByReference() throws Exception {
    run(false);
  }

  private void run(boolean storeByValue) throws Exception {
    CacheManager manager =
        Caching.getCachingProvider(LarderCachingProvider.class.getName())
            .getCacheManager(URI.create("stress-" + storeByValue), getClass().getClassLoader());
    try {
      Cache<Integer, Long> cache =
          manager.createCache(
              "counters",
              new MutableConfiguration<Integer, Long>()
                  .setTypes(Integer.class, Long.class)
                  .setStoreByValue(storeByValue));
      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < ROUNDS; i++) {
                    int key = (i + thread) % KEYS;
                    if (i % 2 == 0) {
                      cache.invoke(key, INCREMENT);
                    } else {
                      casIncrement(cache, key);
                    }
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> future : futures) {
        future.get();
      }
      pool.shutdown();
      long total = 0;
      for (int key = 0; key < KEYS; key++) {
        total += cache.get(key);
      }
      assertEquals((long) THREADS * ROUNDS, total);
    } finally {
      manager.close();
    }
  }

  private static void casIncrement(Cache<Integer, Long> cache, int key) {
    while (true) {
      Long current = cache.get(key);
      if (current == null ? cache.putIfAbsent(key, 1L) : cache.replace(key, current, current + 1)) {
        return;
      }
    }
  }
}
