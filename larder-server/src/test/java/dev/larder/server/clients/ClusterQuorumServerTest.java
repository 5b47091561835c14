package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A member cut off from the other two (JGroups' DISCARD) under quorum partition handling: its
 * Redis clients get CLUSTERDOWN and its memcached clients SERVER_ERROR for writes, reads are
 * still served (minority reads on), CLUSTER INFO says fail; the majority goes on; after the
 * merge the cut-off member serves the majority's writes.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterQuorumServerTest {

  @Test
  void aCutOffMemberRefusesWritesWithClearErrors() throws Exception {
    try (LoopbackCluster cluster = new LoopbackCluster(3)) {
      try (Jedis a = ClusteredServerTest.jedis(cluster.member(0));
          Jedis b = ClusteredServerTest.jedis(cluster.member(1));
          ClusteredServerTest.Memcached ma = new ClusteredServerTest.Memcached(
              cluster.member(0))) {
        b.set("k", "before");
        cluster.cutOff(0);
        JedisDataException refused = assertThrows(JedisDataException.class,
            () -> a.set("k", "minority"));
        assertTrue(refused.getMessage().startsWith("CLUSTERDOWN "), refused.getMessage());
        assertTrue(refused.getMessage().contains("not a majority"), refused.getMessage());
        String memcached = ma.command("set k 0 0 1\r\nx");
        assertTrue(memcached.startsWith("SERVER_ERROR ") && memcached.contains("majority"),
            memcached);
        assertEquals("before", a.get("k"), "minority reads are on by default");
        assertTrue(a.clusterInfo().contains("cluster_state:fail"));
        assertEquals("OK", b.set("k", "majority"));

        cluster.heal();
        assertEquals("majority", a.get("k"));
        assertEquals("OK", a.set("k", "after"));
        assertEquals("after", b.get("k"));
        assertTrue(a.clusterInfo().contains("cluster_state:ok"));
      }
    }
  }
}
