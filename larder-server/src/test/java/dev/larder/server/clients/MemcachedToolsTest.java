package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.LarderServer;
import dev.larder.testing.RequiredTool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** memcstat, memccp and memccat (Debian's libmemcached-tools) against a real server. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MemcachedToolsTest {
  private static LarderServer server;

  @BeforeAll
  static void start() throws Exception {
    server = RunningServer.start();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static String servers() {
    return "--servers=127.0.0.1:" + server.memcachePort();
  }

  private static void requireTool(String tool) {
    RequiredTool.onPath(tool, "libmemcached-tools");
  }

  @Test
  void memcstatReportsTheServer() throws Exception {
    requireTool("memcstat");
    RunningServer.Run r = RunningServer.run(60, "memcstat", servers());
    assertEquals(0, r.exit(), r.out());
    assertTrue(r.out().contains("pid:") && r.out().contains("curr_connections:"), r.out());
  }

  @Test
  void memccpStoresFilesAndMemccatReadsThem(@TempDir Path dir) throws Exception {
    requireTool("memccp");
    requireTool("memccat");
    Path file = dir.resolve("notes.txt");
    Files.writeString(file, "line one\nline two\n");
    RunningServer.Run cp = RunningServer.run(60, "memccp", servers(), file.toString());
    assertEquals(0, cp.exit(), cp.out());
    RunningServer.Run cat = RunningServer.run(60, "memccat", servers(), "notes.txt");
    assertEquals(0, cat.exit(), cat.out());
    assertEquals("line one\nline two\n\n", cat.out(), "memccat ends each value with a newline");
  }
}
