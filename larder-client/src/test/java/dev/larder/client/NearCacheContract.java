package dev.larder.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.testing.Await;
import dev.larder.testing.Workers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.DefaultJedisSocketFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.csc.CacheConnection;
import redis.clients.jedis.csc.CacheEntry;
import redis.clients.jedis.csc.CacheKey;

/**
 * What a near cache must do against a real server, run against each server that serves RESP3 and
 * CLIENT TRACKING: reads come from the near cache, another client's write or a FLUSHALL retires
 * what it changed, the byte bound holds, and readers beside a writer end on the last value.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class NearCacheContract {
  private static final Duration INVALIDATION_WAIT = Duration.ofSeconds(10);

  private LarderJedisCache nearCache;
  private RedisClient client;
  private Jedis writer;

  /** Returns the RESP port of the server under test, on 127.0.0.1. */
  abstract int port();

  /**
   * Returns the RESP port the other client writes through: the same server, or another member of
   * its cluster.
   */
  int writerPort() {
    return port();
  }

  @BeforeEach
  void connect() {
    writer = new Jedis("127.0.0.1", writerPort());
    writer.flushAll();
  }

  @AfterEach
  void disconnect() {
    if (client != null) {
      client.close();
    }
    if (nearCache != null) {
      nearCache.close();
    }
    writer.close();
  }

  private RedisClient cachedClient(long maximumMemory) {
    nearCache = LarderJedisCache.builder().maximumMemory(maximumMemory).build();
    client =
        RedisClient.builder()
            .hostAndPort("127.0.0.1", port())
            .clientConfig(
                DefaultJedisClientConfig.builder()
                    .protocol(RedisProtocol.RESP3)
                    .timeoutMillis(20_000)
                    .build())
            .cache(nearCache)
            .build();
    return client;
  }

  @Test
  void readsAreServedFromTheNearCacheInTheirOwnTypes() {
    RedisClient c = cachedClient(8L << 20);
    writer.set("nc:a", "1");
    writer.hset("nc:h", Map.of("f", "x", "g", "y"));
    assertEquals("1", c.get("nc:a"));
    assertEquals("1", c.get("nc:a"));
    assertEquals(1, nearCache.getStats().getHitCount(), "the second read came from the near cache");
    // The same command with a byte[] key builds a byte[]: an entry of its own.
    assertArrayEquals(
        "1".getBytes(StandardCharsets.UTF_8), c.get("nc:a".getBytes(StandardCharsets.UTF_8)));
    assertInstanceOf(byte[].class, c.get("nc:a".getBytes(StandardCharsets.UTF_8)));
    assertEquals(Map.of("f", "x", "g", "y"), c.hgetAll("nc:h"));
    assertEquals(Map.of("f", "x", "g", "y"), c.hgetAll("nc:h"));
    assertNull(c.get("nc:absent"));
    assertNull(c.get("nc:absent"));
    assertEquals(4, nearCache.getStats().getHitCount(), nearCache.getStats().toString());
  }

  /**
   * getCacheEntries lists what may be served, each under a key equal to the one Jedis looks it up
   * by; a retired entry is not listed.
   */
  @Test
  void theEntriesAreListedUnderTheirOwnKeys() throws Exception {
    RedisClient c = cachedClient(8L << 20);
    writer.set("nc:a", "1");
    writer.set("nc:b", "2");
    assertEquals("1", c.get("nc:a"));
    assertEquals("2", c.get("nc:b"));
    assertEquals(List.of("1", "2"), c.mget("nc:a", "nc:b"));
    CommandObjects commands = new CommandObjects();
    Map<CacheKey<?>, Object> listed = listed();
    assertEquals(
        Map.of(
            new CacheKey<>(commands.get("nc:a")), "1",
            new CacheKey<>(commands.get("nc:b")), "2",
            new CacheKey<>(commands.mget("nc:a", "nc:b")), List.of("1", "2")),
        listed);
    writer.set("nc:a", "3");
    Await.until(
        "the near cache serves the new value", INVALIDATION_WAIT, () -> "3".equals(c.get("nc:a")));
    assertEquals("3", listed().get(new CacheKey<>(commands.get("nc:a"))));
    assertNull(
        listed().get(new CacheKey<>(commands.mget("nc:a", "nc:b"))),
        "the MGET of the changed key is retired");
  }

  private Map<CacheKey<?>, Object> listed() {
    Map<CacheKey<?>, Object> listed = new java.util.HashMap<>();
    for (CacheEntry<?> e : nearCache.getCacheEntries()) {
      listed.put(e.getCacheKey(), e.getValue());
    }
    return listed;
  }

  @Test
  void aWriteByAnotherClientRetiresTheEntry() throws Exception {
    RedisClient c = cachedClient(8L << 20);
    writer.set("nc:a", "1");
    writer.rpush("nc:l", "p", "q");
    assertEquals("1", c.get("nc:a"));
    assertEquals(List.of("p", "q"), c.lrange("nc:l", 0, -1));
    writer.set("nc:a", "2");
    writer.rpush("nc:l", "r");
    Await.until(
        "the near cache serves the new value", INVALIDATION_WAIT, () -> "2".equals(c.get("nc:a")));
    Await.until(
        "the near cache serves the longer list",
        INVALIDATION_WAIT,
        () -> List.of("p", "q", "r").equals(c.lrange("nc:l", 0, -1)));
    assertEquals("2", c.get("nc:a"));
    assertTrue(nearCache.getStats().getInvalidationCount() >= 1, nearCache.getStats().toString());
  }

  /**
   * The race Jedis's own cache loses: the invalidation of a key is processed (by another thread,
   * reading another connection's messages) after this thread's lookup missed and before it stores
   * the reply it read. The stored reply must not be served.
   */
  @Test
  @SuppressWarnings({"unchecked", "rawtypes"}) // Jedis's cache API takes raw keys and entries
  void anInvalidationBetweenLookupAndStoreRetiresTheReply() throws Exception {
    nearCache = LarderJedisCache.builder().maximumMemory(2L << 20).build();
    JedisClientConfig config =
        DefaultJedisClientConfig.builder().protocol(RedisProtocol.RESP3).build();
    try (CacheConnection connection =
        new CacheConnection(
            new DefaultJedisSocketFactory(new HostAndPort("127.0.0.1", port()), config),
            config,
            nearCache)) {
      CommandObjects commands = new CommandObjects();
      CacheKey stale = new CacheKey<>(commands.get("nc:race"));
      assertNull(nearCache.get(stale), "a miss");
      nearCache.deleteByRedisKey("nc:race".getBytes(StandardCharsets.UTF_8));
      nearCache.set(stale, new CacheEntry<>(stale, "old", connection));
      assertNull(nearCache.get(stale), "the reply read before the invalidation is not served");
      CacheKey fresh = new CacheKey<>(commands.get("nc:race"));
      assertNull(nearCache.get(fresh));
      nearCache.set(fresh, new CacheEntry<>(fresh, "new", connection));
      assertEquals("new", nearCache.get(fresh).getValue(), "a reply read after it is served");
    }
  }

  @Test
  void theByteBoundHoldsUnderManyKeys() {
    long bound = 1L << 20;
    RedisClient c = cachedClient(bound);
    int keys = 1_200;
    String value = "v".repeat(2_000);
    Pipeline p = writer.pipelined();
    for (int i = 0; i < keys; i++) {
      p.set("nc:k" + i, value + i);
    }
    p.sync();
    for (int i = 0; i < keys; i++) {
      assertEquals(value + i, c.get("nc:k" + i));
      assertTrue(nearCache.memoryUsed() <= bound, nearCache.memoryUsed() + " > " + bound);
    }
    assertTrue(nearCache.getSize() < keys, "2.4 MB of replies in 1 MiB: " + nearCache.getSize());
    assertTrue(nearCache.getSize() > keys / 10, "entries held: " + nearCache.getSize());
    for (int i = keys - 100; i < keys; i++) {
      assertEquals(value + i, c.get("nc:k" + i));
    }
  }

  @Test
  void flushAllEmptiesTheNearCache() throws Exception {
    RedisClient c = cachedClient(8L << 20);
    writer.set("nc:a", "1");
    writer.set("nc:b", "2");
    assertEquals("1", c.get("nc:a"));
    assertEquals("2", c.get("nc:b"));
    writer.flushAll();
    Await.until("FLUSHALL reached the near cache", INVALIDATION_WAIT, () -> c.get("nc:a") == null);
    assertNull(c.get("nc:b"));
    assertTrue(nearCache.getStats().getFlushCount() >= 1, nearCache.getStats().toString());
  }

  /**
   * Readers read a few keys from the near cache while a writer sets them, each to an increasing
   * number. Invariant: no reader sees a number that was never written, and once the writer's last
   * SET has returned and its invalidation has arrived, every reader sees the last number of every
   * key, and goes on seeing it.
   */
  @Test
  void readersBesideAWriterEndOnTheLastValue() throws Exception {
    RedisClient c = cachedClient(8L << 20);
    int keys = 8;
    int writes = 400;
    for (int k = 0; k < keys; k++) {
      writer.set("nc:s" + k, "0");
    }
    AtomicInteger written = new AtomicInteger();
    try (Workers readers = Workers.named("reader");
        Workers writers = Workers.named("writer")) {
      readers.start(
          3,
          index -> {
            while (written.get() < writes) {
              for (int k = 0; k < keys; k++) {
                int seen = Integer.parseInt(c.get("nc:s" + k));
                assertTrue(seen >= 0 && seen <= writes, "never written: " + seen);
              }
            }
            for (int k = 0; k < keys; k++) {
              String key = "nc:s" + k;
              String last = Integer.toString(lastWriteOf(k, keys, writes));
              Await.until(
                  key + " reaches " + last, INVALIDATION_WAIT, () -> last.equals(c.get(key)));
              for (int again = 0; again < 20; again++) {
                assertEquals(last, c.get(key), key + " after it reached the last value");
              }
            }
          });
      writers.start(
          () -> {
            try (Jedis w = new Jedis("127.0.0.1", writerPort())) {
              for (int i = 1; i <= writes; i++) {
                w.set("nc:s" + (i % keys), Integer.toString(i));
                written.set(i);
              }
            }
          });
      writers.join(Duration.ofSeconds(30));
      readers.join(Duration.ofSeconds(40));
    }
    assertTrue(nearCache.getStats().getHitCount() > 0, nearCache.getStats().toString());
  }

  /**
   * The last number the writer sets key {@code k} to: the largest i ≤ writes with i % keys == k.
   */
  private static int lastWriteOf(int k, int keys, int writes) {
    int last = writes - Math.floorMod(writes - k, keys);
    return last >= 1 ? last : 0;
  }
}
