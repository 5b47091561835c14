package dev.larder.jcache;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.Storage;
import java.io.Serializable;
import java.net.URI;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Bytes per entry of store-by-value caches, as the store accounts them: what the JCache layer adds
 * over a plain Larder cache (the expiry varint), and what Java serialization costs against a codec.
 * Prints the figures it checks.
 */
class FootprintTest {

  private static final int ENTRIES = 500_000;

  /** A value type with a derived record codec, also Serializable. */
  public record Person(String name, int age, long id) implements Serializable {}

  private final CacheManager manager =
      Caching.getCachingProvider(LarderCachingProvider.class.getName())
          .getCacheManager(URI.create("footprint-test"), getClass().getClassLoader());

  @AfterEach
  void close() {
    manager.close();
  }

  private static double perEntry(Cache<?, ?> cache) {
    return cache.unwrap(dev.larder.Cache.class).memoryUsed() / (double) ENTRIES;
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void theJCacheLayerAddsAboutOneBytePerEternalEntry() {
    Cache<Long, String> jcache =
        manager.createCache(
            "strings",
            new LarderConfiguration<Long, String>()
                .setStorage(Storage.HEAP)
                .setTypes(Long.class, String.class));
    try (dev.larder.Cache<Long, String> plain =
        dev.larder.Cache.builder(Long.class, String.class)
            .unbounded()
            .storage(Storage.HEAP)
            .build()) {
      for (long i = 0; i < ENTRIES; i++) {
        String value = "value-" + i;
        jcache.put(i, value);
        plain.put(i, value);
      }
      double added = perEntry(jcache) - plain.memoryUsed() / (double) ENTRIES;
      System.out.printf(
          "footprint: JCache %.2f B/entry, plain Larder %.2f B/entry, added %.2f%n",
          perEntry(jcache), plain.memoryUsed() / (double) ENTRIES, added);
      assertTrue(added <= 2.0, "JCache layer adds " + added + " B/entry");
    }
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void aCodecBeatsJavaSerialization() {
    Cache<Long, Person> codec =
        manager.createCache(
            "codec",
            new LarderConfiguration<Long, Person>()
                .setStorage(Storage.HEAP)
                .setTypes(Long.class, Person.class));
    Cache<Long, Object> serialized =
        manager.createCache(
            "serialized",
            new LarderConfiguration<Long, Object>()
                .setStorage(Storage.HEAP)
                .setTypes(Long.class, Object.class));
    for (long i = 0; i < ENTRIES; i++) {
      Person person = new Person("person-" + i, (int) (i % 90), i);
      codec.put(i, person);
      serialized.put(i, person);
    }
    System.out.printf(
        "footprint: record codec %.1f B/entry, Java serialization %.1f B/entry%n",
        perEntry(codec), perEntry(serialized));
    assertTrue(perEntry(codec) * 2 < perEntry(serialized));
  }
}
