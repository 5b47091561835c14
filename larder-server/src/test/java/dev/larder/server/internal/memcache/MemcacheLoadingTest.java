package dev.larder.server.internal.memcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import dev.larder.server.internal.persist.LoadProgress;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * While the server loads, memcached's item commands are answered with one SERVER_ERROR each
 * (noreply, quiet mode and a retrieval line too long to hold whole included) and change nothing;
 * stats, version and mn run.
 */
class MemcacheLoadingTest {
  private static final String LOADING = "SERVER_ERROR loading the dataset in memory\r\n";

  private final TestServer server = new TestServer();
  private final TestServer.Connection c = server.memcache();

  @AfterEach
  void close() {
    server.close();
  }

  @Test
  void itemCommandsAreRefusedUntilLoaded() {
    server.state.loading(LoadProgress.of(Path.of("no-such-directory"), TestServer.START));
    assertEquals(LOADING, c.raw("get key:1\r\n"));
    assertEquals(LOADING, c.raw("set key:1 0 0 1 noreply\r\nx\r\n"));
    assertEquals(LOADING, c.raw("mg key:1 v q\r\n"));
    assertEquals(LOADING, c.raw("flush_all\r\n"));
    assertEquals(LOADING, c.raw("get" + MemcacheLongGetLineTest.keys(20_000) + "\r\n"));
    assertEquals("MN\r\n", c.raw("mn\r\n"));
    assertTrue(c.raw("version\r\n").startsWith("VERSION "));
    assertTrue(c.raw("stats\r\n").endsWith("END\r\n"));
    assertTrue(c.channel.isOpen());

    server.state.loaded();
    assertEquals("END\r\n", c.raw("get key:1\r\n"), "the refused set stored nothing");
    assertEquals("STORED\r\n", c.raw("set key:1 0 0 1\r\ny\r\n"));
    assertEquals(
        "VALUE key:1 0 1\r\ny\r\nEND\r\n",
        c.raw("get" + MemcacheLongGetLineTest.keys(20_000) + "\r\n"));
  }
}
