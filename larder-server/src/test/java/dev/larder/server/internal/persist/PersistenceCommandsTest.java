package dev.larder.server.internal.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import dev.larder.testing.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SAVE, BGSAVE, BGREWRITEAOF, LASTSAVE and INFO's persistence section as a Redis user sees them:
 * with a log, the background forms checkpoint and report it in INFO and LASTSAVE, and the log
 * before the checkpoint is dropped; inside MULTI, SAVE is refused (and the transaction with it)
 * while BGSAVE is queued, as in Redis; without a log, the saves answer an error.
 */
class PersistenceCommandsTest {
  private static final long START = TestServer.START;
  private static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void withoutALogSavesAreRefusedAndInfoSaysAofIsOff() {
    try (TestServer s = new TestServer()) {
      TestServer.Connection c = s.resp();
      for (String save : new String[] {"SAVE", "BGSAVE", "BGREWRITEAOF"}) {
        assertEquals(
            "-ERR persistence is off (start the server with --dir)\r\n", c.cmd(save), save);
      }
      assertEquals(":" + s.state.startMillis() / 1000 + "\r\n", c.cmd("LASTSAVE"));
      String info = c.cmd("INFO", "persistence");
      assertEquals("0", field(info, "aof_enabled"));
      assertEquals("0", field(info, "loading"));
    }
  }

  @Test
  void bgsaveAndBgrewriteaofCheckpointInTheBackground(@TempDir Path dir) throws Exception {
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      TestServer.Connection c = s.resp();
      c.cmd("SET", "a", "1");
      c.cmd("SET", "b", "2");
      String info = c.cmd("INFO", "persistence");
      assertEquals("1", field(info, "aof_enabled"));
      assertEquals("everysec", field(info, "larder_appendfsync"));
      assertEquals("0", field(info, "loading"));
      assertEquals("2", field(info, "rdb_changes_since_last_save"));
      assertEquals("0", field(info, "aof_base_size"));
      assertEquals(":" + START / 1000 + "\r\n", c.cmd("LASTSAVE"));

      s.now.addAndGet(60_000);
      assertEquals("+Background saving started\r\n", c.cmd("BGSAVE"));
      awaitSaved(c, START / 1000 + 60);
      info = c.cmd("INFO", "persistence");
      assertEquals("0", field(info, "rdb_changes_since_last_save"));
      assertEquals("ok", field(info, "rdb_last_bgsave_status"));
      assertEquals("2", field(info, "larder_checkpoint_keys"));
      assertTrue(Long.parseLong(field(info, "aof_base_size")) > 0, info);
      assertFalse(
          Files.exists(dir.resolve("log-0000000000000001.wal")),
          "the segment before the checkpoint is dropped");

      c.cmd("SET", "c", "3");
      s.now.addAndGet(60_000);
      assertEquals("+Background append only file rewriting started\r\n", c.cmd("BGREWRITEAOF"));
      awaitSaved(c, START / 1000 + 120);
      assertEquals("3", field(c.cmd("INFO", "persistence"), "larder_checkpoint_keys"));
    }
    try (TestServer s = new TestServer(Map.of(), dir, START + 180_000)) {
      assertEquals("$1\r\n3\r\n", s.resp().cmd("GET", "c"));
    }
  }

  @Test
  void insideMultiSaveIsRefusedAndBgsaveIsQueued(@TempDir Path dir) throws Exception {
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      TestServer.Connection c = s.resp();
      c.cmd("SET", "a", "1");
      c.cmd("MULTI");
      assertEquals("-ERR Command not allowed inside a transaction\r\n", c.cmd("SAVE"));
      assertEquals("+QUEUED\r\n", c.cmd("SET", "a", "2"));
      assertEquals(
          "-EXECABORT Transaction discarded because of previous errors.\r\n", c.cmd("EXEC"));
      assertEquals("$1\r\n1\r\n", c.cmd("GET", "a"));

      s.now.addAndGet(60_000);
      c.cmd("MULTI");
      assertEquals("+QUEUED\r\n", c.cmd("BGSAVE"));
      assertEquals("+QUEUED\r\n", c.cmd("LASTSAVE"));
      String exec = c.cmd("EXEC");
      assertTrue(exec.startsWith("*2\r\n+Background saving started\r\n:"), exec);
      awaitSaved(c, START / 1000 + 60);
    }
  }

  /** Waits until the checkpoint started has finished and LASTSAVE says {@code seconds}. */
  private static void awaitSaved(TestServer.Connection c, long seconds)
      throws InterruptedException {
    Await.until(
        "a checkpoint finished at " + seconds,
        WAIT,
        () ->
            c.cmd("LASTSAVE").equals(":" + seconds + "\r\n")
                && field(c.cmd("INFO", "persistence"), "rdb_bgsave_in_progress").equals("0"));
  }

  private static String field(String info, String name) {
    Matcher m = Pattern.compile("(?m)^" + name + ":([^\r\n]*)").matcher(info);
    assertTrue(m.find(), name + " in " + info);
    return m.group(1);
  }
}
