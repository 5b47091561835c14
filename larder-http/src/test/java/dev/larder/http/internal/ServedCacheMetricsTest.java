package dev.larder.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.Cache;
import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;
import dev.larder.codec.ValueDictionary;
import dev.larder.http.ServedCache;
import dev.larder.metrics.LarderCacheMetrics;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code /metrics} binds a Larder cache through {@link ServedCache#of} with its own binder; the
 * scrape must be the one larder-metrics' {@link LarderCacheMetrics} gives for the same cache, line
 * for line (names, tags, help texts, values), for a cache with statistics and a byte bound, one
 * without statistics and with an entry bound, and one with a value dictionary.
 */
class ServedCacheMetricsTest {

  @Test
  void aLarderCacheScrapesAsLarderCacheMetricsBindsIt() {
    ValueDictionary dictionary = ValueDictionary.builder().build();
    Codec<String> values =
        dictionary.substitute("v", Codecs.strings(), ValueDictionary.Mode.ALWAYS);
    try (Cache<String, String> books =
            Cache.builder(String.class, String.class).maximumMemory(1 << 20).recordStats().build();
        Cache<Long, String> counters =
            Cache.builder(Long.class, String.class).maximumEntries(50).build();
        Cache<String, String> coded =
            Cache.builder(Codecs.strings(), values)
                .maximumMemory(64 << 20)
                .dictionary(dictionary)
                .recordStats()
                .build()) {
      for (int i = 0; i < 300; i++) {
        books.put("book-" + i, "title " + i);
        books.getIfPresent("book-" + (i * 7 % 400));
        counters.put((long) i, "n" + i);
        coded.put("k" + i, "colour-" + (i % 5));
        coded.getIfPresent("k" + (i / 2));
      }
      books.get("loaded", k -> "from the loader");
      books.remove("book-3");
      books.cleanUp();
      counters.cleanUp();

      PrometheusMeterRegistry expected = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      PrometheusMeterRegistry actual = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      // the binders hold what they report weakly; the directory holds it in the endpoint
      List<ServedCache<?, ?>> held =
          List.of(
              bind(expected, actual, "books", books),
              bind(expected, actual, "counters", counters),
              bind(expected, actual, "coded", coded));

      String scrape = expected.scrape();
      assertTrue(scrape.contains("larder_cache_dictionary_entries{cache=\"coded\"} 5.0"), scrape);
      assertTrue(scrape.contains("larder_cache_entries_max{cache=\"counters\"} 50.0"), scrape);
      assertEquals(scrape, actual.scrape());
      assertEquals(3, held.size());
    }
  }

  private static ServedCache<?, ?> bind(
      PrometheusMeterRegistry expected,
      PrometheusMeterRegistry actual,
      String name,
      Cache<?, ?> cache) {
    new LarderCacheMetrics(cache, name, Tags.empty()).bindTo(expected);
    ServedCache<?, ?> served = ServedCache.of(cache);
    new ServedCacheMetrics(served, name, Tags.empty(), ServedCache::figures).bindTo(actual);
    return served;
  }
}
