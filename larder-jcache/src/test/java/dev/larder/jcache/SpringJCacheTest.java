package dev.larder.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import javax.cache.Caching;
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
 * Spring's cache abstraction over Larder, wired as Spring Boot wires JCache: the configuration
 * file is a Spring resource whose URI (a file: or jar: URI) addresses the cache manager, and the
 * caches it declares are found by name on first use.
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
      return new JCacheCacheManager(Caching.getCachingProvider(LarderCachingProvider.class.getName())
          .getCacheManager(config, getClass().getClassLoader()));
    }

    @Bean
    Greeter greeter() {
      return new Greeter();
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
