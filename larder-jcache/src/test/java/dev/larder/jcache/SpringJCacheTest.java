package dev.larder.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import javax.cache.CacheException;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.cache.jcache.JCacheCacheManager;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ClassPathResource;

/**
 * Spring's cache abstraction over Larder, wired as Spring Boot wires JCache: the configuration file
 * is a Spring resource whose URI (a file: or jar: URI) addresses the cache manager, and the caches
 * it declares are found by name on first use.
 */
class SpringJCacheTest {

  /** A service whose results Spring caches in the Larder cache "sessions". */
  public static class Greeter {
    private int calls;

    @Cacheable("sessions")
    public String greet(String name) {
      calls++;
      return "hello " + name;
    }

    public int calls() {
      return calls;
    }
  }

  @Configuration
  @EnableCaching
  static class AppConfig {

    @Bean
    CacheManager cacheManager() throws Exception {
      URI config = new ClassPathResource("larder-test.properties").getURI();
      return new JCacheCacheManager(
          Caching.getCachingProvider(LarderCachingProvider.class.getName())
              .getCacheManager(config, getClass().getClassLoader()));
    }

    @Bean
    Greeter greeter() {
      return new Greeter();
    }
  }

  /** A cached value type: the file declares it as the value type of "books". */
  public record Book(long id, String title) {}

  /** A service whose results Spring caches in the typed Larder cache "books". */
  public static class Library {
    private int calls;

    @Cacheable("books")
    public Book find(Long id) {
      calls++;
      return id == 404L ? null : new Book(id, "title " + id);
    }

    /** The remedy the README gives for null results in a typed cache. */
    @Cacheable(cacheNames = "books", unless = "#result == null")
    public Book findOrNull(Long id) {
      calls++;
      return id == 404L ? null : new Book(id, "title " + id);
    }

    @Cacheable("books")
    public Book byTitle(String title) {
      calls++;
      return new Book(1, title);
    }

    public int calls() {
      return calls;
    }
  }

  @Configuration
  @EnableCaching
  static class LibraryConfig {

    @Bean
    CacheManager cacheManager() throws Exception {
      URI config = new ClassPathResource("larder-spring.properties").getURI();
      return new JCacheCacheManager(
          Caching.getCachingProvider(LarderCachingProvider.class.getName())
              .getCacheManager(config, getClass().getClassLoader()));
    }

    @Bean
    Library library() {
      return new Library();
    }
  }

  /**
   * Spring's null marker and a key of the wrong type in a typed cache fail with a
   * ClassCastException naming the cache, the expected type and the class given.
   */
  @Test
  void typeMisfitsNameTheCacheTheTypeAndTheClass() {
    try (AnnotationConfigApplicationContext context =
        new AnnotationConfigApplicationContext(LibraryConfig.class)) {
      Library library = context.getBean(Library.class);
      assertEquals(new Book(7, "title 7"), library.find(7L));
      assertEquals(new Book(7, "title 7"), library.find(7L));
      assertEquals(1, library.calls());

      ClassCastException nullMarker =
          assertThrows(ClassCastException.class, () -> library.find(404L));
      assertEquals(
          "cache 'books': a value of class org.springframework.cache.support.NullValue"
              + " is not a "
              + Book.class.getName()
              + ", the configured value type (it is Spring's"
              + " marker for a cached null: disable null caching for this cache, or leave its"
              + " valueType unset; see larder-jcache's README, \"Spring\")",
          nullMarker.getMessage());

      ClassCastException wrongKey =
          assertThrows(ClassCastException.class, () -> library.byTitle("Dune"));
      assertEquals(
          "cache 'books': a key of class java.lang.String is not a java.lang.Long, the"
              + " configured key type",
          wrongKey.getMessage());

      int before = library.calls();
      assertNull(library.findOrNull(404L));
      assertNull(library.findOrNull(404L));
      assertEquals(before + 2, library.calls(), "null results are not cached, and do not fail");
      context.getBean(JCacheCacheManager.class).getCacheManager().close();
    }
  }

  /** A service cached in "greetings", a cache only the file declares. */
  public static class Greetings {
    private int calls;

    @Cacheable("greetings")
    public String greet(String name) {
      calls++;
      return "hi " + name;
    }

    public int calls() {
      return calls;
    }
  }

