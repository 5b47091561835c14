package dev.larder.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every cache gets its own statistics and configuration MXBeans, whatever characters its name
 * holds, and closing one cache removes only its own.
 */
class MXBeanNamesTest {

  private static final String MANAGER = "larder-mxbean-names-test";
  private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

  private final CacheManager manager =
      Caching.getCachingProvider(LarderCachingProvider.class.getName())
          .getCacheManager(URI.create(MANAGER), getClass().getClassLoader());

  @AfterEach
  void close() {
    manager.close();
  }

  private static MutableConfiguration<String, String> managed() {
    return new MutableConfiguration<String, String>()
        .setTypes(String.class, String.class)
        .setStatisticsEnabled(true)
        .setManagementEnabled(true);
  }

  private static ObjectName beanOf(String type, String quotedName) throws Exception {
    return new ObjectName(
        "javax.cache:type=" + type + ",CacheManager=" + MANAGER + ",Cache=" + quotedName);
  }

  private static long hits(String quotedName) throws Exception {
    return (Long) SERVER.getAttribute(beanOf("CacheStatistics", quotedName), "CacheHits");
  }

  @Test
  void namesThatTheReplacementWouldMergeGetABeanEachAndCloseRemovesOnlyItsOwn() throws Exception {
    Map<String, Cache<String, String>> caches = new LinkedHashMap<>();
    for (String name : List.of("a.b", "a:b", "a,b", "a=b")) {
      caches.put(name, manager.createCache(name, managed()));
    }
    int expected = 1;
    for (Cache<String, String> cache : caches.values()) {
      cache.put("k", "v");
      for (int i = 0; i < expected; i++) {
        cache.get("k");
      }
      expected++;
    }
    assertEquals(
        caches.size(),
        SERVER
            .queryNames(
                new ObjectName("javax.cache:type=CacheStatistics,CacheManager=" + MANAGER + ",*"),
                null)
            .size());
    assertEquals(
        caches.size(),
        SERVER
            .queryNames(
                new ObjectName(
                    "javax.cache:type=CacheConfiguration,CacheManager=" + MANAGER + ",*"),
                null)
            .size());
    assertEquals(1L, hits("a.b"), "a name an unquoted value can hold is written as it is");
    assertEquals(2L, hits(ObjectName.quote("a:b")));
    assertEquals(3L, hits(ObjectName.quote("a,b")));
    assertEquals(4L, hits(ObjectName.quote("a=b")));

    caches.get("a:b").close();
    assertFalse(SERVER.isRegistered(beanOf("CacheStatistics", ObjectName.quote("a:b"))));
    assertFalse(SERVER.isRegistered(beanOf("CacheConfiguration", ObjectName.quote("a:b"))));
    assertEquals(1L, hits("a.b"));
    assertEquals(3L, hits(ObjectName.quote("a,b")));
    assertTrue(SERVER.isRegistered(beanOf("CacheConfiguration", "a.b")));
    assertTrue(SERVER.isRegistered(beanOf("CacheConfiguration", ObjectName.quote("a=b"))));
  }

  @Test
  void quotesAndPatternCharactersInANameDoNotStopCreateCache() throws Exception {
    for (String name : List.of("a*", "b?", "*", "c\\*", "a\"b")) {
      Cache<String, String> cache = manager.createCache(name, managed());
      cache.put("k", "v");
      cache.get("k");
      assertEquals(1L, hits(ObjectName.quote(name)), name);
      manager.enableStatistics(name, false);
      assertFalse(SERVER.isRegistered(beanOf("CacheStatistics", ObjectName.quote(name))), name);
      cache.close();
      assertFalse(SERVER.isRegistered(beanOf("CacheConfiguration", ObjectName.quote(name))), name);
    }
  }

  @Test
  void closingACacheLeavesABeanAnotherCacheRegisteredUnderTheSameName() throws Exception {
    // manager URIs that differ only in ':' and '.' share the TCK's name form: the cache
    // registered last holds the name, and the other's close must not take it away
    javax.cache.spi.CachingProvider provider =
        Caching.getCachingProvider(LarderCachingProvider.class.getName());
    CacheManager colon =
        provider.getCacheManager(URI.create("larder-mx:shared"), getClass().getClassLoader());
    CacheManager dot =
        provider.getCacheManager(URI.create("larder-mx.shared"), getClass().getClassLoader());
    try {
      Cache<String, String> first = colon.createCache("c", managed());
      Cache<String, String> second = dot.createCache("c", managed());
      second.put("k", "v");
      second.get("k");
      ObjectName shared =
          new ObjectName("javax.cache:type=CacheStatistics,CacheManager=larder-mx.shared,Cache=c");
      first.close();
      assertTrue(SERVER.isRegistered(shared), "the other cache's bean stays");
      assertEquals(1L, SERVER.getAttribute(shared, "CacheHits"));
      second.close();
      assertFalse(SERVER.isRegistered(shared));
    } finally {
      colon.close();
      dot.close();
    }
  }
}
