package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Settings: defaults, files, validation, and the rule that only loopback goes without a password.
 */
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
  void aClusteredServerRunsFourLoopsPerCoreUnlessTold() {
    int cores = Runtime.getRuntime().availableProcessors();
    assertEquals(4 * cores, ServerConfig.of(Map.of("cluster", "shop")).clusterCommandThreads());
    assertEquals(
        3,
        ServerConfig.of(Map.of("cluster", "shop", "cluster-command-threads", "3"))
            .clusterCommandThreads());
    assertThrows(
        IllegalArgumentException.class,
        () -> ServerConfig.of(Map.of("cluster", "shop", "cluster-command-threads", "-1")));
  }

  @Test
  void sizesParseAsRedisWritesThem() {
    assertEquals(1024, ServerSetting.parseBytes("1kb"));
    assertEquals(1000, ServerSetting.parseBytes("1k"));
    assertEquals(3L << 30, ServerSetting.parseBytes("3GB"));
    assertEquals(77, ServerSetting.parseBytes("77"));
    assertThrows(IllegalArgumentException.class, () -> ServerSetting.parseBytes("-1mb"));
    assertThrows(IllegalArgumentException.class, () -> ServerSetting.parseBytes("lots"));
    assertThrows(
        IllegalArgumentException.class, () -> ServerSetting.parseBytes("99999999999999gb"));
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
  void aClusteredServerOfEitherModeMayKeepALog(@TempDir Path dir) {
    ServerConfig replicated = ServerConfig.of(Map.of("dir", dir.toString(), "cluster", "shop"));
    assertEquals("shop", replicated.cluster());
    assertEquals(dir, replicated.dir());
    ServerConfig distributed =
        ServerConfig.of(
            Map.of("dir", dir.toString(), "cluster", "shop", "cluster-mode", "distributed"));
    assertEquals("shop", distributed.cluster());
    assertEquals(dir, distributed.dir());
  }

  @Test
  void persistenceIsSetInTheFileAsOnTheCommandLine(@TempDir Path dir) throws Exception {
    assertNull(ServerConfig.defaults().dir());
    assertEquals("everysec", ServerConfig.defaults().appendfsync());
    Path file = dir.resolve("larder.properties");
    Files.writeString(
        file,
        "dir="
            + dir.resolve("data")
            + "\nappendfsync=always\n"
            + "recovery=salvage\ncheckpoint-log-bytes=1mb\n");
    ServerConfig c = ServerConfig.load(file, Map.of());
    assertEquals(dir.resolve("data"), c.dir());
    assertEquals("always", c.appendfsync());
    assertTrue(c.salvage());
    assertEquals(1L << 20, c.checkpointLogBytes());
    for (String[] b : new String[][] {{"appendfsync", "sometimes"}, {"recovery", "hope"}}) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class, () -> ServerConfig.of(Map.of(b[0], b[1])), b[0]);
      assertTrue(e.getMessage().contains(b[0]), e.getMessage());
    }
  }

  @Test
  void invalidSettingsAreRefusedWithTheirName() {
    String[][] bad = {
      {"nosuch", "1"},
      {"resp-port", "70000"},
      {"maxmemory", "10kb"},
      {"max-connections", "0"},
      {"maxmemory-policy", "volatile-lru"},
      {"tls-cert-file", "/x.pem"},
      {"max-item-bytes", "128mb"},
      {"resp-port", "abc"},
      {"io-threads", "-1"},
      {"io-transport", "kqueue"}
    };
    for (String[] b : bad) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class, () -> ServerConfig.of(Map.of(b[0], b[1])), b[0]);
      assertTrue(e.getMessage() != null && !e.getMessage().isEmpty());
    }
  }

  @Test
  void listeningBeyondLoopbackNeedsPasswordsOnBothProtocols(@TempDir Path dir) throws Exception {
    IllegalArgumentException noPassword =
        assertThrows(
            IllegalArgumentException.class, () -> ServerConfig.of(Map.of("bind", "0.0.0.0")));
    assertEquals(
        "requirepass must be set (or an aclfile given) when bind 0.0.0.0 is not a"
            + " loopback address: Larder does not accept unauthenticated RESP connections off"
            + " loopback",
        noPassword.getMessage());
    IllegalArgumentException memcached =
        assertThrows(
            IllegalArgumentException.class,
            () -> ServerConfig.of(Map.of("bind", "0.0.0.0", "requirepass", "pw")));
    assertTrue(
        memcached
            .getMessage()
            .startsWith(
                "memcache-auth-file must be set (or" + " memcache-port -1) when bind 0.0.0.0"),
        memcached.getMessage());
    assertEquals(
        -1,
        ServerConfig.of(Map.of("bind", "0.0.0.0", "requirepass", "pw", "memcache-port", "-1"))
            .memcachePort());
    Path auth = dir.resolve("memcached.auth");
    Files.writeString(auth, "app:pw\n");
    ServerConfig both =
        ServerConfig.of(
            Map.of("bind", "0.0.0.0", "requirepass", "pw", "memcache-auth-file", auth.toString()));
    assertEquals("pw", both.password(), "what the HTTP side reads");
    assertEquals(
        -1,
        ServerConfig.of(
                Map.of(
                    "bind",
                    "0.0.0.0",
                    "resp-port",
                    "-1",
                    "http-port",
                    "-1",
                    "memcache-auth-file",
                    auth.toString()))
            .respPort(),
        "memcached alone needs no requirepass");
    IllegalArgumentException http =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                ServerConfig.of(
                    Map.of(
                        "bind",
                        "0.0.0.0",
                        "resp-port",
                        "-1",
                        "memcache-auth-file",
                        auth.toString())));
    assertTrue(
        http.getMessage()
            .startsWith("requirepass must be set (or http-port -1) when bind" + " 0.0.0.0"),
        "the HTTP side needs requirepass: " + http.getMessage());

    // An aclfile that leaves the default user open is refused when the server starts, before
    // it binds anything.
    Path acl = dir.resolve("users.acl");
    Files.writeString(acl, "user default on nopass ~* +@all\nuser app on >pw ~* +@all\n");
    ServerConfig open =
        ServerConfig.of(
            Map.of(
                "bind",
                "0.0.0.0",
                "aclfile",
                acl.toString(),
                "memcache-port",
                "-1",
                "resp-port",
                "0",
                "http-port",
                "-1"));
    IllegalArgumentException refused =
        assertThrows(IllegalArgumentException.class, () -> LarderServer.start(open).close());
    assertTrue(
        refused
            .getMessage()
            .startsWith(
                "bind 0.0.0.0 is not a loopback address and the"
                    + " default user needs no password"),
        refused.getMessage());
  }
}
