package dev.larder.client;

import dev.larder.testing.RequiredTool;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The near-cache contract against Debian's redis-server (7.0 serves RESP3 and CLIENT TRACKING),
 * started by the test on loopback without persistence.
 */
class RedisServerNearCacheTest extends NearCacheContract {
  private static Process redis;
  private static int port;

  @BeforeAll
  static void start() throws Exception {
    RequiredTool.onPath("redis-server", "redis-server");
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    redis =
        new ProcessBuilder(
                "redis-server",
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no")
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    awaitPing();
  }

  private static void awaitPing() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      try (Jedis j = new Jedis("127.0.0.1", port)) {
        j.ping();
        return;
      } catch (JedisConnectionException e) {
        if (System.nanoTime() > deadline || !redis.isAlive()) {
          throw new AssertionError("redis-server did not start on port " + port, e);
        }
        Thread.sleep(20);
      }
    }
  }

  @AfterAll
  static void stop() throws IOException, InterruptedException {
    if (redis != null) {
      redis.destroy();
      if (!redis.waitFor(10, TimeUnit.SECONDS)) {
        redis.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  @Override
  int port() {
    return port;
  }
}
