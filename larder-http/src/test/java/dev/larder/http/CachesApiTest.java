package dev.larder.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.larder.Cache;
import dev.larder.CacheStats;
import dev.larder.LatencySummary;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code /api/caches} and {@code /api/caches/{name}} report each cache's own figures. */
@Timeout(60)
class CachesApiTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void listReportsEveryCacheAsItsStatsSay() throws Exception {
    try (Fixture f = Fixture.start().traffic()) {
      HttpResponse<String> response = f.get("/api/caches");
      assertEquals(200, response.statusCode());
      assertEquals("application/json", response.headers().firstValue("Content-Type").orElseThrow());
      JsonNode overview = JSON.readTree(response.body());
      List<String> names = new ArrayList<>();
      overview.get("caches").forEach(c -> names.add(c.get("name").asText()));
      assertEquals(List.of("blobs", "books", "counters"), names, "ordered by name");
      assertTrue(overview.get("time").asLong() > 0);
      assertEquals(0, overview.get("sections").size(), "no log or cluster by default");

      assertReports(overview.get("caches").get(1), f.books, "text/plain");
      assertReports(overview.get("caches").get(0), f.blobs, "application/octet-stream");
      JsonNode counters = overview.get("caches").get(2);
      assertReports(counters, f.counters, null);
      assertFalse(counters.get("statistics").asBoolean());
      assertTrue(counters.get("hitRatio").isNull(), "no reads recorded: no ratio");
      assertEquals(50, counters.get("maximumEntries").asLong());
      assertTrue(counters.get("maximumMemory").isNull());
    }
  }

  @Test
  void oneCacheUnknownCachesAndSections() throws Exception {
    try (Fixture f = Fixture.start().traffic()) {
      HttpResponse<String> one = f.get("/api/caches/books");
      assertEquals(200, one.statusCode());
      assertReports(JSON.readTree(one.body()), f.books, "text/plain");

      HttpResponse<String> unknown = f.get("/api/caches/nope");
      assertEquals(404, unknown.statusCode());
      JsonNode error = JSON.readTree(unknown.body());
      assertEquals(404, error.get("status").asInt());
      assertTrue(error.get("error").asText().contains("nope"), error.toString());

      HttpResponse<String> post =
          f.send(
              HttpRequest.newBuilder(f.uri("/api/caches"))
                  .POST(HttpRequest.BodyPublishers.ofString("{}")));
      assertEquals(405, post.statusCode());
      assertEquals("GET", post.headers().firstValue("Allow").orElseThrow());

      f.directory.section("cluster", () -> Map.of("members", 3, "view", "[a|2] (3)"));
      JsonNode sections = JSON.readTree(f.get("/api/caches").body()).get("sections");
      assertEquals(3, sections.get("cluster").get("members").asInt());
      assertEquals("[a|2] (3)", sections.get("cluster").get("view").asText());

      f.directory.section(
          "log",
          () -> {
            throw new IllegalStateException("log is recovering");
          });
      JsonNode failing = JSON.readTree(f.get("/api/caches").body());
      assertEquals(3, failing.get("caches").size(), "a failing section leaves the caches");
      assertTrue(
          failing.get("sections").get("log").get("error").asText().contains("log is recovering"));
      f.directory.removeSection("log");

      f.counters.close();
      JsonNode after = JSON.readTree(f.get("/api/caches").body());
      assertEquals(2, after.get("caches").size(), "a closed cache is left out");
      assertEquals(404, f.get("/api/caches/counters").statusCode());
    }
  }

  private static void assertReports(JsonNode c, Cache<?, ?> cache, String rest) {
    CacheStats stats = cache.stats();
    String name = c.get("name").asText();
    assertEquals(cache.estimatedSize(), c.get("entries").asLong(), name);
    assertEquals(cache.memoryUsed(), c.get("memoryUsed").asLong(), name);
    assertEquals(cache.maximumMemory().isPresent(), !c.get("maximumMemory").isNull(), name);
    cache.maximumMemory().ifPresent(m -> assertEquals(m, c.get("maximumMemory").asLong()));
    assertEquals(cache.recordsStats(), c.get("statistics").asBoolean(), name);
    if (stats.requestCount() > 0) {
      assertEquals(stats.hitRatio(), c.get("hitRatio").asDouble(), 0.0, name);
    }
    assertEquals(stats.hitCount(), c.get("hits").asLong(), name);
    assertEquals(stats.missCount(), c.get("misses").asLong(), name);
    assertEquals(stats.putCount(), c.get("puts").asLong(), name);
    assertEquals(stats.evictionCount(), c.get("evictions").asLong(), name);
    assertEquals(stats.expirationCount(), c.get("expirations").asLong(), name);
    assertEquals(stats.loadSuccessCount(), c.get("loadSuccesses").asLong(), name);
    assertLatency(stats.getLatency(), c.get("latency").get("get"));
    assertLatency(stats.putLatency(), c.get("latency").get("put"));
    assertLatency(stats.loadLatency(), c.get("latency").get("load"));
    assertEquals(rest, c.get("rest").isNull() ? null : c.get("rest").asText(), name);
  }

  private static void assertLatency(LatencySummary expected, JsonNode actual) {
    assertEquals(expected.count(), actual.get("count").asLong());
    assertEquals(expected.p50Nanos(), actual.get("p50Nanos").asLong());
    assertEquals(expected.p99Nanos(), actual.get("p99Nanos").asLong());
  }
}
