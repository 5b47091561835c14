package dev.larder.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The key browser's API: a scan with a pattern, page by page, returns every matching key exactly
 * once while nothing changes and every key present throughout while keys come and go; entries
 * report their time to live where the cache tracks it; a cache can be cleared.
 */
@Timeout(60)
class KeyBrowserApiTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static Set<String> scanAll(
      Fixture f, String cache, String pattern, int count, Runnable betweenPages) throws Exception {
    Set<String> seen = new HashSet<>();
    String cursor = "0";
    int pages = 0;
    do {
      HttpResponse<String> page =
          f.get(
              "/api/caches/"
                  + cache
                  + "/keys?match="
                  + URLEncoder.encode(pattern, StandardCharsets.UTF_8)
                  + "&count="
                  + count
                  + "&cursor="
                  + cursor);
      assertEquals(200, page.statusCode(), page.body());
      JsonNode body = JSON.readTree(page.body());
      for (JsonNode key : body.get("keys")) {
        assertTrue(seen.add(key.asText()) || betweenPages != null, "twice: " + key);
      }
      cursor = body.get("cursor").asText();
      pages++;
      if (betweenPages != null) {
        betweenPages.run();
      }
      assertTrue(pages < 1000, "the scan ends");
    } while (!cursor.equals("0"));
    return seen;
  }

  @Test
  void aScanReturnsEveryMatchingKeyOnce() throws Exception {
    try (Fixture f = Fixture.start().traffic()) {
      Set<String> expected = new TreeSet<>();
      for (String key : f.books.asMap().keySet()) {
        if (key.matches("book-1[0-9]")) {
          expected.add(key);
        }
      }
      assertEquals(10, expected.size());
      assertEquals(expected, new TreeSet<>(scanAll(f, "books", "book-1?", 3, null)));
      assertEquals(expected, new TreeSet<>(scanAll(f, "books", "book-1[0-9]", 50, null)));
      assertEquals(f.books.asMap().keySet(), scanAll(f, "books", "*", 37, null));
      assertEquals(Set.of("book-1"), scanAll(f, "books", "book-1", 10, null));
      assertEquals(Set.of(), scanAll(f, "books", "nothing*", 10, null));
    }
  }

  @Test
  void keysPresentThroughoutAreSeenWhileOthersComeAndGo() throws Exception {
    try (Fixture f = Fixture.start().traffic()) {
      Set<String> stable = new HashSet<>(f.books.asMap().keySet());
      int[] n = {0};
      Set<String> seen =
          scanAll(
              f,
              "books",
              "*",
              20,
              () -> {
                for (int i = 0; i < 5; i++) {
                  f.books.put("churn-" + n[0]++, "x");
                  f.books.remove("churn-" + (n[0] - 3));
                }
              });
      assertTrue(seen.containsAll(stable), "every key present from start to end was seen");
    }
  }

  @Test
  void badCursorsAndCountsAreRefusedAndCachesWithoutFormatsHaveNoKeys() throws Exception {
    try (Fixture f = Fixture.start().traffic()) {
      assertEquals(400, f.get("/api/caches/books/keys?cursor=-1").statusCode());
      assertEquals(400, f.get("/api/caches/books/keys?cursor=x").statusCode());
      assertEquals(400, f.get("/api/caches/books/keys?count=0").statusCode());
      assertEquals(400, f.get("/api/caches/books/keys?count=1001").statusCode());
      assertEquals(405, f.get("/api/caches/counters/keys").statusCode());
      assertEquals(404, f.get("/api/caches/nope/keys").statusCode());
    }
  }

  @Test
  void entriesReportTheirTimeToLiveWhereTheCacheTracksIt() throws Exception {
    try (Fixture f = Fixture.start().traffic()) {
      ReadsOnlyCache expiring = new ReadsOnlyCache();
      expiring.putExpiring("session", "s", Duration.ofMinutes(5));
      expiring.put("forever", "f");
      f.directory.add("sessions", expiring, KeyFormat.strings(), ValueFormat.utf8());
      long ttl =
          Long.parseLong(
              f.get("/api/caches/sessions/entries/session")
                  .headers()
                  .firstValue("X-Larder-TTL-Millis")
                  .orElseThrow());
      assertTrue(ttl > 290_000 && ttl <= 300_000, "ttl " + ttl);
      assertEquals(
          "-1",
          f.get("/api/caches/sessions/entries/forever")
              .headers()
              .firstValue("X-Larder-TTL-Millis")
              .orElseThrow(),
          "no expiry, as PTTL says");
      assertFalse(
          f.get("/api/caches/books/entries/book-1")
              .headers()
              .firstValue("X-Larder-TTL-Millis")
              .isPresent(),
          "a Larder cache does not report it");
    }
  }

  @Test
  void aCacheIsClearedByDeletingItsEntries() throws Exception {
    try (Fixture f = Fixture.start().traffic()) {
      assertEquals(
          405,
          f.send(
                  HttpRequest.newBuilder(f.uri("/api/caches/books/entries"))
                      .PUT(HttpRequest.BodyPublishers.ofString("x")))
              .statusCode());
      assertTrue(f.books.estimatedSize() > 0);
      assertEquals(
          204,
          f.send(HttpRequest.newBuilder(f.uri("/api/caches/books/entries")).DELETE()).statusCode());
      f.books.cleanUp();
      assertEquals(0, f.books.estimatedSize());
      assertTrue(f.blobs.estimatedSize() > 0, "only that cache");
    }
  }

  @Test
  void theFaviconIsServed() throws Exception {
    try (Fixture f = Fixture.start()) {
      HttpResponse<String> icon = f.get("/favicon.ico");
      assertEquals(200, icon.statusCode());
      assertEquals("image/svg+xml", icon.headers().firstValue("Content-Type").orElseThrow());
      assertTrue(icon.body().startsWith("<svg"));
    }
  }
}
