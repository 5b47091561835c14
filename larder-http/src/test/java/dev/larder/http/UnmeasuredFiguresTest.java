package dev.larder.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A served cache that does not measure puts, removals, loads or latencies (as larder-server's
 * keyspace) has those figures left out of {@code /api/caches} and {@code /metrics}, not reported as
 * 0; what it measures is reported as for any cache, and a Larder cache beside it keeps every
 * figure.
 */
@Timeout(60)
class UnmeasuredFiguresTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> UNMEASURED =
      List.of("puts", "removals", "loadSuccesses", "loadFailures");

  @Test
  void theApiLeavesOutWhatTheCacheDoesNotMeasure() throws Exception {
    try (Fixture f = Fixture.start().traffic()) {
      ReadsOnlyCache store = new ReadsOnlyCache().traffic();
      f.directory.add("reads-only", store, KeyFormat.strings(), ValueFormat.utf8());

      JsonNode c = JSON.readTree(f.get("/api/caches/reads-only").body());
      for (String field : UNMEASURED) {
        assertFalse(c.has(field), field + " in " + c);
      }
      assertEquals(0, c.get("latency").size(), "no latency is measured: " + c);
      assertEquals(2, c.get("entries").asLong());
      assertEquals(3, c.get("hits").asLong());
      assertEquals(1, c.get("misses").asLong());
      assertEquals(0.75, c.get("hitRatio").asDouble(), 0.0);
      assertTrue(c.get("maximumMemory").isNull(), "an absent bound is still null");
      assertEquals("text/plain", c.get("rest").asText());

      JsonNode books = JSON.readTree(f.get("/api/caches/books").body());
      for (String field : UNMEASURED) {
        assertTrue(books.has(field), "a Larder cache reports " + field);
      }
      assertEquals(List.of("get", "put", "load"), fieldNames(books.get("latency")));

      // REST works on it like on any cache.
      assertEquals("1", f.get("/api/caches/reads-only/entries/a").body());
    }
  }

  @Test
  void theScrapeHasNoMeterForWhatTheCacheDoesNotMeasure() throws Exception {
    try (Fixture f = Fixture.start().traffic()) {
      f.directory.add("reads-only", new ReadsOnlyCache().traffic());
      PrometheusText text = PrometheusText.parse(f.get("/metrics").body());
      for (String[] absent :
          new String[][] {
            {"cache_puts_total"},
            {"cache_load_total"},
            {"larder_cache_removals_total", "cause", "explicit"},
            {"larder_cache_latency_seconds"}
          }) {
        assertTrue(
            text.samples().stream()
                .noneMatch(
                    s ->
                        s.name().equals(absent[0])
                            && "reads-only".equals(s.labels().get("cache"))
                            && (absent.length == 1 || absent[2].equals(s.labels().get(absent[1])))),
            String.join(" ", absent) + " for a cache that does not measure it");
      }
      assertEquals(3, text.value("cache_gets_total", "cache", "reads-only", "result", "hit"));
      assertEquals(1, text.value("cache_gets_total", "cache", "reads-only", "result", "miss"));
      assertEquals(
          0, text.value("larder_cache_removals_total", "cache", "reads-only", "cause", "expired"));
      assertEquals(2, text.value("cache_size", "cache", "reads-only"));
      assertEquals(128, text.value("larder_cache_memory_used_bytes", "cache", "reads-only"));
      assertTrue(
          text.find("cache_puts_total", "cache", "books").isPresent(),
          "a Larder cache keeps its put counter");
    }
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new java.util.ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
