package dev.larder.server.internal.memcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.larder.server.internal.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * memcached -Y authentication: replies compared byte for byte with memcached 1.6.18's, sent one
 * command at a time.
 */
class MemcacheAuthTest {
  @Test
  void aConnectionMustSetUserAndPasswordFirst(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("auth");
    Files.writeString(file, "alice:pw1\n# comment\nbob:pw2\n");
    try (TestServer server = new TestServer(Map.of("memcache-auth-file", file.toString()))) {
      TestServer.Connection c = server.memcache();
      assertEquals("CLIENT_ERROR unauthenticated\r\n", c.raw("version\r\n"));
      assertEquals("CLIENT_ERROR unauthenticated\r\n", c.raw("get a\r\n"));
      assertEquals("CLIENT_ERROR unauthenticated\r\n", c.raw("mn\r\n"));
      assertEquals(
          "CLIENT_ERROR authentication failure\r\n", c.raw("set x 0 0 9\r\nalice bad\r\n"));
      assertEquals(
          "CLIENT_ERROR authentication failure\r\n",
          c.raw("set x 0 0 9\r\nalice pw2\r\n"),
          "bob's password is not alice's");
      assertEquals(
          "CLIENT_ERROR bad authentication token format\r\n", c.raw("set x 0 0 5\r\nalice\r\n"));
      assertEquals("STORED\r\n", c.raw("set x 0 0 13\r\nalice pw1 zzz\r\n"));
      assertEquals("VERSION 1.6.0\r\n", c.raw("version\r\n"));
      assertEquals("END\r\n", c.raw("get x\r\n"), "the authenticating set stores nothing");
      assertEquals("STORED\r\n", c.raw("set a 0 0 1\r\n1\r\n"));
      assertEquals("VALUE a 0 1\r\n1\r\nEND\r\n", c.raw("get a\r\n"));

      TestServer.Connection d = server.memcache();
      assertEquals(
          "CLIENT_ERROR unauthenticated\r\nSTORED\r\nVALUE a 0 1\r\n1\r\nEND\r\n",
          d.raw("get a\r\nset auth 0 0 8\r\nbob  pw2\r\nget a\r\n"),
          "pipelined");
    }
  }

  @Test
  void badFilesAreRefused(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("auth");
    Files.writeString(file, "alice\n");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new TestServer(Map.of("memcache-auth-file", file.toString())));
    assertEquals(
        "memcache-auth-file "
            + file
            + " line 1: expected 'user:password' (no blanks,"
            + " neither empty)",
        e.getMessage());
    Files.writeString(file, "\n");
    assertThrows(
        IllegalArgumentException.class,
        () -> new TestServer(Map.of("memcache-auth-file", file.toString())));
  }
}
