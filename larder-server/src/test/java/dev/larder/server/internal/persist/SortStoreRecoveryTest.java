package dev.larder.server.internal.persist;

import static dev.larder.server.internal.TestServer.START;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.server.internal.TestServer;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SORT ... STORE writes through the keyspace's logged writes: after a restart on the same
 * directory, with no checkpoint taken, the log alone gives back each stored list, and a STORE of an
 * empty result deleted its destination for good.
 */
class SortStoreRecoveryTest {
  @Test
  void storedListsAndDeletedDestinationsSurviveARestart(@TempDir Path dir) throws Exception {
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      TestServer.Connection c = s.resp();
      c.cmd("RPUSH", "src", "3", "1", "2");
      c.cmd("MSET", "w_1", "30", "w_2", "20", "w_3", "10");
      assertEquals(":3\r\n", c.cmd("SORT", "src", "STORE", "asc"));
      assertEquals(
          ":6\r\n", c.cmd("SORT", "src", "BY", "w_*", "GET", "#", "GET", "w_*", "STORE", "byw"));
      c.cmd("SET", "gone", "x");
      assertEquals(":0\r\n", c.cmd("SORT", "missing", "STORE", "gone"));
      c.cmd("SELECT", "2");
      c.cmd("RPUSH", "src", "9", "8");
      assertEquals(":2\r\n", c.cmd("SORT", "src", "STORE", "asc"));
    }
    try (TestServer s = new TestServer(Map.of(), dir, START + 1000)) {
      TestServer.Connection c = s.resp();
      assertEquals("*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n", c.cmd("LRANGE", "asc", "0", "-1"));
      assertEquals(
          "*6\r\n$1\r\n3\r\n$2\r\n10\r\n$1\r\n2\r\n$2\r\n20\r\n$1\r\n1\r\n$2\r\n30\r\n",
          c.cmd("LRANGE", "byw", "0", "-1"));
      assertEquals(":0\r\n", c.cmd("EXISTS", "gone"));
      c.cmd("SELECT", "2");
      assertEquals("*2\r\n$1\r\n8\r\n$1\r\n9\r\n", c.cmd("LRANGE", "asc", "0", "-1"));
    }
  }
}
