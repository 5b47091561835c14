package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.cluster.ClusteredTxMember;
import dev.larder.server.LarderServer;
import dev.larder.server.ServerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;

/**
 * Clustered servers with {@code cluster-transactions on} and {@code dir}: each member logs the
 * commits it takes part in and recovers them at start. A member stopped and started again rejoins
 * with its log and takes what the others committed meanwhile; every member stopped and all started
 * again keep every acknowledged EXEC (without the log the cluster would come back empty). The
 * SIGKILLs of the same: larder-bench's {@code ServerClusterTxTrialTest}.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterTransactionsDurableServerTest {

  @TempDir Path dirs;

  @Test
  void acknowledgedExecsSurviveAMemberRestartAndAWholeClusterRestart() throws Exception {
    TransactionalServers.Plan plan =
        TransactionalServers.plan(
            3,
            i -> Map.of("dir", dirs.resolve("m" + i).toString(), "appendfsync", "always"),
            "cluster-timeout",
            "3000");
    List<LarderServer> members = new ArrayList<>(plan.startAll());
    List<String> acknowledged = new ArrayList<>();
    try {
      awaitReady(members, 3);
      for (int i = 0; i < 12; i++) {
        acknowledged.add(transfer(members.get(i % 3), "a" + i));
      }
      members.get(2).close();
      awaitReady(members.subList(0, 2), 2);
      for (int i = 0; i < 8; i++) {
        acknowledged.add(transfer(members.get(i % 2), "b" + i));
      }
      members.set(2, plan.start(2));
      awaitReady(members, 3);
      acknowledged.add(transfer(members.get(2), "c"));
      for (int m = 0; m < 3; m++) {
        assertHolds(members.get(m), acknowledged, "after m2's restart, through m" + m);
      }
      members.forEach(LarderServer::close);
      members.clear();
      members.addAll(plan.startAll());
      awaitReady(members, 3);
      for (int m = 0; m < 3; m++) {
        assertHolds(members.get(m), acknowledged, "after every member's restart, through m" + m);
      }
      acknowledged.add(transfer(members.get(1), "d"));
      assertHolds(members.get(0), acknowledged, "a new EXEC after the restart");
    } finally {
      members.forEach(LarderServer::close);
    }
  }

  @Test
  void aDirectoryHoldingAServerLogIsRefused() throws Exception {
    Path dir = Files.createDirectories(dirs.resolve("server-log-dir"));
    Files.writeString(dir.resolve("server-log"), "larder-server-log 1\n");
    Map<String, String> settings = new HashMap<>();
    settings.put("resp-port", Integer.toString(LoopbackCluster.freePort()));
    settings.put("memcache-port", "-1");
    settings.put("http-port", "-1");
    settings.put("cluster", "refused-" + ProcessHandle.current().pid());
    settings.put("cluster-port", Integer.toString(LoopbackCluster.freeClusterPort(true)));
    settings.put("cluster-size", "1");
    settings.put("cluster-transactions", "on");
    settings.put("dir", dir.toString());
    RuntimeException e =
        assertThrows(RuntimeException.class, () -> LarderServer.start(ServerConfig.of(settings)));
    assertTrue(e.getMessage().contains("holds a server log"), e.getMessage());
  }

  /**
   * Waits (at most 60 s) until every one of {@code members} may commit in an epoch of {@code n}
   * members: an EXEC sent while the store reconfigures could answer TRYAGAIN, in doubt.
   */
  private static void awaitReady(List<LarderServer> members, int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (LarderServer m : members) {
      ClusteredTxMember tx = m.clusteredTxMember().orElseThrow();
      while (!tx.isReady() || tx.members().size() != n) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError(
              m.clusterNodeName() + " not READY in an epoch of " + n + ": " + tx.members());
        }
        Thread.sleep(20);
      }
    }
  }

  /** One EXEC through {@code m}: both counters up by one and the id appended; returns the id. */
  private static String transfer(LarderServer m, String id) {
    try (Jedis c = new Jedis("127.0.0.1", m.respPort(), 20_000)) {
      Transaction t = c.multi();
      t.incr("durable:a");
      t.incr("durable:b");
      t.rpush("durable:log", id);
      List<Object> r = t.exec();
      assertEquals(3, r.size(), "EXEC of " + id + " through " + m.clusterNodeName());
      return id;
    }
  }

  private static void assertHolds(LarderServer m, List<String> acknowledged, String when)
      throws InterruptedException {
    try (Jedis r = new Jedis("127.0.0.1", m.respPort(), 20_000)) {
      // a member reads a commit made through another once it has applied it: a moment at most
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (r.llen("durable:log") < acknowledged.size() && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertEquals(acknowledged, r.lrange("durable:log", 0, -1), when);
      assertEquals(String.valueOf(acknowledged.size()), r.get("durable:a"), when);
      assertEquals(String.valueOf(acknowledged.size()), r.get("durable:b"), when);
    }
  }
}
