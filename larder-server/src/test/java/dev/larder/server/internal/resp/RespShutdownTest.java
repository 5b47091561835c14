package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.server.internal.TestServer;
import org.junit.jupiter.api.Test;

/**
 * SHUTDOWN: refused inside MULTI with Redis's error (EXEC then aborts), its flags checked with
 * Redis 7.0's errors, and otherwise refused, the server going on serving.
 */
class RespShutdownTest {

  @Test
  void insideMultiIsRefusedAndAbortsTheTransaction() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection c = server.resp();
      assertEquals("+OK\r\n", c.cmd("MULTI"));
      assertEquals("+QUEUED\r\n", c.cmd("SET", "foo", "bar"));
      assertEquals("-ERR Command not allowed inside a transaction\r\n", c.cmd("SHUTDOWN"));
      assertEquals(
          "-EXECABORT Transaction discarded because of previous errors.\r\n", c.cmd("EXEC"));
      assertEquals("$-1\r\n", c.cmd("GET", "foo"));
    }
  }

  @Test
  void flagsAreCheckedThenTheCommandIsRefused() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection c = server.resp();
      String syntax = "-ERR syntax error\r\n";
      assertEquals(syntax, c.cmd("SHUTDOWN", "bogus"));
      assertEquals(syntax, c.cmd("SHUTDOWN", "SAVE", "NOSAVE"));
      assertEquals(syntax, c.cmd("SHUTDOWN", "ABORT", "NOW"));
      assertEquals("-ERR No shutdown in progress.\r\n", c.cmd("SHUTDOWN", "abort"));
      String refused = "-" + PersistenceCommands.SHUTDOWN_REFUSED + "\r\n";
      assertEquals(refused, c.cmd("SHUTDOWN"));
      assertEquals(refused, c.cmd("SHUTDOWN", "NOSAVE", "NOW", "FORCE"));
      assertEquals("+PONG\r\n", c.cmd("PING"));
    }
  }
}
