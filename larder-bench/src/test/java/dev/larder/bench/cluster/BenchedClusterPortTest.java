package dev.larder.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.larder.bench.harness.TakenPort;
import dev.larder.testing.RequiredTool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;

/**
 * A benched cluster whose first member finds its port taken between found free and bound starts
 * that member on fresh ports, and the cluster forms and serves.
 */
@Timeout(300)
class BenchedClusterPortTest {

  @Test
  void larderMembersMoveOffAPortTakenBeforeTheyBoundIt() throws Exception {
    try (TakenPort taken = new TakenPort();
        BenchedCluster cluster =
            BenchedCluster.larderWith(
                new BenchedCluster.LarderMembers("160m", 32L << 20, 0, taken),
                "cluster-mode=distributed",
                "cluster-owners=2",
                "cluster-replication=sync")) {
      assertEquals(1, taken.handedOut(), "the taken port was tried first");
      assertNotEquals(taken.port(), cluster.entryPort());
      try (Jedis j = new Jedis("127.0.0.1", cluster.entryPort(), 30_000)) {
        assertEquals("OK", j.set("k", "v"));
        assertEquals("v", j.get("k"));
      }
      assertEquals(1, cluster.keys());
    }
  }

  @Test
  void redisClusterNodesMoveOffAPortTakenBeforeTheyBoundIt() throws Exception {
    RequiredTool.onPath("redis-server", "redis-server");
    RequiredTool.onPath("redis-cli", "redis-tools");
    try (TakenPort taken = new TakenPort();
        BenchedCluster cluster = BenchedCluster.redis(3, 0, 32L << 20, taken)) {
      assertEquals(1, taken.handedOut(), "the taken port was tried first");
      assertNotEquals(taken.port(), cluster.entryPort());
      assertEquals(0, cluster.keys());
    }
  }
}
