package dev.larder.server.internal.persist;

import static dev.larder.server.internal.TestServer.START;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.server.internal.TestServer;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commands that write several keys or whole values (COPY, MOVE, RENAMENX, SWAPDB, RESTORE,
 * BITOP) and the single-key ones added beside them (SETBIT, BITFIELD, GETSET, HSETNX, HINCRBYFLOAT)
 * go through the keyspace's logged writes: after a restart on the same directory, with no
 * checkpoint taken, the log alone gives back every key as the commands left it.
 */
class TransferCommandsRecoveryTest {
  @Test
  void everyChangeIsThereAfterARestart(@TempDir Path dir) throws Exception {
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      TestServer.Connection c = s.resp();
      c.cmd("HSET", "h", "f", "1");
      c.cmd("PEXPIRE", "h", "600000");
      c.cmd("COPY", "h", "copied", "DB", "3");
      c.cmd("SET", "m", "moved");
      c.cmd("MOVE", "m", "1");
      c.cmd("SET", "r", "renamed");
      c.cmd("RENAMENX", "r", "r2");
      c.cmd("SELECT", "5");
      c.cmd("SET", "in5", "five");
      c.cmd("SWAPDB", "5", "6");
      c.cmd("SELECT", "0");
      c.cmd("SET", "s", "text");
      String dump = c.cmd("DUMP", "s");
      String payload = dump.substring(dump.indexOf("\r\n") + 2, dump.length() - 2);
      c.cmd("RESTORE", "restored", "0", payload);
      c.cmd("SETBIT", "bits", "9", "1");
      c.cmd("BITOP", "NOT", "inverted", "bits");
      c.cmd("GETSET", "s", "replaced");
      c.cmd("HSETNX", "h", "g", "2");
      c.cmd("HINCRBYFLOAT", "h", "f", "0.5");
      c.cmd("BITFIELD", "bf", "SET", "u8", "0", "200", "INCRBY", "i8", "8", "-3");
    }
    try (TestServer s = new TestServer(Map.of(), dir, START + 1000)) {
      TestServer.Connection c = s.resp();
      assertEquals("*4\r\n$1\r\nf\r\n$3\r\n1.5\r\n$1\r\ng\r\n$1\r\n2\r\n", c.cmd("HGETALL", "h"));
      assertEquals(":0\r\n", c.cmd("EXISTS", "m"));
      assertEquals(":0\r\n", c.cmd("EXISTS", "r"));
      assertEquals("$7\r\nrenamed\r\n", c.cmd("GET", "r2"));
      assertEquals("$4\r\ntext\r\n", c.cmd("GET", "restored"));
      assertEquals("$8\r\nreplaced\r\n", c.cmd("GET", "s"));
      assertEquals("$2\r\n\u0000@\r\n", c.cmd("GET", "bits"));
      assertEquals("$2\r\n\u00ff\u00bf\r\n", c.cmd("GET", "inverted"));
      assertEquals("$2\r\n\u00c8\u00fd\r\n", c.cmd("GET", "bf"));
      c.cmd("SELECT", "1");
      assertEquals("$5\r\nmoved\r\n", c.cmd("GET", "m"));
      c.cmd("SELECT", "3");
      assertEquals("$1\r\n1\r\n", c.cmd("HGET", "copied", "f"));
      assertEquals(":599000\r\n", c.cmd("PTTL", "copied"), "the copy kept the deadline");
      c.cmd("SELECT", "5");
      assertEquals(":0\r\n", c.cmd("DBSIZE"));
      c.cmd("SELECT", "6");
      assertEquals("$4\r\nfive\r\n", c.cmd("GET", "in5"));
    }
  }
}
