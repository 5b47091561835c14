package dev.larder.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Passwords are enforced; bad requests get errors and never stop the server. */
@Timeout(60)
class SecurityAndRobustnessTest {

  private static String basic(String user, String password) {
    return "Basic "
        + Base64.getEncoder()
            .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void passwordIsRequiredOnEveryEndpoint() throws Exception {
    try (Fixture f = Fixture.start(b -> b.password("s3cret")).traffic()) {
      for (String path :
          new String[] {
            "/",
            "/metrics",
            "/api/caches",
            "/api/caches/books/entries/book-1",
            "/console/console.js",
            "/nowhere"
          }) {
        HttpResponse<String> none = f.get(path);
        assertEquals(401, none.statusCode(), path);
        assertTrue(
            none.headers().firstValue("WWW-Authenticate").orElseThrow().startsWith("Basic"), path);
        assertEquals(
            401,
            f.send(
                    HttpRequest.newBuilder(f.uri(path))
                        .header("Authorization", basic("admin", "wrong")))
                .statusCode(),
            path);
        assertEquals(
            401,
            f.send(HttpRequest.newBuilder(f.uri(path)).header("Authorization", "Bearer s3cre"))
                .statusCode(),
            path);
      }
      HttpResponse<String> put =
          f.send(
              HttpRequest.newBuilder(f.uri("/api/caches/books/entries/intruder"))
                  .PUT(HttpRequest.BodyPublishers.ofString("x")));
      assertEquals(401, put.statusCode());
      assertEquals(null, f.books.getIfPresent("intruder"), "a refused PUT stores nothing");

      assertEquals(
          200,
          f.send(
                  HttpRequest.newBuilder(f.uri("/api/caches"))
                      .header("Authorization", basic("anyone", "s3cret")))
              .statusCode());
      assertEquals(
          200,
          f.send(HttpRequest.newBuilder(f.uri("/metrics")).header("Authorization", "Bearer s3cret"))
              .statusCode());
      HttpResponse<String> entry =
          f.send(
              HttpRequest.newBuilder(f.uri("/api/caches/books/entries/book-1"))
                  .header("Authorization", basic("", "s3cret")));
      assertEquals("title of book 1", entry.body());
    }
  }

  @Test
  void listeningBeyondLoopbackNeedsAPassword() throws Exception {
    InetAddress any = InetAddress.getByName("0.0.0.0");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> LarderHttpServer.builder(new CacheDirectory()).bind(any).port(0).start());
    assertTrue(e.getMessage().contains("requires a password"), e.getMessage());
    assertTrue(LarderHttpConfig.defaults().bind().isLoopbackAddress());
    assertTrue(LarderHttpConfig.defaults().withPassword("p").toString().contains("password=set"));
    assertTrue(!LarderHttpConfig.defaults().withPassword("p").toString().contains("=p,"));
  }

  @Test
  void malformedRequestsGetErrorsAndTheServerCarriesOn() throws Exception {
    try (Fixture f = Fixture.start().traffic()) {
      assertTrue(raw(f, "GARBAGE\r\n\r\n").startsWith("HTTP/1.1 400"), "a bad request line");
      assertTrue(
          raw(f, "GET /api/caches HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n")
              .startsWith("HTTP/1.1 400"),
          "a header without a colon");
      String longHeader = "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(20_000) + "\r\n\r\n";
      assertTrue(raw(f, longHeader).startsWith("HTTP/1.1 431"), "headers over 16 KiB");
      assertTrue(
          raw(f, "GET /" + "a".repeat(5000) + " HTTP/1.1\r\nHost: x\r\n\r\n")
              .startsWith("HTTP/1.1 414"),
          "a request line over 4 KiB");
      assertTrue(
          raw(
                  f,
                  """
                  GET /api/caches/books/entries/%zz HTTP/1.1\r
                  Host: x\r
                  Connection: close\r
                  \r
                  """)
              .startsWith("HTTP/1.1 400"),
          "a bad escape");
      Random random = new Random(1);
      for (int i = 0; i < 200; i++) {
        byte[] noise = new byte[1 + random.nextInt(300)];
        random.nextBytes(noise);
        rawBytes(f, noise); // any answer, or a closed connection, will do
      }
      HttpResponse<String> after = f.get("/api/caches/books");
      assertEquals(200, after.statusCode(), "the server still answers");
      assertEquals(200, f.get("/api/caches/books/entries/book-2").statusCode());
    }
  }

  @Test
  void idleConnectionsAreClosed() throws Exception {
    try (Fixture f = Fixture.start(b -> b.idleTimeout(java.time.Duration.ofMillis(300)));
        Socket socket = new Socket(f.server.address().getAddress(), f.server.port())) {
      socket.setSoTimeout(20_000);
      assertEquals(-1, socket.getInputStream().read(), "the server closed the idle connection");
    }
  }

  @Test
  void sharesAnApplicationsEventLoopsAndLeavesThemRunning() throws Exception {
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try {
      CacheDirectory directory = new CacheDirectory();
      LarderHttpServer first =
          LarderHttpServer.builder(directory).port(0).eventLoopGroup(group).start();
      first.close();
      assertTrue(!group.isShuttingDown(), "the caller's event loops are the caller's to stop");
      try (LarderHttpServer second =
              LarderHttpServer.builder(directory).port(0).eventLoopGroup(group).start();
          java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient()) {
        HttpResponse<String> r =
            client.send(
                HttpRequest.newBuilder(second.uri().resolve("/api/caches")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
      }
    } finally {
      group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  @Test
  void consoleAssetsAreServedFromTheJar() throws Exception {
    try (Fixture f = Fixture.start()) {
      HttpResponse<String> page = f.get("/");
      assertEquals(200, page.statusCode());
      assertTrue(page.headers().firstValue("Content-Type").orElseThrow().startsWith("text/html"));
      assertTrue(page.body().contains("<script src=\"/console/console.js\">"));
      assertTrue(
          !page.body().contains("://cdn") && !page.body().contains("https://"),
          "nothing is fetched from elsewhere");
      for (String asset :
          new String[] {"/console/console.js", "/console/charts.js", "/console/console.css"}) {
        HttpResponse<String> r = f.get(asset);
        assertEquals(200, r.statusCode(), asset);
        assertTrue(r.body().length() > 500, asset);
      }
    }
  }

  private static String raw(Fixture f, String request) throws IOException {
    return new String(
        rawBytes(f, request.getBytes(StandardCharsets.ISO_8859_1)), StandardCharsets.ISO_8859_1);
  }

  /** Sends bytes on a fresh connection, half-closes it, and reads whatever comes back. */
  private static byte[] rawBytes(Fixture f, byte[] request) throws IOException {
    try (Socket socket = new Socket(f.server.address().getAddress(), f.server.port())) {
      socket.setSoTimeout(5_000);
      OutputStream out = socket.getOutputStream();
      out.write(request);
      out.flush();
      socket.shutdownOutput();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream answer = new ByteArrayOutputStream();
      in.transferTo(answer);
      return answer.toByteArray();
    } catch (java.net.SocketException e) {
      return new byte[0]; // the server closed first: acceptable for noise
    }
  }
}
