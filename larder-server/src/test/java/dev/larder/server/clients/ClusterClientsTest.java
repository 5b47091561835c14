package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.LarderServer;
import dev.larder.server.internal.cluster.HashSlot;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.resps.ClusterShardInfo;

/**
 * Cluster-aware Redis clients, unchanged, against three Larder servers in one cluster (distributed,
 * owners 2, every client redirected with MOVED): JedisCluster, Lettuce's RedisClusterClient, {@code
 * redis-cli -c} and {@code redis-benchmark --cluster}. Each routes by the slot map (CLUSTER SLOTS
 * or NODES) to the key's master, and reads back what it wrote through another member.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ClusterClientsTest {
  private static LoopbackCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster =
        new LoopbackCluster(
            3, "cluster-mode", "distributed", "cluster-owners", "2", "cluster-redirects", "on");
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  @SuppressWarnings("deprecation") // JedisCluster: what Jedis users run; Jedis 7 deprecates it
  void jedisCluster() {
    try (JedisCluster jc =
        new JedisCluster(
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
    RedisClusterClient client =
        RedisClusterClient.create(
            RedisURI.builder()
                .withHost("127.0.0.1")
                .withPort(cluster.member(1).respPort())
                .withTimeout(Duration.ofSeconds(20))
                .build());
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
      RunningServer.Run set =
          RunningServer.run(
              60, "redis-cli", "-c", "-h", "127.0.0.1", "-p", port, "set", "cli:" + i, "v" + i);
      assertEquals("OK\n", set.out(), set.out());
    }
    for (int i = 0; i < 20; i++) {
      RunningServer.Run get =
          RunningServer.run(
              60,
              "redis-cli",
              "-c",
              "-h",
              "127.0.0.1",
              "-p",
              Integer.toString(cluster.member(2).respPort()),
              "get",
              "cli:" + i);
      assertEquals("v" + i + "\n", get.out());
    }
    RunningServer.Run nodes =
        RunningServer.run(60, "redis-cli", "--cluster", "check", "127.0.0.1:" + port);
    assertEquals(0, nodes.exit(), nodes.out());
    assertTrue(nodes.out().contains("All 16384 slots covered"), nodes.out());
  }

  @Test
  void redisBenchmarkCluster() throws Exception {
    RunningServer.Run r =
        RunningServer.run(
            240,
            "redis-benchmark",
            "--cluster",
            "-h",
            "127.0.0.1",
            "-p",
            Integer.toString(cluster.member(0).respPort()),
            "-t",
            "set,get",
            "-n",
            "3000",
            "-c",
            "6",
            "-P",
            "4",
            "-d",
            "100",
            "-q");
    assertEquals(0, r.exit(), r.out());
    assertTrue(r.out().contains("Cluster has 3 master nodes"), r.out());
    assertTrue(r.out().contains("SET: ") && r.out().contains("GET: "), r.out());
    assertTrue(!r.out().contains("Error") && !r.out().contains("ERR"), r.out());
  }

  /** Returns the CLUSTER SLOTS entry holding a slot: from, to, then master and replicas. */
  @SuppressWarnings("deprecation") // Jedis 7 deprecates clusterSlots() with CLUSTER SLOTS itself
  private static List<?> slotEntry(Jedis j, long slot) {
    for (Object range : j.clusterSlots()) {
      List<?> r = (List<?>) range;
      if ((Long) r.get(0) <= slot && slot <= (Long) r.get(1)) {
        return r;
      }
    }
    throw new AssertionError("no range holds slot " + slot);
  }

  private static int masterPort(Jedis j, long slot) {
    return ((Long) ((List<?>) slotEntry(j, slot).get(2)).get(1)).intValue();
  }

  /** Returns a key whose slot's master is (or, with {@code mine} false, is not) on {@code port}. */
  private static String keyMasteredBy(Jedis j, int port, boolean mine, String prefix) {
    for (int i = 0; ; i++) {
      String key = prefix + i;
      if ((masterPort(j, j.clusterKeySlot(key)) == port) == mine) {
        return key;
      }
    }
  }

  @Test
  void plainClientsAreMovedToTheSlotsMaster() {
    int port = cluster.member(0).respPort();
    try (Jedis j = ClusteredServerTest.jedis(cluster.member(0))) {
      String foreign = keyMasteredBy(j, port, false, "moved:");
      long slot = j.clusterKeySlot(foreign);
      JedisDataException moved = assertThrows(JedisDataException.class, () -> j.set(foreign, "x"));
      assertEquals("MOVED " + slot + " 127.0.0.1:" + masterPort(j, slot), moved.getMessage());
      assertThrows(JedisDataException.class, () -> j.get(foreign));
      String own = keyMasteredBy(j, port, true, "moved:");
      assertEquals("OK", j.set(own, "here"));
      assertEquals("here", j.get(own));
      assertTrue(
          assertThrows(JedisDataException.class, () -> j.mset("{a}1", "1", "{b}2", "2"))
              .getMessage()
              .startsWith("CROSSSLOT "));
    }
  }

  /**
   * A command whose keys numkeys counts is routed by those keys alone: its option words and
   * numbers, which hash to other slots, are no CROSSSLOT; keys of two slots are.
   */
  @Test
  void countedKeysAloneChooseTheSlot() {
    int port = cluster.member(0).respPort();
    try (Jedis j = ClusteredServerTest.jedis(cluster.member(0))) {
      String own = keyMasteredBy(j, port, true, "zu:");
      String a = "{" + own + "}a";
      String b = "{" + own + "}b";
      String d = "{" + own + "}d";
      j.zadd(a, 1, "m");
      j.zadd(b, 2, "m");
      assertEquals(
          1L,
          j.sendCommand(
              Protocol.Command.ZUNIONSTORE, d, "2", a, b, "WEIGHTS", "1", "2", "AGGREGATE", "MAX"));
      assertEquals(List.of("m"), j.zrange(d, 0, -1));
      assertEquals(1L, j.sendCommand(Protocol.Command.ZINTERCARD, "2", a, b, "LIMIT", "7"));
      assertEquals(
          2,
          ((List<?>) j.sendCommand(Protocol.Command.ZMPOP, "2", a, b, "MIN", "COUNT", "5")).size());
      String foreign = keyMasteredBy(j, port, false, "zu:");
      assertTrue(
          assertThrows(
                  JedisDataException.class,
                  () -> j.sendCommand(Protocol.Command.ZUNION, "2", b, foreign))
              .getMessage()
              .startsWith("CROSSSLOT "));
    }
  }

  @Test
  @SuppressWarnings("deprecation") // Jedis 7 deprecates clusterSlots() with CLUSTER SLOTS itself
  void clusterSubcommandsDescribeADistributedCluster() {
    try (Jedis any = ClusteredServerTest.jedis(cluster.member(0))) {
      long total = 0;
      for (Object range : any.clusterSlots()) {
        List<?> r = (List<?>) range;
        assertEquals(4, r.size(), "a master and one replica (owners 2): " + r);
        total += (Long) r.get(1) - (Long) r.get(0) + 1;
      }
      assertEquals(HashSlot.SLOTS, total);
      List<ClusterShardInfo> shards = any.clusterShards();
      assertEquals(3, shards.size());
      long inShards = 0;
      Set<String> ids = new HashSet<>();
      for (ClusterShardInfo shard : shards) {
        for (List<Long> range : shard.getSlots()) {
          inShards += range.get(1) - range.get(0) + 1;
        }
        assertEquals(1, shard.getNodes().size(), "masters only: replicas back several masters");
        assertEquals("master", shard.getNodes().getFirst().getRole());
        ids.add(shard.getNodes().getFirst().getId());
      }
      assertEquals(HashSlot.SLOTS, inShards);
      Set<String> myIds = new HashSet<>();
      for (LarderServer m : cluster.members) {
        try (Jedis j = ClusteredServerTest.jedis(m)) {
          myIds.add(j.clusterMyId());
        }
      }
      assertEquals(ids, myIds, "every member is the master of some slots");

      int slot = (int) any.clusterKeySlot("{slotted}");
      try (Jedis master = new Jedis("127.0.0.1", masterPort(any, slot), 20_000)) {
        for (int i = 0; i < 5; i++) {
          assertEquals("OK", master.set("{slotted}" + i, "v"));
        }
        assertEquals(5, master.clusterCountKeysInSlot(slot));
        Set<String> keys = new HashSet<>(master.clusterGetKeysInSlot(slot, 10));
        assertEquals(
            Set.of("{slotted}0", "{slotted}1", "{slotted}2", "{slotted}3", "{slotted}4"), keys);
        assertEquals(2, master.clusterGetKeysInSlot(slot, 2).size());
        assertEquals(
            1L,
            master.waitReplicas(2, 100),
            "each write is on its key's other owner (owners 2) once acknowledged");
        assertTrue(master.info("replication").contains("connected_slaves:2"));
        assertTrue(master.info("replication").contains("larder_replication:sync"));
        assertEquals("master", master.role().getFirst());
        assertEquals(2, ((List<?>) master.role().get(2)).size());
      }
      assertTrue(
          assertThrows(JedisDataException.class, () -> any.clusterCountKeysInSlot(HashSlot.SLOTS))
              .getMessage()
              .startsWith("ERR Invalid slot"));
      assertTrue(any.clusterNodes().contains("myself,master"));
    }
  }
}
