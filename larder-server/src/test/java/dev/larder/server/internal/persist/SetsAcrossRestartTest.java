package dev.larder.server.internal.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.server.internal.TestServer;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sets and sorted sets, small and large, with an expiry, come back after a restart with a log, from
 * the log alone and from a checkpoint followed by the log.
 */
class SetsAcrossRestartTest {
  private static final long START = TestServer.START;

  private static void write(TestServer.Connection c, int from, int to) {
    for (int i = from; i < to; i++) {
      c.cmd("SADD", "ints", Integer.toString(i));
      c.cmd("SADD", "big", "member-" + i);
      c.cmd("ZADD", "board", Double.toString(i * 1.5), "player-" + i);
    }
    c.cmd("SADD", "small", "a", "b");
    c.cmd("ZADD", "tiny", "1", "x", "-inf", "y");
    c.cmd("SREM", "big", "member-3");
    c.cmd("ZREM", "board", "player-4");
    c.cmd("ZINCRBY", "board", "1000", "player-5");
    c.cmd("EXPIRE", "small", "1000");
    c.cmd("SUNIONSTORE", "union", "small", "ints");
  }

  private static String state(TestServer.Connection c) {
    return String.join(
        "|",
        c.cmd("SCARD", "ints"),
        c.cmd("SCARD", "big"),
        c.cmd("SISMEMBER", "big", "member-3"),
        c.cmd("SMEMBERS", "small"),
        c.cmd("TTL", "small"),
        c.cmd("SCARD", "union"),
        c.cmd("ZCARD", "board"),
        c.cmd("ZRANGE", "board", "0", "4", "WITHSCORES"),
        c.cmd("ZRANGE", "board", "-1", "-1", "WITHSCORES"),
        c.cmd("ZRANGE", "tiny", "0", "-1", "WITHSCORES"),
        c.cmd("TYPE", "big"),
        c.cmd("TYPE", "board"));
  }

  @Test
  void fromTheLog(@TempDir Path dir) throws Exception {
    String before;
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      write(s.resp(), 0, 300);
      before = state(s.resp());
    }
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      assertEquals(before, state(s.resp()));
    }
    assertEquals(true, before.startsWith(":300\r\n|:299\r\n|:0\r\n|"), before);
  }

  @Test
  void fromACheckpointAndTheLog(@TempDir Path dir) throws Exception {
    String before;
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      write(s.resp(), 0, 200);
      assertEquals("+OK\r\n", s.resp().cmd("SAVE"));
      write(s.resp(), 200, 300);
      before = state(s.resp());
    }
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      assertEquals(before, state(s.resp()));
    }
  }
}
