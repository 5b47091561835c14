package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.epoll.Epoll;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Limits on a real server: connections over the limit are refused with the protocol's line, idle
 * connections are closed, an oversized request closes only its own connection, a port in use can
 * fall back to a free one, and close() stops the server.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServerLimitsTest {

  private static LarderServer start(String... settings) throws IOException {
    Map<String, String> m = new java.util.HashMap<>(Map.of("resp-port", "0", "memcache-port", "0"));
    for (int i = 0; i < settings.length; i += 2) {
      m.put(settings[i], settings[i + 1]);
    }
    return LarderServer.start(ServerConfig.of(m));
  }

  private static Socket connect(int port) throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
    s.setSoTimeout(30_000);
    return s;
  }

  /** Reads until the peer closes (or n bytes); returns what came. */
  private static String readUntilClosed(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[4096];
    int n;
    while ((n = in.read(buf)) >= 0) {
      out.write(buf, 0, n);
    }
    return out.toString(StandardCharsets.ISO_8859_1);
  }

  private static String roundTrip(Socket s, String request, int replyBytes) throws IOException {
    OutputStream out = s.getOutputStream();
    out.write(request.getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
    byte[] reply = s.getInputStream().readNBytes(replyBytes);
    return new String(reply, StandardCharsets.ISO_8859_1);
  }

  @Test
  void connectionsOverTheLimitAreRefused() throws Exception {
    try (LarderServer server = start("max-connections", "3")) {
      List<Socket> open = new ArrayList<>();
      try {
        for (int i = 0; i < 3; i++) {
          Socket s = connect(server.respPort());
          open.add(s);
          assertEquals("+PONG\r\n", roundTrip(s, "PING\r\n", 7));
        }
        try (Socket refused = connect(server.respPort())) {
          assertEquals("-ERR max number of clients reached\r\n", readUntilClosed(refused));
        }
        try (Socket refused = connect(server.memcachePort())) {
          assertEquals("ERROR Too many open connections\r\n", readUntilClosed(refused));
        }
        open.removeFirst().close();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (server.connections() > 2 && System.nanoTime() < deadline) {
          Thread.sleep(10);
        }
        try (Socket again = connect(server.memcachePort())) {
          assertEquals("VERSION 1.6.0\r\n", roundTrip(again, "version\r\n", 15));
        }
      } finally {
        for (Socket s : open) {
          s.close();
        }
      }
    }
  }

  @Test
  void idleConnectionsAreClosed() throws Exception {
    try (LarderServer server = start("idle-timeout-seconds", "1");
        Socket s = connect(server.respPort())) {
      assertEquals("+PONG\r\n", roundTrip(s, "PING\r\n", 7));
      assertEquals("", readUntilClosed(s), "closed by the server after 1 s idle");
    }
  }

  @Test
  void anOversizedRequestClosesOnlyItsConnection() throws Exception {
    try (LarderServer server = start("max-request-bytes", "64kb", "max-item-bytes", "1kb");
        Socket bystander = connect(server.respPort());
        Socket hostile = connect(server.respPort());
        Socket memcache = connect(server.memcachePort())) {
      hostile.getOutputStream().write("*1\r\n$100000\r\n".getBytes(StandardCharsets.US_ASCII));
      assertEquals("-ERR Protocol error: invalid bulk length\r\n", readUntilClosed(hostile));
      assertEquals("+PONG\r\n", roundTrip(bystander, "PING\r\n", 7));
      String tooLarge = "set k 0 0 5000\r\n" + "x".repeat(5000) + "\r\nversion\r\n";
      assertEquals(
          "SERVER_ERROR object too large for cache\r\nVERSION 1.6.0\r\n",
          roundTrip(memcache, tooLarge, 56));
    }
  }

  /** Both transports: a taken port is an IOException, or a free port when asked. */
  @ParameterizedTest
  @ValueSource(strings = {"nio", "auto"})
  void aTakenPortFallsBackToAFreeOneWhenAsked(String transport) throws Exception {
    try (LarderServer first = start("io-transport", transport, "io-threads", "1")) {
      assertEquals(
          transport.equals("nio") || !Epoll.isAvailable() ? "nio" : "epoll", first.transport());
      ServerConfig same =
          ServerConfig.of(
              Map.of(
                  "resp-port",
                  Integer.toString(first.respPort()),
                  "memcache-port",
                  Integer.toString(first.memcachePort()),
                  "io-transport",
                  transport));
      assertTrue(assertThrowsIo(same));
      try (LarderServer second = LarderServer.start(same, true)) {
        assertTrue(second.respPort() != first.respPort() && second.respPort() > 0);
        try (Socket s = connect(second.respPort())) {
          assertEquals("+PONG\r\n", roundTrip(s, "PING\r\n", 7));
        }
        try (Socket s = connect(second.memcachePort())) {
          assertEquals("VERSION 1.6.0\r\n", roundTrip(s, "version\r\n", 15));
        }
      }
    }
  }

  private static boolean assertThrowsIo(ServerConfig config) {
    try {
      LarderServer.start(config).close();
      return false;
    } catch (IOException expected) {
      return true;
    }
  }

  @Test
  void closeStopsAcceptingAndEndsConnections() throws Exception {
    LarderServer server = start();
    int port = server.respPort();
    try (Socket s = connect(port)) {
      assertEquals("+OK\r\n", roundTrip(s, "SET k v\r\n", 5));
      server.close();
      assertEquals("", readUntilClosed(s));
    }
    server.close();
    boolean refused;
    try {
      new Socket(InetAddress.getLoopbackAddress(), port).close();
      refused = false;
    } catch (IOException e) {
      refused = true;
    }
    assertTrue(refused, "nothing listens after close");
  }
}
