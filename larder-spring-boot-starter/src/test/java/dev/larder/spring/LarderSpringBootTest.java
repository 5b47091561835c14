package dev.larder.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.Cache;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.cache.CacheManager;
import org.springframework.context.ConfigurableApplicationContext;

/** A Boot application with the starter: @Cacheable on Larder, meters, settings, errors. */
class LarderSpringBootTest {

  private static final String[] BOOKS = {
    "larder.caches.books.maximum-memory=8MB",
    "larder.caches.books.key-type=java.lang.Long",
    "larder.caches.books.value-type=dev.larder.spring.Book",
    "larder.caches.books.storage=heap",
    "larder.caches.books.expire-after-write=10m"
  };

  private static ConfigurableApplicationContext start(String... properties) {
    return Apps.start(properties);
  }

  @Test
  void cacheableIsServedByLarderAndNullsAreCached() {
    try (ConfigurableApplicationContext context = start(BOOKS)) {
      BookService service = context.getBean(BookService.class);
      assertEquals(new Book(1, "title 1"), service.find(1));
      assertEquals(new Book(1, "title 1"), service.find(1));
      assertNull(service.find(0));
      assertNull(service.find(0));
      assertEquals(2, service.lookups());

      CacheManager manager = context.getBean(CacheManager.class);
      assertInstanceOf(LarderCacheManager.class, manager);
      Cache<?, ?> books = (Cache<?, ?>) manager.getCache("books").getNativeCache();
      assertEquals(2, books.estimatedSize());
      assertEquals(8L << 20, books.maximumMemory().getAsLong());
      assertEquals(2, books.stats().hitCount());
    }
  }

  @Test
  void declaredCachesHaveMetersFromStartUp() {
    try (ConfigurableApplicationContext context = start(BOOKS)) {
      MeterRegistry registry = context.getBean(MeterRegistry.class);
      // Bound before any use: the cache exists from start-up.
      assertEquals(
          0,
          registry
              .get("cache.gets")
              .tags("cache", "books", "result", "hit")
              .functionCounter()
              .count());
      BookService service = context.getBean(BookService.class);
      service.find(7);
      service.find(7);
      service.find(7);
      assertEquals(
          2,
          registry
              .get("cache.gets")
              .tags("cache", "books", "result", "hit")
              .functionCounter()
              .count());
      assertEquals(1, registry.get("cache.size").tags("cache", "books").gauge().value());
      assertTrue(
          registry.get("larder.cache.memory.used").tags("cache", "books").gauge().value() > 0);
    }
  }

