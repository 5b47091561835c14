package dev.larder.jcache.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.jcache.LarderCachingProvider;
import java.io.Serializable;
import java.net.URI;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.integration.CacheLoader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The read-through race: the loader reads the data behind the cache, the data changes and the key
 * is removed, then the load finishes. A write to the key during the load wins, without waiting for
 * it: the load returns what it read to its caller but does not store it.
 */
class WriteDuringLoadTest {

  /** The data behind the cache for key 1, which the loader reads. */
  static final AtomicReference<String> DATA = new AtomicReference<>();

  static final AtomicReference<CountDownLatch> LOADING = new AtomicReference<>();
  static final AtomicReference<CountDownLatch> RELEASE = new AtomicReference<>();

  /** Reads DATA, then waits for RELEASE before returning what it read (each key, for loadAll). */
  static final class GatedLoader implements CacheLoader<Integer, String>, Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public String load(Integer key) {
      String read = DATA.get();
      LOADING.get().countDown();
      try {
        RELEASE.get().await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return read;
    }

    @Override
    public Map<Integer, String> loadAll(Iterable<? extends Integer> keys) {
      Map<Integer, String> values = new java.util.HashMap<>();
      keys.forEach(key -> values.put(key, load(key)));
      return values;
    }
  }

  // its functions are stateless lambdas
  @SuppressWarnings("ImmutableEnumChecker")
  enum Write {
    REMOVE(null, c -> c.remove(1)),
    GET_AND_REMOVE(null, c -> c.getAndRemove(1)),
    REMOVE_ALL_OF_KEYS(null, c -> c.removeAll(Set.of(1))),
    REMOVE_ALL(null, Cache::removeAll),
    CLEAR(null, Cache::clear),
    INVOKE_REMOVE(
        null,
        c ->
            c.invoke(
                1,
                (entry, args) -> {
                  entry.remove();
                  return null;
                })),
    PUT("written", c -> c.put(1, "written"));

    final String cached;
    final Consumer<Cache<Integer, String>> apply;

    Write(String cached, Consumer<Cache<Integer, String>> apply) {
      this.cached = cached;
      this.apply = apply;
    }
  }

  private final CacheManager manager =
      Caching.getCachingProvider(LarderCachingProvider.class.getName())
          .getCacheManager(URI.create("write-during-load"), getClass().getClassLoader());

  @AfterEach
  void close() {
    RELEASE.get().countDown();
    manager.close();
  }

  @ParameterizedTest
  @EnumSource(Write.class)
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aWriteDuringALoadWins(Write write) throws Exception {
    DATA.set("old");
    LOADING.set(new CountDownLatch(1));
    RELEASE.set(new CountDownLatch(1));
    Cache<Integer, String> cache =
        manager.createCache(
            "c-" + write,
            new MutableConfiguration<Integer, String>()
                .setTypes(Integer.class, String.class)
                .setReadThrough(true)
                .setCacheLoaderFactory(FactoryBuilder.factoryOf(new GatedLoader())));
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<String> load = pool.submit(() -> cache.get(1));
      assertTrue(LOADING.get().await(10, TimeUnit.SECONDS));
      DATA.set("new");
      pool.submit(() -> write.apply.accept(cache)).get(10, TimeUnit.SECONDS);
      RELEASE.get().countDown();
      load.get(10, TimeUnit.SECONDS);
      if (write.cached == null) {
        assertEquals(false, cache.containsKey(1), "the load stored what it read before the write");
      } else {
        assertEquals(write.cached, cache.get(1));
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
