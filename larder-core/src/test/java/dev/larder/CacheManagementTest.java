package dev.larder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codecs;
import dev.larder.codec.ValueDictionary;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/** The native API's MXBean: one per cache, whatever its name, live figures, gone at close. */
class CacheManagementTest {

  private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

  private static ObjectName nameOf(String cacheName) throws Exception {
    return new ObjectName("dev.larder:type=Cache,name=" + ObjectName.quote(cacheName));
  }

  private static Cache<String, String> cache(String name) {
    return Cache.builder(String.class, String.class)
        .maximumMemory(1 << 20)
        .recordStats()
        .managementName(name)
        .build();
  }

  @Test
  void namesWithJmxSyntaxGetABeanEach() throws Exception {
    List<String> names = List.of("m.a.b", "m.a:b", "m.a,b", "m.a=b", "m.a*b?", "m.\"q\"");
    List<Cache<String, String>> caches = new ArrayList<>();
    try {
      for (String name : names) {
        caches.add(cache(name));
      }
      for (int i = 0; i < names.size(); i++) {
        caches.get(i).put("k", "v");
        for (int j = 0; j <= i; j++) {
          caches.get(i).getIfPresent("k");
        }
      }
      for (int i = 0; i < names.size(); i++) {
        ObjectName objectName = nameOf(names.get(i));
        assertTrue(SERVER.isRegistered(objectName), names.get(i));
        assertEquals((long) i + 1, SERVER.getAttribute(objectName, "HitCount"), names.get(i));
        assertEquals(1L, SERVER.getAttribute(objectName, "EstimatedSize"));
        assertEquals(caches.get(i).memoryUsed(), SERVER.getAttribute(objectName, "MemoryUsed"));
        assertEquals(1L << 20, SERVER.getAttribute(objectName, "MaximumMemory"));
        assertEquals(-1L, SERVER.getAttribute(objectName, "MaximumEntries"));
      }
      caches.get(1).close();
      assertFalse(SERVER.isRegistered(nameOf("m.a:b")));
      for (String other : List.of("m.a.b", "m.a,b", "m.a=b", "m.a*b?", "m.\"q\"")) {
        assertTrue(SERVER.isRegistered(nameOf(other)), other);
      }
    } finally {
      caches.forEach(Cache::close);
    }
    for (String name : names) {
      assertFalse(SERVER.isRegistered(nameOf(name)), name);
    }
  }

  @Test
  void aSecondCacheOfTheSameNameIsRefusedAndTheFirstKeepsItsBean() throws Exception {
    try (Cache<String, String> first = cache("m.same")) {
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> cache("m.same"));
      assertTrue(e.getMessage().contains("managementName"), e.getMessage());
      first.put("k", "v");
      assertEquals(1L, SERVER.getAttribute(nameOf("m.same"), "EstimatedSize"));
    }
    // The name is free again once the first is closed.
    try (Cache<String, String> again = cache("m.same")) {
      again.put("k", "v");
      assertEquals(1L, SERVER.getAttribute(nameOf("m.same"), "EstimatedSize"));
    }
  }

  @Test
  void operationsAndDictionaryFigures() throws Exception {
    ValueDictionary dictionary = ValueDictionary.builder().maximumMemory(64 << 10).build();
    var titles = dictionary.substitute("t", Codecs.strings(), ValueDictionary.Mode.ALWAYS);
    try (Cache<String, String> cache =
        Cache.builder(Codecs.strings(), titles)
            .maximumMemory(4 << 20)
            .dictionary(dictionary)
            .managementName("m.dict")
            .build()) {
      cache.put("a", "x");
      cache.put("b", "y");
      ObjectName name = nameOf("m.dict");
      assertEquals(2L, SERVER.getAttribute(name, "DictionaryEntries"));
      assertEquals(dictionary.memoryUsed(), SERVER.getAttribute(name, "DictionaryMemoryUsed"));
      assertEquals(4L << 20, SERVER.getAttribute(name, "MaximumMemory"));
      assertEquals(false, SERVER.getAttribute(name, "StatisticsEnabled"));
      SERVER.invoke(name, "invalidateAll", null, null);
      assertEquals(0, cache.estimatedSize());
    }
  }

  @Test
  void emptyNameIsRefused() {
    var builder = Cache.builder(String.class, String.class).maximumMemory(1 << 20);
    assertThrows(IllegalArgumentException.class, () -> builder.managementName(""));
    assertThrows(NullPointerException.class, () -> builder.managementName(null));
  }

  @Test
  void boundsAndDictionaryAreReported() {
    try (Cache<String, String> cache =
        Cache.builder(String.class, String.class).maximumEntries(100).build()) {
      assertTrue(cache.maximumMemory().isEmpty());
      assertEquals(100, cache.maximumEntries().getAsLong());
      assertTrue(cache.dictionary().isEmpty());
      assertFalse(cache.recordsStats());
    }
  }
}
