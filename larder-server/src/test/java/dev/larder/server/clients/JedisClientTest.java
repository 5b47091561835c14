package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.LarderServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.resps.ScanResult;

/** Jedis, a Java Redis client, unchanged against a real Larder server on 127.0.0.1. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JedisClientTest {
  private static LarderServer server;

  @BeforeAll
  static void start() throws Exception {
    server = RunningServer.start();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static Jedis jedis(RedisProtocol protocol) {
    return new Jedis(
        new HostAndPort("127.0.0.1", server.respPort()),
        DefaultJedisClientConfig.builder().protocol(protocol).timeoutMillis(20_000).build());
  }

  @Test
  void stringsKeysAndHashesInResp2AndResp3() {
    for (RedisProtocol protocol : new RedisProtocol[] {RedisProtocol.RESP2, RedisProtocol.RESP3}) {
      try (Jedis j = jedis(protocol)) {
        j.select(protocol == RedisProtocol.RESP2 ? 1 : 2);
        assertEquals("OK", j.set("k", "v", SetParams.setParams().ex(100)));
        assertEquals("v", j.get("k"));
        assertTrue(j.ttl("k") > 90);
        assertEquals(5L, j.incrBy("n", 5));
        assertEquals(2.5, j.incrByFloat("f", 2.5));
        assertEquals(2L, j.hset("h", Map.of("a", "1", "b", "2")));
        assertEquals(Map.of("a", "1", "b", "2"), j.hgetAll("h"));
        assertEquals(List.of("1", "2"), j.hmget("h", "a", "b"));
        assertEquals("hash", j.type("h"));
        assertEquals(4L, j.dbSize());
        assertThrows(JedisDataException.class, () -> j.get("h"));
        assertEquals(1L, j.del("k"));
        assertNull(j.get("k"));
        assertTrue(j.info("memory").contains("maxmemory:"));
        assertEquals("PONG", j.ping());
        j.flushDB();
      }
    }
  }

  @Test
  void pipelineTransactionAndWatch() {
    try (Jedis j = jedis(RedisProtocol.RESP2);
        Jedis other = jedis(RedisProtocol.RESP2)) {
      Pipeline p = j.pipelined();
      List<Response<String>> gets = new ArrayList<>();
      for (int i = 0; i < 1000; i++) {
        p.set("p" + i, Integer.toString(i));
        gets.add(p.get("p" + i));
      }
      p.sync();
      for (int i = 0; i < 1000; i++) {
        assertEquals(Integer.toString(i), gets.get(i).get());
      }
      j.watch("w");
      other.set("w", "changed");
      Transaction t = j.multi();
      t.set("t", "1");
      assertNull(t.exec(), "a watched key changed: EXEC aborts");
      Transaction t2 = j.multi();
      t2.incr("t");
      t2.incr("t");
      assertEquals(List.of(1L, 2L), t2.exec());
    }
  }

  @Test
  void scanWalksEveryKey() {
    try (Jedis j = jedis(RedisProtocol.RESP2)) {
      j.select(5);
      for (int i = 0; i < 300; i++) {
        j.set("s" + i, "v");
      }
      java.util.Set<String> seen = new java.util.HashSet<>();
      String cursor = ScanParams.SCAN_POINTER_START;
      do {
        ScanResult<String> r = j.scan(cursor, new ScanParams().count(50).match("s*"));
        seen.addAll(r.getResult());
        cursor = r.getCursor();
      } while (!cursor.equals("0"));
      assertEquals(300, seen.size());
      j.flushDB();
    }
  }

  @Test
  void concurrentIncrementsLoseNothing() throws Exception {
    int threads = 4;
    int each = 500;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(
            pool.submit(
                () -> {
                  try (Jedis j = jedis(RedisProtocol.RESP2)) {
                    for (int i = 0; i < each; i++) {
                      j.incr("counter");
                      j.hincrBy("hc", "f", 1);
                    }
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get(100, TimeUnit.SECONDS);
      }
      try (Jedis j = jedis(RedisProtocol.RESP2)) {
        assertEquals(Integer.toString(threads * each), j.get("counter"));
        assertEquals(Integer.toString(threads * each), j.hget("hc", "f"));
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
