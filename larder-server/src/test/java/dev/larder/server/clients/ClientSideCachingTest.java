package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.LarderServer;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TrackingArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.support.caching.CacheAccessor;
import io.lettuce.core.support.caching.CacheFrontend;
import io.lettuce.core.support.caching.ClientSideCaching;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.csc.Cache;
import redis.clients.jedis.csc.DefaultCache;

/**
 * Server-assisted client-side caching of real clients against a real server: Jedis's cache (RESP3,
 * its default cache in compatibility mode) and Lettuce's ClientSideCaching, each told of changes
 * made by another client, of expiry and of FLUSHALL.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClientSideCachingTest {
  private static LarderServer server;

  @BeforeAll
  static void start() throws Exception {
    server = RunningServer.start();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  /**
   * Jedis's default cache, in compatibility mode: Jedis refuses client-side caching from any server
   * but Redis 7.4 or later (it reads HELLO's server and version) unless the cache says this.
   */
  static final class CompatibleCache extends DefaultCache {
    CompatibleCache(int maxSize) {
      super(maxSize);
    }

    @Override
    public boolean compatibilityMode() {
      return true;
    }
  }

  private static Jedis writer() {
    return new Jedis(
        new HostAndPort("127.0.0.1", server.respPort()),
        DefaultJedisClientConfig.builder().timeoutMillis(30_000).build());
  }

  /** Waits (bounded) for a condition that an invalidation message makes true. */
  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("never: " + what);
      }
      Thread.sleep(5);
    }
  }

  @Test
  void jedisCacheIsInvalidatedByOtherClientsExpiryAndFlush() throws Exception {
    try (RedisClient cached =
            RedisClient.builder()
                .hostAndPort("127.0.0.1", server.respPort())
                .clientConfig(
                    DefaultJedisClientConfig.builder()
                        .protocol(RedisProtocol.RESP3)
                        .timeoutMillis(30_000)
                        .build())
                .cache(new CompatibleCache(1000))
                .build();
        Jedis w = writer()) {
      Cache cache = cached.getCache();
      w.set("jc:a", "1");
      assertEquals("1", cached.get("jc:a"));
      assertEquals("1", cached.get("jc:a"));
      assertEquals(1, cache.getSize());
      assertEquals(1, cache.getStats().getHitCount(), "the second read came from the cache");
      w.set("jc:a", "2");
      // Jedis reads the pushes that have arrived before it runs a command from its cache.
      await(() -> "2".equals(cached.get("jc:a")), "Jedis's cache saw the change");
      assertTrue(cache.getStats().getInvalidationCount() >= 1, cache.getStats().toString());
      w.psetex("jc:e", 200, "soon");
      assertEquals("soon", cached.get("jc:e"));
      await(() -> !w.exists("jc:e"), "jc:e expired");
      await(() -> cached.get("jc:e") == null, "the expired key left Jedis's cache");
      assertEquals("2", cached.get("jc:a"));
      w.flushAll();
      await(() -> cached.get("jc:a") == null, "a flush empties the cache");
      assertNull(cached.get("jc:a"));
    }
  }

  @Test
  void lettuceClientSideCachingIsInvalidatedByOtherClients() throws Exception {
    io.lettuce.core.RedisClient client =
        io.lettuce.core.RedisClient.create(
            RedisURI.create("redis://127.0.0.1:" + server.respPort()));
    try (StatefulRedisConnection<String, String> connection = client.connect();
        Jedis w = writer()) {
      Map<String, String> local = new ConcurrentHashMap<>();
      CacheFrontend<String, String> frontend =
          ClientSideCaching.enable(
              CacheAccessor.forMap(local), connection, TrackingArgs.Builder.enabled());
      w.set("lc:a", "1");
      assertEquals("1", frontend.get("lc:a"));
      assertEquals("1", local.get("lc:a"));
      w.set("lc:a", "2");
      await(() -> !local.containsKey("lc:a"), "Lettuce's cache dropped lc:a");
      assertEquals("2", frontend.get("lc:a"));
      w.del("lc:a");
      await(() -> !local.containsKey("lc:a"), "dropped on DEL");
      frontend.close();
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(10));
    }
  }

  @Test
  void lettuceBroadcastModeWithPrefix() throws Exception {
    io.lettuce.core.RedisClient client =
        io.lettuce.core.RedisClient.create(
            RedisURI.create("redis://127.0.0.1:" + server.respPort()));
    try (StatefulRedisConnection<String, String> connection = client.connect();
        Jedis w = writer()) {
      Map<String, String> local = new ConcurrentHashMap<>();
      CacheFrontend<String, String> frontend =
          ClientSideCaching.enable(
              CacheAccessor.forMap(local),
              connection,
              TrackingArgs.Builder.enabled().bcast().prefixes("lb:"));
      w.set("lb:x", "1");
      assertEquals("1", frontend.get("lb:x"));
      w.set("lb:x", "2");
      await(() -> !local.containsKey("lb:x"), "broadcast invalidation of lb:x");
      frontend.close();
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(10));
    }
  }
}
