package dev.larder.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.Cache;
import dev.larder.CacheStats;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code /metrics} is well-formed Prometheus text whose figures are the caches' own. */
@Timeout(60)
class MetricsEndpointTest {

  @Test
  void scrapeAgreesWithEachCachesStats() throws Exception {
    try (Fixture f = Fixture.start().traffic()) {
      HttpResponse<String> response = f.get("/metrics");
      assertEquals(200, response.statusCode());
      assertEquals(
          "text/plain; version=0.0.4; charset=utf-8",
          response.headers().firstValue("Content-Type").orElseThrow());
      PrometheusText text = PrometheusText.parse(response.body());
      assertAgrees(text, "books", f.books);
      assertAgrees(text, "blobs", f.blobs);
      assertAgrees(text, "counters", f.counters);
      assertTrue(f.blobs.stats().evictionCount() > 0, "the fixture evicts from blobs");
      assertEquals(50, text.value("larder_cache_entries_max", "cache", "counters"));
      assertTrue(text.find("larder_cache_memory_max_bytes", "cache", "counters").isEmpty());
    }
  }

  private static void assertAgrees(PrometheusText text, String name, Cache<?, ?> cache) {
    CacheStats stats = cache.stats();
    assertEquals(
        (double) stats.hitCount(),
        text.value("cache_gets_total", "cache", name, "result", "hit"),
        name + " hits");
    assertEquals(
        (double) stats.missCount(),
        text.value("cache_gets_total", "cache", name, "result", "miss"),
        name + " misses");
    assertEquals((double) stats.putCount(), text.value("cache_puts_total", "cache", name), name);
    assertEquals(
        (double) stats.evictionCount(),
        text.value("cache_evictions_total", "cache", name),
        name + " evictions");
    assertEquals(
        (double) stats.loadSuccessCount(),
        text.value("cache_load_total", "cache", name, "result", "success"),
        name + " loads");
    assertEquals(
        (double) stats.expirationCount(),
        text.value("larder_cache_removals_total", "cache", name, "cause", "expired"),
        name);
    assertEquals((double) cache.estimatedSize(), text.value("cache_size", "cache", name), name);
    assertEquals(
        (double) cache.memoryUsed(),
        text.value("larder_cache_memory_used_bytes", "cache", name),
        name + " memory");
    cache
        .maximumMemory()
        .ifPresent(
            bound ->
                assertEquals(
                    (double) bound,
                    text.value("larder_cache_memory_max_bytes", "cache", name),
                    name + " bound"));
    assertEquals(
        stats.getLatency().p99Nanos() / 1e9,
        text.value(
            "larder_cache_latency_seconds", "cache", name, "operation", "get", "quantile", "0.99"),
        1e-12,
        name + " get p99");
    assertEquals(
        stats.putLatency().p50Nanos() / 1e9,
        text.value(
            "larder_cache_latency_seconds", "cache", name, "operation", "put", "quantile", "0.5"),
        1e-12,
        name + " put p50");
  }

  /**
   * Every meter of a cache samples the same figures, read once per scrape: a cache whose figures
   * are costly (a clustered cache counts on every member) is not asked per meter.
   */
  @Test
  void aScrapeReadsEachCachesFiguresOnce() throws Exception {
    try (Fixture f = Fixture.start()) {
      ReadsOnlyCache store = new ReadsOnlyCache().traffic();
      f.directory.add("reads-only", store);
      assertEquals(200, f.get("/metrics").statusCode()); // binds its meters, then scrapes
      long before = store.figuresRead.sum();
      HttpResponse<String> scrape = f.get("/metrics");
      assertEquals(200, scrape.statusCode());
      assertEquals(before + 1, store.figuresRead.sum(), "figures read by one scrape");
      assertEquals(
          3,
          PrometheusText.parse(scrape.body())
              .value("cache_gets_total", "cache", "reads-only", "result", "hit"));
    }
  }

  @Test
  void openMetricsWhenAskedAndCachesLeaveWithTheDirectory() throws Exception {
    try (Fixture f = Fixture.start().traffic()) {
      HttpResponse<String> open =
          f.send(
              HttpRequest.newBuilder(f.uri("/metrics"))
                  .header("Accept", "application/openmetrics-text; version=1.0.0"));
      assertEquals(200, open.statusCode());
      assertTrue(
          open.headers()
              .firstValue("Content-Type")
              .orElseThrow()
              .startsWith("application/openmetrics-text"));
      assertTrue(open.body().endsWith("# EOF\n"), "OpenMetrics ends with # EOF");

      f.directory.remove("blobs");
      PrometheusText after = PrometheusText.parse(f.get("/metrics").body());
      assertTrue(
          after.samples().stream().noneMatch(s -> "blobs".equals(s.labels().get("cache"))),
          "a cache removed from the directory leaves the scrape");
      assertEquals(
          (double) f.books.stats().hitCount(),
          after.value("cache_gets_total", "cache", "books", "result", "hit"));
    }
  }
}
