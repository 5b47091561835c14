package dev.larder.client;

import dev.larder.server.LarderServer;
import dev.larder.server.ServerConfig;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The near-cache contract against Larder's own server, started in this JVM on loopback. */
class LarderServerNearCacheTest extends NearCacheContract {
  private static LarderServer server;

  @BeforeAll
  static void start() throws Exception {
    server =
        LarderServer.start(
            ServerConfig.of(Map.of("resp-port", "0", "memcache-port", "-1", "http-port", "-1")));
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Override
  int port() {
    return server.respPort();
  }
}
