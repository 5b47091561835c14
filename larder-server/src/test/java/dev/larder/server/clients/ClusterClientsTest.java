package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;

/**
 * Cluster-aware Redis clients, unchanged, against three Larder servers in one cluster
 * (distributed, owners 2, every client redirected with MOVED): JedisCluster, Lettuce's
 * RedisClusterClient, {@code redis-cli -c} and {@code redis-benchmark --cluster}. Each routes by
 * the slot map (CLUSTER SLOTS or NODES) to the key's master, and reads back what it wrote
 * through another member.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ClusterClientsTest {
  private static LoopbackCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = new LoopbackCluster(3, "cluster-mode", "distributed", "cluster-owners", "2",
        "cluster-redirects", "on");
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  @SuppressWarnings("deprecation") // JedisCluster: what Jedis users run; Jedis 7 deprecates it
  void jedisCluster() {
    try (JedisCluster jc = new JedisCluster(
        Set.of(new HostAndPort("127.0.0.1", cluster.member(0).respPort())), 20_000, 20_000)) {
      assertEquals(3, jc.getClusterNodes().size());
      for (int i = 0; i < 500; i++) {
        assertEquals("OK", jc.set("jc:" + i, "v" + i));
      }
      for (int i = 0; i < 500; i++) {
        assertEquals("v" + i, jc.get("jc:" + i));
      }
      assertEquals(2L, jc.incrBy("{jc}n", 2));
      assertEquals("OK", jc.mset("{jc}a", "1", "{jc}b", "2"));
      assertEquals(java.util.List.of("1", "2"), jc.mget("{jc}a", "{jc}b"));
    }
  }

  @Test
  void lettuceRedisClusterClient() {
    RedisClusterClient client = RedisClusterClient.create(RedisURI.builder()
        .withHost("127.0.0.1").withPort(cluster.member(1).respPort())
        .withTimeout(Duration.ofSeconds(20)).build());
    try (StatefulRedisClusterConnection<String, String> c = client.connect()) {
      RedisAdvancedClusterCommands<String, String> sync = c.sync();
      assertEquals(3, c.getPartitions().size());
      for (int i = 0; i < 500; i++) {
        assertEquals("OK", sync.set("lc:" + i, "v" + i));
      }
      for (int i = 0; i < 500; i++) {
        assertEquals("v" + i, sync.get("lc:" + i));
      }
      // Lettuce splits a cross-slot MSET by slot and sends each part to its master
      assertEquals("OK", sync.mset(java.util.Map.of("lca", "1", "lcb", "2", "lcc", "3")));
      assertEquals(3, sync.mget("lca", "lcb", "lcc").size());
      assertEquals("2", sync.get("lcb"));
    } finally {
      client.shutdown();
    }
  }

  @Test
  void redisCliFollowsRedirections() throws Exception {
    String port = Integer.toString(cluster.member(0).respPort());
    for (int i = 0; i < 20; i++) {
      RunningServer.Run set = RunningServer.run(60, "redis-cli", "-c", "-h", "127.0.0.1", "-p",
          port, "set", "cli:" + i, "v" + i);
      assertEquals("OK\n", set.out(), set.out());
    }
    for (int i = 0; i < 20; i++) {
      RunningServer.Run get = RunningServer.run(60, "redis-cli", "-c", "-h", "127.0.0.1", "-p",
          Integer.toString(cluster.member(2).respPort()), "get", "cli:" + i);
      assertEquals("v" + i + "\n", get.out());
    }
    RunningServer.Run nodes = RunningServer.run(60, "redis-cli", "--cluster", "check",
        "127.0.0.1:" + port);
    assertEquals(0, nodes.exit(), nodes.out());
    assertTrue(nodes.out().contains("All 16384 slots covered"), nodes.out());
  }

  @Test
  void redisBenchmarkCluster() throws Exception {
    RunningServer.Run r = RunningServer.run(240, "redis-benchmark", "--cluster", "-h",
        "127.0.0.1", "-p", Integer.toString(cluster.member(0).respPort()), "-t", "set,get",
        "-n", "3000", "-c", "6", "-P", "4", "-d", "100", "-q");
    assertEquals(0, r.exit(), r.out());
    assertTrue(r.out().contains("Cluster has 3 master nodes"), r.out());
    assertTrue(r.out().contains("SET: ") && r.out().contains("GET: "), r.out());
    assertTrue(!r.out().contains("Error") && !r.out().contains("ERR"), r.out());
  }
}
