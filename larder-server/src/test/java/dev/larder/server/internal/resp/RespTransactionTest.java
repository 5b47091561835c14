package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.server.internal.TestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** MULTI, EXEC, DISCARD and WATCH with Redis's semantics. */
class RespTransactionTest {
  private final TestServer server = new TestServer();
  private final TestServer.Connection c = server.resp();
  private final TestServer.Connection other = server.resp();

  @AfterEach
  void close() {
    server.close();
  }

  @Test
  void execRunsTheQueueAndKeepsGoingAfterRuntimeErrors() {
    assertEquals("+OK\r\n", c.cmd("MULTI"));
    assertEquals("+QUEUED\r\n", c.cmd("SET", "a", "x"));
    assertEquals("+QUEUED\r\n", c.cmd("INCR", "a"));
    assertEquals("+QUEUED\r\n", c.cmd("SET", "b", "1"));
    assertEquals("$-1\r\n", other.cmd("GET", "b"), "nothing runs before EXEC");
    assertEquals(
        "*3\r\n+OK\r\n-ERR value is not an integer or out of range\r\n+OK\r\n", c.cmd("EXEC"));
    assertEquals("$1\r\n1\r\n", other.cmd("GET", "b"));
  }

  @Test
  void queueingErrorsAbortWithExecabort() {
    c.cmd("MULTI");
    assertEquals("-ERR unknown command 'NOPE', with args beginning with: \r\n", c.cmd("NOPE"));
    assertEquals("+QUEUED\r\n", c.cmd("SET", "a", "1"));
    assertEquals("-EXECABORT Transaction discarded because of previous errors.\r\n", c.cmd("EXEC"));
    assertEquals("$-1\r\n", c.cmd("GET", "a"));
    c.cmd("MULTI");
    assertEquals("-ERR wrong number of arguments for 'get' command\r\n", c.cmd("GET"));
    assertEquals("-EXECABORT Transaction discarded because of previous errors.\r\n", c.cmd("EXEC"));
  }

  @Test
  void discardAndMisuse() {
    assertEquals("-ERR EXEC without MULTI\r\n", c.cmd("EXEC"));
    assertEquals("-ERR DISCARD without MULTI\r\n", c.cmd("DISCARD"));
    c.cmd("MULTI");
    assertEquals("-ERR MULTI calls can not be nested\r\n", c.cmd("MULTI"));
    assertEquals("-ERR WATCH inside MULTI is not allowed\r\n", c.cmd("WATCH", "a"));
    c.cmd("SET", "a", "1");
    assertEquals("+OK\r\n", c.cmd("DISCARD"));
    assertEquals("$-1\r\n", c.cmd("GET", "a"));
  }

  @Test
  void watchAbortsWhenAWatchedKeyChanges() {
    c.cmd("SET", "w", "1");
    assertEquals("+OK\r\n", c.cmd("WATCH", "w", "absent"));
    other.cmd("SET", "w", "1");
    c.cmd("MULTI");
    c.cmd("SET", "r", "ran");
    assertEquals("*-1\r\n", c.cmd("EXEC"), "a rewrite of the same value still counts");
    assertEquals("$-1\r\n", c.cmd("GET", "r"));

    c.cmd("WATCH", "absent");
    other.cmd("SET", "absent", "now");
    c.cmd("MULTI");
    c.cmd("SET", "r", "ran");
    assertEquals("*-1\r\n", c.cmd("EXEC"), "creation of a watched absent key");

    c.cmd("WATCH", "w");
    other.cmd("GET", "w");
    c.cmd("MULTI");
    c.cmd("SET", "r", "ran");
    assertEquals("*1\r\n+OK\r\n", c.cmd("EXEC"), "reads do not abort");

    c.cmd("WATCH", "w");
    c.cmd("UNWATCH");
    other.cmd("DEL", "w");
    c.cmd("MULTI");
    c.cmd("INCR", "n");
    assertEquals("*1\r\n:1\r\n", c.cmd("EXEC"), "UNWATCH forgets");
  }
}
