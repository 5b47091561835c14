package dev.larder.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.Cache;
import dev.larder.codec.Codecs;
import dev.larder.codec.ValueDictionary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The meters carry Micrometer's cache names and the cache's own figures. */
class LarderCacheMetricsTest {

  private static double counter(MeterRegistry registry, String name, String... tags) {
    return registry.get(name).tags("cache", "books").tags(tags).functionCounter().count();
  }

  private static double gauge(MeterRegistry registry, String name, String... tags) {
    return registry.get(name).tags("cache", "books").tags(tags).gauge().value();
  }

  @Test
  void standardAndLarderMetersFollowTheCache() {
    MeterRegistry registry = new SimpleMeterRegistry();
    try (Cache<String, String> cache =
        Cache.builder(String.class, String.class).maximumMemory(1 << 20).recordStats().build()) {
      LarderCacheMetrics.monitor(registry, cache, "books", "app", "demo");
      cache.put("a", "1");
      cache.put("b", "2");
      cache.getIfPresent("a");
      cache.getIfPresent("a");
      cache.getIfPresent("zz");
      cache.get("c", k -> "3");
      try {
        cache.get("d", k -> null);
      } catch (RuntimeException expected) {
        // a loader returning null counts as a failure, whatever the cache reports
      }
      cache.invalidate("b");

      assertEquals(2, counter(registry, "cache.gets", "result", "hit"));
      assertEquals(3, counter(registry, "cache.gets", "result", "miss"));
      assertEquals((double) cache.stats().putCount(), counter(registry, "cache.puts"));
      assertEquals(1, counter(registry, "cache.load", "result", "success"));
      assertEquals(
          (double) cache.stats().loadFailureCount(),
          counter(registry, "cache.load", "result", "failure"));
      assertEquals(1, counter(registry, "larder.cache.removals", "cause", "explicit"));
      assertEquals(0, counter(registry, "cache.evictions"));
      assertEquals(2, gauge(registry, "cache.size"));
      assertEquals((double) cache.memoryUsed(), gauge(registry, "larder.cache.memory.used"));
      assertEquals(1 << 20, gauge(registry, "larder.cache.memory.max"));
      assertNull(registry.find("larder.cache.entries.max").gauge());
      assertEquals("demo", registry.get("cache.size").gauge().getId().getTag("app"));
      double p50 =
          registry
              .get("larder.cache.latency")
              .tags("cache", "books", "operation", "get", "quantile", "0.5")
              .timeGauge()
              .value(TimeUnit.NANOSECONDS);
      // The time gauge holds seconds: nanoseconds come back through a double division and
      // multiplication, which may be off in the last bits (31742.999999999996 for 31743).
      assertEquals((double) cache.stats().getLatency().p50Nanos(), p50, 1e-3);
      assertTrue(p50 > 0);
    }
  }

  @Test
  void evictionsAndEntryBoundAreReported() {
    MeterRegistry registry = new SimpleMeterRegistry();
    try (Cache<Integer, String> cache =
        Cache.builder(Integer.class, String.class).maximumEntries(10).recordStats().build()) {
      LarderCacheMetrics.monitor(registry, cache, "books");
      for (int i = 0; i < 1_000; i++) {
        cache.put(i, "v" + i);
      }
      cache.cleanUp();
      assertTrue(
          counter(registry, "cache.evictions") >= 990,
          () -> "evictions " + counter(registry, "cache.evictions"));
      assertEquals((double) cache.stats().evictionCount(), counter(registry, "cache.evictions"));
      assertEquals(10, gauge(registry, "larder.cache.entries.max"));
      assertNull(registry.find("larder.cache.memory.max").gauge());
    }
  }

  @Test
  void dictionaryMetersAppearForACacheWithOne() {
    MeterRegistry registry = new SimpleMeterRegistry();
    ValueDictionary dictionary = ValueDictionary.builder().maximumMemory(64 << 10).build();
    var codec = dictionary.substitute("t", Codecs.strings(), ValueDictionary.Mode.ALWAYS);
    try (Cache<String, String> cache =
        Cache.builder(Codecs.strings(), codec)
            .maximumMemory(4 << 20)
            .dictionary(dictionary)
            .build()) {
      LarderCacheMetrics.monitor(registry, cache, "books");
      cache.put("a", "x");
      cache.put("b", "y");
      cache.put("c", "x");
      assertEquals(2, gauge(registry, "larder.cache.dictionary.entries"));
      assertEquals(
          (double) dictionary.memoryUsed(), gauge(registry, "larder.cache.dictionary.memory.used"));
    }
  }

  @Test
  void aClosedCacheReadsAsNaNAndZeroInsteadOfFailingTheScrape() {
    MeterRegistry registry = new SimpleMeterRegistry();
    Cache<String, String> cache =
        Cache.builder(String.class, String.class).maximumMemory(1 << 20).recordStats().build();
    LarderCacheMetrics.monitor(registry, cache, "books");
    cache.put("a", "1");
    cache.getIfPresent("a");
    cache.close();
    assertTrue(Double.isNaN(gauge(registry, "larder.cache.memory.used")));
    assertEquals(0, counter(registry, "cache.gets", "result", "hit"));
    assertNotNull(registry.get("cache.size").gauge());
  }
}
