package dev.larder.server.internal.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * HTTP sent to the RESP or memcached port (what a web page can make a browser do) closes the
 * connection before any of it runs: Redis's rule on RESP (a command named POST or Host:, any case),
 * memcached's on its port (an unknown command whose last word starts with HTTP/), and Redis's there
 * too. A possible attack is logged, at most once a minute.
 */
class CrossProtocolTest {
  private static final String BROWSER_POST =
      """
      POST / HTTP/1.1\r
      Host: 127.0.0.1:6379\r
      Content-Type: text/plain\r
      Content-Length: 30\r
      \r
      """;
  private final TestServer server = new TestServer();
  private final Logger log = Logger.getLogger(CrossProtocolGuard.class.getName());
  private final List<LogRecord> logged = new ArrayList<>();
  private final Handler capture =
      new Handler() {
        @Override
        public void publish(LogRecord r) {
          logged.add(r);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  @BeforeEach
  void listen() {
    log.addHandler(capture);
  }

  @AfterEach
  void close() {
    log.removeHandler(capture);
    server.close();
  }

  @Test
  void anHttpPostToTheRespPortRunsNothingAndCloses() {
    TestServer.Connection c = server.resp();
    assertEquals("", c.raw(BROWSER_POST + "SET pwn 1\r\nSET pwn2 1\r\n"));
    assertFalse(c.channel.isOpen());
    assertEquals("$-1\r\n", server.resp().cmd("GET", "pwn"));
    assertEquals(1, logged.size(), "one warning");
    assertTrue(
        logged.getFirst().getMessage().contains("cross protocol"), logged.getFirst().getMessage());
  }

  @Test
  void aHostLineOrAPostCommandClosesTheRespConnection() {
    TestServer.Connection c = server.resp();
    c.raw("PING\r\nhost: x\r\n");
    assertFalse(c.channel.isOpen());
    TestServer.Connection d = server.resp();
    assertEquals("", d.cmd("post"));
    assertFalse(d.channel.isOpen());
    TestServer.Connection e = server.resp();
    assertEquals("-ERR unknown command 'hostx', with args beginning with: \r\n", e.cmd("hostx"));
    assertTrue(e.channel.isOpen());
    assertEquals(1, logged.size(), "rate-limited to one a minute");
  }

  @Test
  void httpToTheMemcachedPortClosesAsMemcachedDoes() {
    TestServer.Connection c = server.memcache();
    assertEquals("", c.raw(BROWSER_POST + "set pwn 0 0 1\r\n1\r\n"));
    assertFalse(c.channel.isOpen());
    TestServer.Connection get = server.memcache();
    assertEquals("END\r\n", get.raw("get pwn\r\n"));
    assertEquals("END\r\n", get.raw("get k HTTP/1.1\r\n"), "a get of a key named so is served");
    TestServer.Connection d = server.memcache();
    d.raw("GET / HTTP/1.1\r\n");
    assertFalse(d.channel.isOpen());
    TestServer.Connection e = server.memcache();
    e.raw("Host: 127.0.0.1:11211\r\n");
    assertFalse(e.channel.isOpen(), "Redis's rule on memcached's port too");
    assertEquals(1, logged.size());
  }
}
