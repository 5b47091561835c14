package dev.larder.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.cache.interceptor.SimpleKey;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code @Cacheable} on methods with no, one or several parameters, in caches made from {@code
 * larder.defaults} (whose keys are any type by default) and in declared caches whose key-type is
 * Object, Serializable or SimpleKey.
 */
class SpringKeysTest {

  private static final String[] DEFAULTS = {
    "larder.defaults.value-type=java.lang.Object", "larder.defaults.serialization=java"
  };

  @Test
  void methodsWithNoOneOrSeveralParametersAreCachedByDefaults() {
    try (ConfigurableApplicationContext context = Apps.start(DEFAULTS)) {
      BookService service = context.getBean(BookService.class);
      assertEquals(42, service.count());
      assertEquals(42, service.count());
      assertEquals(1, service.lookups(), "no parameters: SimpleKey.EMPTY");

      assertEquals("a-1", service.label("a", 1));
      assertEquals("a-1", service.label("a", 1));
      assertEquals("a-2", service.label("a", 2));
      assertEquals(3, service.lookups(), "two parameters: a SimpleKey of both");

      assertEquals(2, service.size(List.of(1L, 2L)));
      assertEquals(2, service.size(new ArrayList<>(List.of(1L, 2L))), "an equal list");
      assertEquals(4, service.lookups(), "one parameter: the list itself, by its elements");
    }
  }

  @Test
  void declaredCachesTakeObjectSerializableAndSimpleKeyKeyTypes() {
    for (String keyType :
        new String[] {
          "java.lang.Object",
          "java.io.Serializable",
          "org.springframework.cache.interceptor.SimpleKey"
        }) {
      try (ConfigurableApplicationContext context =
          Apps.start(
              "larder.caches.labels.key-type=" + keyType,
              "larder.caches.labels.value-type=java.lang.String")) {
        BookService service = context.getBean(BookService.class);
        service.label("x", 7);
        service.label("x", 7);
        assertEquals(1, service.lookups(), keyType);
        Cache labels = context.getBean(CacheManager.class).getCache("labels");
        assertEquals("x-7", labels.get(new SimpleKey("x", 7), String.class), keyType);
      }
    }
  }

  @Test
  @SuppressWarnings("UnnecessaryStringBuilder") // a mutable key, which the cache must refuse
  void aKeyWithNoCanonicalEncodingIsRefusedWithTheFix() {
    try (ConfigurableApplicationContext context = Apps.start(DEFAULTS)) {
      Cache cache = context.getBean(CacheManager.class).getCache("anything");
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class, () -> cache.put(new StringBuilder("mutable"), "v"));
      assertTrue(
          e.getMessage().contains("cache 'anything'")
              && e.getMessage().contains("java.lang.StringBuilder")
              && e.getMessage().contains("larder.defaults.key-type")
              && e.getMessage().contains("key expression"),
          e.getMessage());
    }
  }
}
