package dev.larder.client;

import dev.larder.testing.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The near-cache contract against Debian's redis-server (7.0 serves RESP3 and CLIENT TRACKING),
 * started by the test on loopback without persistence.
 */
class RedisServerNearCacheTest extends NearCacheContract {
  private static RedisServer redis;

  @BeforeAll
  static void start() throws Exception {
    redis = RedisServer.start();
  }

  @AfterAll
  static void stop() {
    if (redis != null) {
      redis.close();
    }
  }

  @Override
  int port() {
    return redis.port();
  }
}
