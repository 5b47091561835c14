package dev.larder.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** GET, PUT and DELETE of entries, and the errors for what they refuse. */
@Timeout(60)
class EntryRestTest {

  private static String path(String cache, String key) {
    return "/api/caches/"
        + cache
        + "/entries/"
        + URLEncoder.encode(key, StandardCharsets.UTF_8).replace("+", "%20");
  }

  @Test
  void textRoundTripWithAwkwardKeys() throws Exception {
    try (Fixture f = Fixture.start()) {
      for (String key : new String[] {"plain", "with/slash", "spaced key", "ünïcødé+plus"}) {
        String value = "value of " + key + " ✓";
        HttpResponse<String> put =
            f.send(
                HttpRequest.newBuilder(f.uri(path("books", key)))
                    .header("Content-Type", "text/plain; charset=utf-8")
                    .PUT(BodyPublishers.ofString(value, StandardCharsets.UTF_8)));
        assertEquals(204, put.statusCode(), put.body());
        assertEquals(value, f.books.getIfPresent(key), "the cache holds what was PUT");

        HttpResponse<String> get = f.get(path("books", key));
        assertEquals(200, get.statusCode());
        assertEquals(
            "text/plain; charset=utf-8", get.headers().firstValue("Content-Type").orElseThrow());
        assertEquals(value, get.body());

        HttpResponse<String> delete =
            f.send(HttpRequest.newBuilder(f.uri(path("books", key))).DELETE());
        assertEquals(204, delete.statusCode());
        assertNull(f.books.getIfPresent(key));
        assertEquals(404, f.get(path("books", key)).statusCode());
        assertEquals(
            404, f.send(HttpRequest.newBuilder(f.uri(path("books", key))).DELETE()).statusCode());
      }
    }
  }

  @Test
  void bytesRoundTripAsOctetStream() throws Exception {
    try (Fixture f = Fixture.start()) {
      byte[] value = new byte[3000];
      new Random(7).nextBytes(value);
      HttpResponse<String> put =
          f.send(
              HttpRequest.newBuilder(f.uri(path("blobs", "b1")))
                  .header("Content-Type", "application/octet-stream")
                  .PUT(BodyPublishers.ofByteArray(value)));
      assertEquals(204, put.statusCode(), put.body());
      assertArrayEquals(value, f.blobs.getIfPresent("b1"));
      HttpResponse<byte[]> get =
          f.client.send(
              HttpRequest.newBuilder(f.uri(path("blobs", "b1"))).build(),
              HttpResponse.BodyHandlers.ofByteArray());
      assertEquals(200, get.statusCode());
      assertEquals(
          "application/octet-stream", get.headers().firstValue("Content-Type").orElseThrow());
      assertArrayEquals(value, get.body());

      HttpResponse<String> untyped =
          f.send(
              HttpRequest.newBuilder(f.uri(path("blobs", "b2")))
                  .PUT(BodyPublishers.ofByteArray(new byte[] {0, 1, 2})));
      assertEquals(204, untyped.statusCode(), "no Content-Type is taken as the cache's");
      assertArrayEquals(new byte[] {0, 1, 2}, f.blobs.getIfPresent("b2"));

      HttpResponse<String> overBound =
          f.send(
              HttpRequest.newBuilder(f.uri(path("blobs", "b3")))
                  .header("Content-Type", "application/octet-stream")
                  .PUT(BodyPublishers.ofByteArray(new byte[100 << 10])));
      assertEquals(400, overBound.statusCode(), "a value that can never fit 64 KiB");
      assertTrue(overBound.body().contains("refused the value"), overBound.body());
      assertNull(f.blobs.getIfPresent("b3"));
    }
  }

