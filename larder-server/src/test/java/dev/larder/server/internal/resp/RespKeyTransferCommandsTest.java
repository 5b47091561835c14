package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * COPY, MOVE, RENAMENX, SWAPDB, RANDOMKEY, EXPIRETIME and PEXPIRETIME through the real decoder and
 * handler; the error lines are redis-server 7.0.15's.
 */
class RespKeyTransferCommandsTest {
  private final TestServer server = new TestServer();
  private final TestServer.Connection c = server.resp();

  @AfterEach
  void close() {
    server.close();
  }

  @Test
  void copyKeepsTypeAndExpiryAndHonoursReplaceAndDb() {
    c.cmd("HSET", "h", "f", "v");
    c.cmd("PEXPIRE", "h", "5000");
    assertEquals(":1\r\n", c.cmd("COPY", "h", "h2"));
    assertEquals("+hash\r\n", c.cmd("TYPE", "h2"));
    assertEquals(":5000\r\n", c.cmd("PTTL", "h2"));
    c.cmd("SET", "s", "x");
    assertEquals(":0\r\n", c.cmd("COPY", "s", "h2"), "the destination exists");
    assertEquals(":1\r\n", c.cmd("COPY", "s", "h2", "REPLACE"));
    assertEquals("$1\r\nx\r\n", c.cmd("GET", "h2"));
    assertEquals(":-1\r\n", c.cmd("PTTL", "h2"), "the source's lack of expiry replaces it");
    assertEquals(":1\r\n", c.cmd("COPY", "s", "s", "DB", "3"));
    assertEquals(":0\r\n", c.cmd("COPY", "missing", "x"));
    c.cmd("SELECT", "3");
    assertEquals("$1\r\nx\r\n", c.cmd("GET", "s"));
    c.cmd("SELECT", "0");
    assertEquals("-ERR source and destination objects are the same\r\n", c.cmd("COPY", "s", "s"));
    assertEquals("-ERR DB index is out of range\r\n", c.cmd("COPY", "s", "t", "DB", "16"));
    assertEquals(
        "-ERR value is not an integer or out of range\r\n", c.cmd("COPY", "s", "t", "DB", "x"));
    assertEquals("-ERR syntax error\r\n", c.cmd("COPY", "s", "t", "FOO"));
    assertEquals("-ERR syntax error\r\n", c.cmd("COPY", "s", "t", "DB"));
  }

  @Test
  void moveTakesTheKeyToAnotherDatabaseUnlessThere() {
    c.cmd("SET", "k", "v", "EX", "100");
    assertEquals(":1\r\n", c.cmd("MOVE", "k", "1"));
    assertEquals(":0\r\n", c.cmd("EXISTS", "k"));
    assertEquals(":0\r\n", c.cmd("MOVE", "k", "1"), "absent here");
    c.cmd("SELECT", "1");
    assertEquals(":100\r\n", c.cmd("TTL", "k"));
    c.cmd("SET", "other", "mine");
    c.cmd("SELECT", "0");
    c.cmd("SET", "other", "theirs");
    assertEquals(":0\r\n", c.cmd("MOVE", "other", "1"), "present there");
    assertEquals("$6\r\ntheirs\r\n", c.cmd("GET", "other"));
    assertEquals("-ERR source and destination objects are the same\r\n", c.cmd("MOVE", "k", "0"));
    assertEquals("-ERR DB index is out of range\r\n", c.cmd("MOVE", "k", "-1"));
  }

  @Test
  void renamenxRefusesAnExistingTarget() {
    assertEquals("-ERR no such key\r\n", c.cmd("RENAMENX", "a", "b"));
    c.cmd("SET", "a", "1");
    c.cmd("SET", "b", "2");
    assertEquals(":0\r\n", c.cmd("RENAMENX", "a", "b"));
    assertEquals(":0\r\n", c.cmd("RENAMENX", "a", "a"));
    assertEquals(":1\r\n", c.cmd("RENAMENX", "a", "c"));
    assertEquals("$1\r\n1\r\n", c.cmd("GET", "c"));
    assertEquals(":0\r\n", c.cmd("EXISTS", "a"));
  }

  @Test
  void swapdbExchangesEveryKey() {
    c.cmd("SET", "a", "0");
    c.cmd("SET", "both", "zero", "PX", "9000");
    c.cmd("SELECT", "5");
    c.cmd("HSET", "h", "f", "5");
    c.cmd("SET", "both", "five");
    assertEquals("+OK\r\n", c.cmd("SWAPDB", "0", "5"));
    assertEquals("$4\r\nzero\r\n", c.cmd("GET", "both"));
    assertEquals(":9000\r\n", c.cmd("PTTL", "both"));
    assertEquals("$1\r\n0\r\n", c.cmd("GET", "a"));
    assertEquals(":0\r\n", c.cmd("EXISTS", "h"));
    c.cmd("SELECT", "0");
    assertEquals("$4\r\nfive\r\n", c.cmd("GET", "both"));
    assertEquals("$1\r\n5\r\n", c.cmd("HGET", "h", "f"));
    assertEquals(":2\r\n", c.cmd("DBSIZE"));
    assertEquals("+OK\r\n", c.cmd("SWAPDB", "3", "3"));
    assertEquals("-ERR invalid first DB index\r\n", c.cmd("SWAPDB", "x", "1"));
    assertEquals("-ERR invalid second DB index\r\n", c.cmd("SWAPDB", "1", "x"));
    assertEquals("-ERR DB index is out of range\r\n", c.cmd("SWAPDB", "1", "16"));
  }

  @Test
  void randomkeyDrawsFromTheLiveKeysOfTheDatabase() {
    assertEquals("$-1\r\n", c.cmd("RANDOMKEY"));
    c.cmd("SET", "a", "1");
    c.cmd("SET", "b", "1");
    c.cmd("SET", "c", "1");
    c.cmd("SET", "gone", "1", "PX", "10");
    server.now.addAndGet(10);
    c.cmd("SELECT", "2");
    c.cmd("SET", "elsewhere", "1");
    c.cmd("SELECT", "0");
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      seen.add(c.cmd("RANDOMKEY"));
    }
    assertEquals(Set.of("$1\r\na\r\n", "$1\r\nb\r\n", "$1\r\nc\r\n"), seen);
  }

  @Test
  void expiretimeIsTheAbsoluteDeadline() {
    assertEquals(":-2\r\n", c.cmd("EXPIRETIME", "k"));
    c.cmd("SET", "k", "v");
    assertEquals(":-1\r\n", c.cmd("PEXPIRETIME", "k"));
    c.cmd("PEXPIREAT", "k", Long.toString(TestServer.START + 12_345));
    assertEquals(":" + (TestServer.START + 12_345) + "\r\n", c.cmd("PEXPIRETIME", "k"));
    assertEquals(":" + (TestServer.START + 12_345) / 1000 + "\r\n", c.cmd("EXPIRETIME", "k"));
    assertTrue(c.cmd("COMMAND", "INFO", "expiretime").contains("@keyspace"));
  }
}
