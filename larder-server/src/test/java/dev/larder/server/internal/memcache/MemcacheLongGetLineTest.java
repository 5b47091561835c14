package dev.larder.server.internal.memcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A retrieval line of many keys is served however long it is (memcached 1.6.18 serves a 187 KB get
 * line): its keys are looked up as they arrive, so the line is never held whole; other commands
 * keep the line cap.
 */
class MemcacheLongGetLineTest {
  private final TestServer server = new TestServer();
  private final TestServer.Connection c = server.memcache();

  @AfterEach
  void close() {
    server.close();
  }

  /** Returns " key:0 key:1 ..." with {@code n} keys: the rest of a long get line. */
  static String keys(int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append(" key:").append(i);
    }
    return sb.toString();
  }

  @Test
  void aGetOfTwentyThousandKeysOnOneLineIsServed() {
    c.raw("set key:7 0 0 1\r\na\r\nset key:19999 3 0 2\r\nbc\r\n");
    String line = "get" + keys(20_000) + "\r\n";
    assertTrue(line.length() > 187_000, "as long as the line memcached was seen to serve");
    assertEquals("VALUE key:7 0 1\r\na\r\nVALUE key:19999 3 2\r\nbc\r\nEND\r\n", c.raw(line));
    assertTrue(c.channel.isOpen());
    String gets = c.raw("gets" + keys(20_000) + "\r\n");
    assertTrue(
        gets.matches("VALUE key:7 0 1 \\d+\r\na\r\nVALUE key:19999 3 2 \\d+\r\nbc\r\nEND\r\n"),
        gets);
    assertEquals(
        "VALUE key:7 0 1\r\na\r\nVALUE key:19999 3 2\r\nbc\r\nEND\r\n",
        c.raw("gat 100" + keys(20_000) + "\r\n"));
    assertEquals("VERSION 1.6.0\r\n", c.raw("version\r\n"));
  }

  @Test
  void aLongGetLineArrivingInPiecesIsNeverHeldWhole() {
    c.raw("set key:5 0 0 1\r\na\r\n");
    byte[] line = ("get" + keys(200_000) + "\r\n").getBytes(StandardCharsets.US_ASCII);
    MemcacheDecoder decoder = c.channel.pipeline().get(MemcacheDecoder.class);
    StringBuilder replies = new StringBuilder();
    int maxHeld = 0;
    for (int from = 0; from < line.length; from += 1000) {
      int to = Math.min(line.length, from + 1000);
      replies.append(c.raw(java.util.Arrays.copyOfRange(line, from, to)));
      maxHeld = Math.max(maxHeld, decoder.buffered());
    }
    assertEquals("VALUE key:5 0 1\r\na\r\nEND\r\n", replies.toString());
    assertTrue(maxHeld < 2_000, "held at most a piece and a key, held " + maxHeld);
  }

  @Test
  void aBadKeyInALongGetLineIsAnErrorAndTheLineIsSkipped() {
    String line = "get" + keys(20_000) + " " + "k".repeat(251) + keys(10) + "\r\nversion\r\n";
    String reply = c.raw(line);
    assertEquals("CLIENT_ERROR bad command line format\r\nVERSION 1.6.0\r\n", reply);
  }

  @Test
  void otherCommandsKeepTheLineCap() {
    assertEquals("CLIENT_ERROR line too long\r\n", c.raw("touch" + keys(20_000) + "\r\n"));
    assertFalse(c.channel.isOpen());
  }
}