  @Test
  void refusalsAreClearAndLeaveTheCacheUnchanged() throws Exception {
    try (Fixture f = Fixture.start(b -> b.maxBodyBytes(4096))) {
      f.books.put("kept", "original");

      HttpResponse<String> json =
          f.send(
              HttpRequest.newBuilder(f.uri(path("books", "kept")))
                  .header("Content-Type", "application/json")
                  .PUT(BodyPublishers.ofString("\"x\"")));
      assertEquals(415, json.statusCode());
      assertTrue(json.body().contains("text/plain"), json.body());

      HttpResponse<String> latin =
          f.send(
              HttpRequest.newBuilder(f.uri(path("books", "kept")))
                  .header("Content-Type", "text/plain; charset=iso-8859-1")
                  .PUT(BodyPublishers.ofString("x")));
      assertEquals(415, latin.statusCode());

      HttpResponse<String> notUtf8 =
          f.send(
              HttpRequest.newBuilder(f.uri(path("books", "kept")))
                  .header("Content-Type", "text/plain")
                  .PUT(BodyPublishers.ofByteArray(new byte[] {(byte) 0xC3, (byte) 0x28})));
      assertEquals(400, notUtf8.statusCode());
      assertTrue(notUtf8.body().contains("UTF-8"), notUtf8.body());

      HttpResponse<String> tooBig =
          f.send(
              HttpRequest.newBuilder(f.uri(path("books", "kept")))
                  .header("Content-Type", "text/plain")
                  .PUT(BodyPublishers.ofString("x".repeat(5000))));
      assertEquals(413, tooBig.statusCode());
      assertEquals("original", f.books.getIfPresent("kept"), "nothing refused was stored");

      HttpResponse<String> post =
          f.send(
              HttpRequest.newBuilder(f.uri(path("books", "kept")))
                  .POST(BodyPublishers.ofString("x")));
      assertEquals(405, post.statusCode());
      assertEquals("GET, PUT, DELETE", post.headers().firstValue("Allow").orElseThrow());

      HttpResponse<String> noRest = f.get(path("counters", "1"));
      assertEquals(405, noRest.statusCode(), "counters was added without formats");
      assertTrue(noRest.body().contains("without key and value formats"), noRest.body());

      assertEquals(404, f.get(path("nope", "k")).statusCode());
      assertEquals(404, f.get("/api/caches/books/other/k").statusCode());
      assertEquals(404, f.get("/nowhere").statusCode());
      assertEquals(200, f.get(path("books", "kept")).statusCode(), "still serving");
    }
  }

  @Test
  void concurrentPutsFromManyConnectionsAreAllStored() throws Exception {
    try (Fixture f = Fixture.start()) {
      List<CompletableFuture<HttpResponse<String>>> puts = new ArrayList<>();
      for (int i = 0; i < 400; i++) {
        puts.add(
            f.client.sendAsync(
                HttpRequest.newBuilder(f.uri(path("books", "k" + i)))
                    .timeout(Duration.ofSeconds(20))
                    .PUT(BodyPublishers.ofString("v" + i))
                    .build(),
                HttpResponse.BodyHandlers.ofString()));
      }
      for (CompletableFuture<HttpResponse<String>> put : puts) {
        assertEquals(204, put.get(30, TimeUnit.SECONDS).statusCode());
      }
      for (int i = 0; i < 400; i++) {
        assertEquals("v" + i, f.books.getIfPresent("k" + i), "no acknowledged PUT is lost");
      }
      assertEquals(400, f.books.estimatedSize());
    }
  }

  @Test
  void longKeysAreParsedAndBadOnesRefused() throws Exception {
    try (Fixture f = Fixture.start()) {
      f.directory.add("numbers", f.counters, KeyFormat.longs(), ValueFormat.utf8());
      f.counters.put(42L, "forty-two");
      assertEquals("forty-two", f.get(path("numbers", "42")).body());
      HttpResponse<String> bad = f.get(path("numbers", "forty"));
      assertEquals(400, bad.statusCode());
      assertTrue(bad.body().contains("not a decimal long"), bad.body());
    }
  }
}
