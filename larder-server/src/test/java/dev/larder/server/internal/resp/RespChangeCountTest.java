package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.server.internal.TestServer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * INFO's {@code rdb_changes_since_last_save} on a server without {@code dir} counts the changes
 * commands make, as Redis counts them whether or not it saves: a write that leaves a key as it was
 * (SETBIT or BITFIELD of the bit already there) counts nothing; Redis 7.0's own bitops unit reads
 * it so.
 */
class RespChangeCountTest {
  private static final Pattern CHANGES = Pattern.compile("rdb_changes_since_last_save:(\\d+)");

  @Test
  void onlyWritesThatChangeAKeyAreCounted() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection c = server.resp();
      long start = changes(c);
      c.cmd("SETBIT", "foo", "0", "0");
      c.cmd("BITFIELD", "foo2", "SET", "i5", "0", "0");
      assertEquals(start + 2, changes(c), "two keys made");
      c.cmd("SETBIT", "foo", "0", "0");
      c.cmd("BITFIELD", "foo2", "SET", "i5", "0", "0");
      c.cmd("GET", "foo");
      assertEquals(start + 2, changes(c), "nothing changed");
      c.cmd("SETBIT", "foo", "0", "1");
      c.cmd("SETBIT", "foo", "0", "1");
      c.cmd("BITFIELD", "foo2", "SET", "i5", "0", "1");
      c.cmd("BITFIELD", "foo2", "SET", "i5", "0", "1");
      c.cmd("DEL", "foo", "foo2", "missing");
      assertEquals(start + 6, changes(c), "two changes, two removals");
    }
  }

  private static long changes(TestServer.Connection c) {
    Matcher m = CHANGES.matcher(c.cmd("INFO", "persistence"));
    if (!m.find()) {
      throw new AssertionError("INFO persistence has no rdb_changes_since_last_save");
    }
    return Long.parseLong(m.group(1));
  }
}