  @Test
  void anyNumberOfContextsDeclareTheSameCaches() {
    List<ConfigurableApplicationContext> contexts = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        contexts.add(start(BOOKS));
      }
      for (ConfigurableApplicationContext context : contexts) {
        BookService service = context.getBean(BookService.class);
        service.find(3);
        service.find(3);
        assertEquals(1, service.lookups());
      }
    } finally {
      contexts.forEach(ConfigurableApplicationContext::close);
    }
  }

  @Test
  void aBadValueFailsTheStartNamingTheProperty() {
    Exception e =
        assertThrows(Exception.class, () -> start("larder.caches.books.maximum-memory=3x"));
    assertTrue(chain(e).contains("larder.caches.books.maximum-memory"), chain(e));
  }

  /**
   * Books are records of immutable components, so a bounded cache of them has Larder's hot tier by
   * default: a key read often returns one shared instance; {@code hot-tier=0} turns it off.
   */
  @Test
  void hotBooksAreOneSharedInstanceUnlessTheHotTierIsOff() {
    try (ConfigurableApplicationContext context = start(BOOKS)) {
      org.springframework.cache.Cache books = context.getBean(CacheManager.class).getCache("books");
      books.put(1L, new Book(1, "title 1"));
      assertTrue(sharedAfterReads(books, 1L), "never the same instance twice");
    }
    List<String> off = new ArrayList<>(List.of(BOOKS));
    off.add("larder.caches.books.hot-tier=0");
    try (ConfigurableApplicationContext context = start(off.toArray(String[]::new))) {
      org.springframework.cache.Cache books = context.getBean(CacheManager.class).getCache("books");
      books.put(1L, new Book(1, "title 1"));
      assertFalse(sharedAfterReads(books, 1L), "the same instance with hot-tier=0");
      assertEquals(new Book(1, "title 1"), books.get(1L).get());
    }
  }

  /** Returns whether two reads running returned one instance, within 100 reads. */
  @SuppressWarnings("ReferenceEquality") // one instance twice running means the hot tier served it
  private static boolean sharedAfterReads(org.springframework.cache.Cache cache, Object key) {
    Object last = cache.get(key).get();
    for (int i = 0; i < 100; i++) {
      Object next = cache.get(key).get();
      if (next == last) {
        return true;
      }
      last = next;
    }
    return false;
  }

  @Test
  void aCacheWithoutAValueTypeFailsTheStartSayingWhatToSet() {
    Exception e =
        assertThrows(Exception.class, () -> start("larder.caches.books.maximum-memory=8MB"));
    assertTrue(chain(e).contains("larder.caches.books.value-type"), chain(e));
  }

  @Test
  void anUnknownClassIsNamed() {
    Exception e =
        assertThrows(
            Exception.class,
            () ->
                start(
                    "larder.caches.books.key-type=java.lang.Long",
                    "larder.caches.books.value-type=demo.Nope"));
    assertTrue(
        chain(e).contains("larder.caches.books.value-type=demo.Nope: no such class"), chain(e));
  }

  @Test
  void wrongKeyAndValueTypesNameTheCache() {
    try (ConfigurableApplicationContext context = start(BOOKS)) {
      org.springframework.cache.Cache books = context.getBean(CacheManager.class).getCache("books");
      IllegalArgumentException key =
          assertThrows(IllegalArgumentException.class, () -> books.get("one"));
      assertTrue(
          key.getMessage().contains("cache 'books'")
              && key.getMessage().contains("java.lang.String"),
          key.getMessage());
      IllegalArgumentException value =
          assertThrows(IllegalArgumentException.class, () -> books.put(1L, "not a book"));
      assertTrue(
          value.getMessage().contains("cache 'books'")
              && value.getMessage().contains("dev.larder.spring.Book"),
          value.getMessage());
    }
  }

  @Test
  void undeclaredCachesComeFromDefaultsOrAreUnknown() {
    try (ConfigurableApplicationContext context =
        start(
            "larder.defaults.key-type=java.lang.String",
            "larder.defaults.value-type=java.lang.Integer",
            "larder.defaults.maximum-entries=100")) {
      BookService service = context.getBean(BookService.class);
      assertEquals(4, service.isbnLength("abcd"));
      assertEquals(4, service.isbnLength("abcd"));
      assertEquals(1, service.lookups());
    }
    try (ConfigurableApplicationContext context = start(BOOKS)) {
      assertNull(context.getBean(CacheManager.class).getCache("isbns"));
    }
  }

  @Test
  void javaSerializationIsAnOptIn() {
    try (ConfigurableApplicationContext context =
        start(
            "larder.caches.books.key-type=java.lang.String",
            "larder.caches.books.serialization=java")) {
      org.springframework.cache.Cache books = context.getBean(CacheManager.class).getCache("books");
      books.put("k", new ArrayList<>(List.of(1, 2)));
      assertEquals(List.of(1, 2), books.get("k", List.class));
      // Book is a record but not Serializable: refused, naming the cache and the class.
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> books.put("b", new Book(3, "t")));
      assertTrue(
          e.getMessage().contains("cache 'books'")
              && e.getMessage().contains("dev.larder.spring.Book"),
          e.getMessage());
    }
  }

  private static String chain(Throwable e) {
    return Apps.chain(e);
  }
}