  /**
   * Wired as Spring Boot's JCacheCacheConfiguration wires JCache: the manager from the provider
   * with the configuration resource's URI and the provider's default class loader, Spring's
   * JCacheCacheManager over it, and createCache(name, new MutableConfiguration()) for each name of
   * spring.cache.cache-names (none here, as the README advises for file-declared caches).
   */
  @Configuration
  @EnableCaching
  static class BootLikeConfig {

    static List<String> cacheNames = List.of();

    @Bean
    javax.cache.CacheManager jCacheCacheManager() throws Exception {
      javax.cache.spi.CachingProvider provider =
          Caching.getCachingProvider(LarderCachingProvider.class.getName());
      javax.cache.CacheManager manager =
          provider.getCacheManager(
              new ClassPathResource("larder-boot.properties").getURI(),
              provider.getDefaultClassLoader(),
              new Properties());
      for (String name : cacheNames) {
        manager.createCache(name, new MutableConfiguration<>());
      }
      return manager;
    }

    @Bean
    CacheManager cacheManager(javax.cache.CacheManager jCacheCacheManager) {
      return new JCacheCacheManager(jCacheCacheManager);
    }

    @Bean
    Greetings greetings() {
      return new Greetings();
    }
  }

  /**
   * Caches the file declares with createAtStartup exist as soon as the manager does, so Spring
   * lists them at start-up (where Boot binds their meters), and any number of contexts in one JVM
   * share them without "a cache named ... already exists".
   */
  @Test
  void fileDeclaredCachesExistAtStartUpInEveryContext() {
    try (AnnotationConfigApplicationContext first =
            new AnnotationConfigApplicationContext(BootLikeConfig.class);
        AnnotationConfigApplicationContext second =
            new AnnotationConfigApplicationContext(BootLikeConfig.class)) {
      for (AnnotationConfigApplicationContext context : List.of(first, second)) {
        assertEquals(
            Set.of("greetings", "farewells"),
            Set.copyOf(context.getBean(CacheManager.class).getCacheNames()),
            "Spring sees the caches before any use");
      }
      javax.cache.CacheManager shared = first.getBean(javax.cache.CacheManager.class);
      assertSame(
          shared,
          second.getBean(javax.cache.CacheManager.class),
          "one manager per (URI, class loader)");

      assertEquals("hi ada", first.getBean(Greetings.class).greet("ada"));
      assertEquals("hi ada", second.getBean(Greetings.class).greet("ada"));
      assertEquals(1, first.getBean(Greetings.class).calls());
      assertEquals(0, second.getBean(Greetings.class).calls(), "served by the shared cache");
      javax.cache.Cache<String, String> greetings =
          shared.getCache("greetings", String.class, String.class);
      assertEquals(1, greetings.unwrap(dev.larder.Cache.class).estimatedSize());
    }
  }

  /** Listing a cache the file creates at start-up in spring.cache.cache-names is refused. */
  @Test
  void listingAStartupCacheAsACacheNameFailsSayingWhy() {
    BootLikeConfig.cacheNames = List.of("greetings");
    try {
      Exception e =
          assertThrows(
              Exception.class,
              () -> new AnnotationConfigApplicationContext(BootLikeConfig.class).close());
      Throwable cause = e;
      while (!(cause instanceof CacheException) && cause.getCause() != null) {
        cause = cause.getCause();
      }
      assertTrue(
          cause.getMessage().startsWith("a cache named greetings already exists: ")
              && cause.getMessage().contains("createAtStartup = true")
              && cause.getMessage().contains("spring.cache.cache-names"),
          cause.getMessage());
    } finally {
      BootLikeConfig.cacheNames = List.of();
      Caching.getCachingProvider(LarderCachingProvider.class.getName()).close();
    }
  }

  @Test
  void cacheableMethodsAreServedFromLarder() {
    try (AnnotationConfigApplicationContext context =
        new AnnotationConfigApplicationContext(AppConfig.class)) {
      Greeter greeter = context.getBean(Greeter.class);
      assertEquals("hello ada", greeter.greet("ada"));
      assertEquals("hello ada", greeter.greet("ada"));
      assertEquals(1, greeter.calls(), "the second call is a cache hit");
      JCacheCacheManager spring = context.getBean(JCacheCacheManager.class);
      javax.cache.Cache<Object, Object> larder = spring.getCacheManager().getCache("sessions");
      assertEquals("hello ada", larder.get("ada"));
      spring.getCacheManager().close();
    }
  }
}
