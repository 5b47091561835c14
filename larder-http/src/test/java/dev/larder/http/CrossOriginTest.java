package dev.larder.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Requests that change data are refused unless addressed to the server by its own address and, when
 * they say where they come from, from the console's own origin (cross-site requests and DNS
 * rebinding); no response carries CORS headers. Raw HTTP, so the Host header is the test's.
 */
@Timeout(60)
class CrossOriginTest {

  private static String send(Fixture f, String method, String path, String... headers)
      throws IOException {
    StringBuilder request = new StringBuilder(method + " " + path + " HTTP/1.1\r\n");
    for (String h : headers) {
      request.append(h).append("\r\n");
    }
    request.append("Content-Length: 1\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nx");
    try (Socket socket = new Socket(f.server.address().getAddress(), f.server.port())) {
      socket.setSoTimeout(5_000);
      OutputStream out = socket.getOutputStream();
      out.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream answer = new ByteArrayOutputStream();
      in.transferTo(answer);
      return answer.toString(StandardCharsets.ISO_8859_1);
    }
  }

  private static String own(Fixture f) {
    return "Host: 127.0.0.1:" + f.server.port();
  }

  @Test
  void aChangeFromAnotherHostNameIsRefused() throws Exception {
    try (Fixture f = Fixture.start().traffic()) {
      String rebound =
          send(
              f,
              "PUT",
              "/api/caches/books/entries/planted",
              "Host: attacker.example:" + f.server.port());
      assertTrue(rebound.startsWith("HTTP/1.1 403"), rebound);
      assertTrue(rebound.contains("is not this server's address"), rebound);
      String deleted =
          send(f, "DELETE", "/api/caches/books/entries/book-1", "Host: attacker.example");
      assertTrue(deleted.startsWith("HTTP/1.1 403"), deleted);
      assertTrue(
          send(f, "DELETE", "/api/caches/books/entries", "Host: 127.0.0.2")
              .startsWith("HTTP/1.1 403"),
          "another loopback address is not this one");
      assertTrue(
          send(f, "PUT", "/api/caches/books/entries/planted").startsWith("HTTP/1.1 4"),
          "no Host at all");
      assertNull(f.books.getIfPresent("planted"));
      assertEquals("title of book 1", f.books.getIfPresent("book-1"));
      assertTrue(f.books.estimatedSize() > 0);
    }
  }

  @Test
  void aChangeFromAnotherOriginIsRefused() throws Exception {
    try (Fixture f = Fixture.start().traffic()) {
      String port = Integer.toString(f.server.port());
      for (String origin :
          new String[] {
            "http://evil.example",
            "null",
            "http://127.0.0.1:" + (f.server.port() + 1),
            "http://localhost:" + port
          }) {
        String answer =
            send(f, "PUT", "/api/caches/books/entries/planted", own(f), "Origin: " + origin);
        assertTrue(answer.startsWith("HTTP/1.1 403"), origin + ": " + answer);
      }
      String crossSite =
          send(
              f,
              "DELETE",
              "/api/caches/books/entries/book-1",
              own(f),
              "Sec-Fetch-Site: cross-site");
      assertTrue(crossSite.startsWith("HTTP/1.1 403"), crossSite);
      assertNull(f.books.getIfPresent("planted"));
      assertEquals("title of book 1", f.books.getIfPresent("book-1"));
    }
  }

  @Test
  void theConsolesOwnRequestsAndScriptsWithoutOriginPass() throws Exception {
    try (Fixture f = Fixture.start(b -> b.hostNames(Set.of("Cache.Example"))).traffic()) {
      String port = Integer.toString(f.server.port());
      assertTrue(
          send(
                  f,
                  "PUT",
                  "/api/caches/books/entries/a",
                  own(f),
                  "Origin: http://127.0.0.1:" + port,
                  "Sec-Fetch-Site: same-origin")
              .startsWith("HTTP/1.1 204"),
          "the console's own origin");
      assertTrue(
          send(
                  f,
                  "PUT",
                  "/api/caches/books/entries/b",
                  "Host: localhost:" + port,
                  "Origin: http://localhost:" + port)
              .startsWith("HTTP/1.1 204"),
          "localhost");
      assertTrue(
          send(f, "PUT", "/api/caches/books/entries/c", "Host: localhost:9000")
              .startsWith("HTTP/1.1 204"),
          "a script through a tunnel (another port), no Origin");
      assertTrue(
          send(
                  f,
                  "PUT",
                  "/api/caches/books/entries/d",
                  "Host: cache.example:" + port,
                  "Origin: http://cache.example:" + port)
              .startsWith("HTTP/1.1 204"),
          "a name the operator listed");
      for (String key : new String[] {"a", "b", "c", "d"}) {
        assertEquals("x", f.books.getIfPresent(key), key);
      }
    }
  }

  @Test
  void noResponseLetsAnotherOriginReadOrWrite() throws Exception {
    try (Fixture f = Fixture.start().traffic()) {
      String preflight =
          send(
              f,
              "OPTIONS",
              "/api/caches/books/entries/a",
              own(f),
              "Origin: http://evil.example",
              "Access-Control-Request-Method: PUT");
      String read = send(f, "GET", "/api/caches", own(f), "Origin: http://evil.example");
      assertTrue(read.startsWith("HTTP/1.1 200"), read);
      for (String answer : new String[] {preflight, read}) {
        assertFalse(answer.toLowerCase(Locale.ROOT).contains("access-control-"), answer);
      }
      assertFalse(preflight.startsWith("HTTP/1.1 2"), preflight);
    }
  }

  @Test
  void withAPasswordTheConsolesActionsNeedIt() throws Exception {
    try (Fixture f = Fixture.start(b -> b.password("s3cret")).traffic()) {
      String anonymous = send(f, "DELETE", "/api/caches/books/entries", own(f));
      assertTrue(anonymous.startsWith("HTTP/1.1 401"), anonymous);
      assertTrue(f.books.estimatedSize() > 0, "not cleared");
      String bearer =
          send(
              f,
              "DELETE",
              "/api/caches/books/entries/book-2",
              own(f),
              "Authorization: Basic "
                  + Base64.getEncoder().encodeToString(":s3cret".getBytes(StandardCharsets.UTF_8)));
      assertTrue(bearer.startsWith("HTTP/1.1 204"), bearer);
      assertNull(f.books.getIfPresent("book-2"));
    }
  }
}
