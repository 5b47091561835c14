package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.LarderServer;
import dev.larder.testing.RequiredTool;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.args.SortedSetOption;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ZAddParams;
import redis.clients.jedis.params.ZParams;
import redis.clients.jedis.params.ZRangeParams;
import redis.clients.jedis.resps.Tuple;
import redis.clients.jedis.util.KeyValue;

/** Sets and sorted sets through redis-cli, redis-benchmark and Jedis against a real server. */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class SetAndSortedSetClientsTest {
  private static LarderServer server;

  @BeforeAll
  static void start() throws Exception {
    server = RunningServer.start();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static String cli(String... args) throws Exception {
    RequiredTool.onPath("redis-cli", "redis-tools");
    String[] command = new String[args.length + 5];
    command[0] = "redis-cli";
    command[1] = "-h";
    command[2] = "127.0.0.1";
    command[3] = "-p";
    command[4] = Integer.toString(server.respPort());
    System.arraycopy(args, 0, command, 5, args.length);
    RunningServer.Run r = RunningServer.run(60, command);
    assertEquals(0, r.exit(), r.out());
    return r.out();
  }

  private static Jedis jedis(RedisProtocol protocol) {
    return new Jedis(
        new HostAndPort("127.0.0.1", server.respPort()),
        DefaultJedisClientConfig.builder().protocol(protocol).timeoutMillis(20_000).build());
  }

  @Test
  void redisCli() throws Exception {
    assertEquals("3\n", cli("-n", "3", "sadd", "tags", "red", "green", "blue"));
    assertEquals("blue\ngreen\nred\n", cli("-n", "3", "smembers", "tags"));
    assertEquals("2\n", cli("-n", "3", "zadd", "board", "10", "ann", "20.5", "bob"));
    assertEquals(
        "bob\n20.5\nann\n10\n", cli("-n", "3", "zrevrange", "board", "0", "-1", "withscores"));
    assertEquals("ann\n10\n", cli("-3", "-n", "3", "zpopmin", "board"));
    assertEquals("zset\n", cli("-n", "3", "type", "board"));
  }

  @Test
  void redisBenchmarkSetAndSortedSetTests() throws Exception {
    RequiredTool.onPath("redis-benchmark", "redis-tools");
    RunningServer.Run r =
        RunningServer.run(
            240,
            "redis-benchmark",
            "-h",
            "127.0.0.1",
            "-p",
            Integer.toString(server.respPort()),
            "-t",
            "sadd,spop,zadd,zpopmin",
            "-n",
            "5000",
            "-c",
            "10",
            "-P",
            "8",
            "--dbnum",
            "8",
            "-q");
    assertEquals(0, r.exit(), r.out());
    for (String test : List.of("SADD: ", "SPOP: ", "ZADD: ", "ZPOPMIN: ")) {
      assertTrue(r.out().contains(test), r.out());
    }
    assertTrue(!r.out().contains("ERR"), r.out());
  }

  @Test
  void jedisInResp2AndResp3() {
    for (RedisProtocol protocol : new RedisProtocol[] {RedisProtocol.RESP2, RedisProtocol.RESP3}) {
      try (Jedis j = jedis(protocol)) {
        j.select(protocol == RedisProtocol.RESP2 ? 4 : 5);
        assertEquals(3, j.sadd("s", "a", "b", "c"));
        assertEquals(Set.of("a", "b", "c"), j.smembers("s"));
        assertTrue(j.sismember("s", "a"));
        assertEquals(List.of(true, false), j.smismember("s", "b", "z"));
        j.sadd("t", "b", "c", "d");
        assertEquals(Set.of("b", "c"), j.sinter("s", "t"));
        assertEquals(2, j.sintercard("s", "t"));
        assertEquals(Set.of("a", "b", "c", "d"), j.sunion("s", "t"));
        assertEquals(Set.of("a"), j.sdiff("s", "t"));
        assertEquals(1, j.smove("s", "t", "a"));
        assertEquals(2, j.scard("s"));
        assertEquals(3, j.zadd("z", java.util.Map.of("x", 1.0, "y", 2.5, "w", -1.0)));
        assertEquals(2.5, j.zscore("z", "y"));
        assertNull(j.zscore("z", "nobody"));
        assertEquals(0L, j.zadd("z", 5.0, "x", ZAddParams.zAddParams().gt()));
        assertEquals(5.0, j.zscore("z", "x"));
        assertEquals(List.of("w", "y", "x"), j.zrange("z", 0, -1));
        List<Tuple> scored = j.zrangeWithScores("z", 0, 0);
        assertEquals(new Tuple("w", -1.0), scored.getFirst());
        assertEquals(
            List.of("x", "y"), j.zrange("z", ZRangeParams.zrangeByScoreParams(10, 0).rev()));
        assertEquals(List.of("y"), j.zrangeByScore("z", "(0", "(5"));
        assertEquals(1L, j.zrevrank("z", "x") + 1);
        assertEquals(8.5, j.zincrby("z", 3.5, "x"));
        assertEquals(
            List.of(new Tuple("y", 2.5), new Tuple("x", 8.5)),
            j.zunionWithScores(new ZParams().aggregate(ZParams.Aggregate.MAX), "z", "z")
                .subList(1, 3));
        assertEquals(new Tuple("x", 8.5), j.zpopmax("z"));
        assertEquals(2, j.zcard("z"));
        assertThrows(JedisDataException.class, () -> j.get("z"));
        j.flushDB();
      }
    }
  }

  /**
   * Jedis's blocking sorted-set pops in RESP2 and RESP3: a fractional timeout answers null after
   * its time; a member added by another connection serves a blocked pop.
   */
  @Test
  void jedisBlockingSortedSetPops() throws Exception {
    for (RedisProtocol protocol : List.of(RedisProtocol.RESP2, RedisProtocol.RESP3)) {
      try (Jedis j = jedis(protocol);
          Jedis writer = jedis(RedisProtocol.RESP2)) {
        j.del("bz", "bz2");
        long start = System.nanoTime();
        assertNull(j.bzpopmin(0.2, "bz"));
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(elapsedMs >= 190, "returned after " + elapsedMs + " ms");
        assertNull(j.bzmpop(0.05, SortedSetOption.MAX, "bz", "bz2"));
        KeyValue<String, Tuple> popped;
        try (ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor()) {
          Future<KeyValue<String, Tuple>> pop = exec.submit(() -> j.bzpopmax(10, "bz", "bz2"));
          // Adds once the pop has blocked (INFO counts it), so that the add serves it.
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
          while (!writer.info("clients").contains("blocked_clients:1")) {
            assertTrue(System.nanoTime() < deadline, "the pop never blocked");
            Thread.sleep(5);
          }
          writer.zadd("bz2", 2.5, "m");
          popped = pop.get(10, TimeUnit.SECONDS);
        }
        assertEquals("bz2", popped.getKey());
        assertEquals(new Tuple("m", 2.5), popped.getValue());
        writer.zadd("bz", Map.of("a", 1.0, "b", 2.0, "c", 3.0));
        KeyValue<String, List<Tuple>> many = j.bzmpop(1, SortedSetOption.MIN, 2, "bz");
        assertEquals(List.of(new Tuple("a", 1.0), new Tuple("b", 2.0)), many.getValue());
      }
    }
  }
}
