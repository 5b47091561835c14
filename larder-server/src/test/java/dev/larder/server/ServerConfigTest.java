package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Settings: defaults, files, validation, and the rule that only loopback goes without a password. */
class ServerConfigTest {

  @Test
  void defaultsAreLoopbackAndTheStandardPorts() {
    ServerConfig c = ServerConfig.defaults();
    assertEquals("127.0.0.1", c.bind());
    assertEquals(6379, c.respPort());
    assertEquals(11211, c.memcachePort());
    assertEquals(256L << 20, c.maxMemory());
    assertTrue(c.loopback());
    assertTrue(c.password().isEmpty());
  }

  @Test
  void sizesParseAsRedisWritesThem() {
    assertEquals(1024, ServerSetting.parseBytes("1kb"));
    assertEquals(1000, ServerSetting.parseBytes("1k"));
    assertEquals(3L << 30, ServerSetting.parseBytes("3GB"));
    assertEquals(77, ServerSetting.parseBytes("77"));
    assertThrows(IllegalArgumentException.class, () -> ServerSetting.parseBytes("-1mb"));
    assertThrows(IllegalArgumentException.class, () -> ServerSetting.parseBytes("lots"));
    assertThrows(IllegalArgumentException.class,
        () -> ServerSetting.parseBytes("99999999999999gb"));
  }

  @Test
  void aFileIsReadAndOverridesWin(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("larder.properties");
    Files.writeString(file, "maxmemory = 64mb\nresp-port=7000\nidle-timeout-seconds=9\n");
    ServerConfig c = ServerConfig.load(file, Map.of("resp-port", "7001"));
    assertEquals(64L << 20, c.maxMemory());
    assertEquals(7001, c.respPort());
    assertEquals(9, c.idleTimeoutSeconds());
  }

  @Test
  void invalidSettingsAreRefusedWithTheirName() {
    String[][] bad = {{"nosuch", "1"}, {"resp-port", "70000"}, {"maxmemory", "10kb"},
        {"max-connections", "0"}, {"maxmemory-policy", "volatile-lru"},
        {"tls-cert-file", "/x.pem"}, {"max-item-bytes", "128mb"}, {"resp-port", "abc"}};
    for (String[] b : bad) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> ServerConfig.of(Map.of(b[0], b[1])), b[0]);
      assertTrue(e.getMessage() != null && !e.getMessage().isEmpty());
    }
  }

  @Test
  void listeningBeyondLoopbackNeedsAPasswordAndNoMemcached() {
    IllegalArgumentException noPassword = assertThrows(IllegalArgumentException.class,
        () -> ServerConfig.of(Map.of("bind", "0.0.0.0")));
    assertTrue(noPassword.getMessage().startsWith("requirepass"));
    IllegalArgumentException memcached = assertThrows(IllegalArgumentException.class,
        () -> ServerConfig.of(Map.of("bind", "0.0.0.0", "requirepass", "pw")));
    assertTrue(memcached.getMessage().startsWith("memcache-port"));
    ServerConfig ok = ServerConfig.of(Map.of("bind", "0.0.0.0", "requirepass", "pw",
        "memcache-port", "-1"));
    assertEquals(-1, ok.memcachePort());
  }
}
