package dev.larder.jcache.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.jcache.LarderCachingProvider;
import java.io.Serializable;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.integration.CacheLoader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Read-through misses load outside the key locks: a slow load blocks only the callers of its own
 * key, even a key on the same lock stripe, and concurrent misses of one key load it once.
 */
class ReadThroughConcurrencyTest {

  private static final int SLOW_KEY = 7;
  static final CountDownLatch RELEASE = new CountDownLatch(1);
  static final CountDownLatch SLOW_STARTED = new CountDownLatch(1);
  static final AtomicInteger SLOW_LOADS = new AtomicInteger();

  /** Loads "v<key>"; the load of SLOW_KEY waits for RELEASE. */
  static final class GatedLoader implements CacheLoader<Integer, String>, Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public String load(Integer key) {
      if (key == SLOW_KEY) {
        SLOW_LOADS.incrementAndGet();
        SLOW_STARTED.countDown();
        try {
          RELEASE.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return "v" + key;
    }

    @Override
    public java.util.Map<Integer, String> loadAll(Iterable<? extends Integer> keys) {
      java.util.Map<Integer, String> values = new java.util.HashMap<>();
      keys.forEach(k -> values.put(k, load(k)));
      return values;
    }
  }

  private final CacheManager manager =
      Caching.getCachingProvider(LarderCachingProvider.class.getName())
          .getCacheManager(URI.create("read-through-test"), getClass().getClassLoader());

  @AfterEach
  void close() {
    RELEASE.countDown();
    manager.close();
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aSlowLoadBlocksOnlyItsOwnKey() throws Exception {
    Cache<Integer, String> cache =
        manager.createCache(
            "rt",
            new MutableConfiguration<Integer, String>()
                .setTypes(Integer.class, String.class)
                .setReadThrough(true)
                .setCacheLoaderFactory(FactoryBuilder.factoryOf(new GatedLoader())));
    int sameStripe = keyOnTheSameStripeAs(SLOW_KEY);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<String>> slow = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        slow.add(pool.submit(() -> cache.get(SLOW_KEY)));
      }
      SLOW_STARTED.await();
      // While the slow load runs: a miss on a key of the same stripe loads and returns.
      assertEquals("v" + sameStripe, cache.get(sameStripe));
      cache.put(sameStripe, "written");
      assertEquals("written", cache.get(sameStripe));
      RELEASE.countDown();
      for (Future<String> result : slow) {
        assertEquals("v" + SLOW_KEY, result.get());
      }
      assertEquals(1, SLOW_LOADS.get(), "concurrent misses of one key load it once");
    } finally {
      pool.shutdownNow();
    }
  }

  @SuppressWarnings("ReferenceEquality") // one lock object is one stripe
  private static int keyOnTheSameStripeAs(int key) {
    KeyLocks locks = new KeyLocks();
    for (int candidate = key + 1; ; candidate++) {
      if (locks.lockFor(candidate) == locks.lockFor(key)) {
        return candidate;
      }
    }
  }
}
