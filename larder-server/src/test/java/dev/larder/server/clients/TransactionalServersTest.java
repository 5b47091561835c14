package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.LarderServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;

/**
 * The test harness's starts survive a port taken between being found free and being bound: a first
 * start moves to fresh ports, a restart waits for its own. The port is taken on purpose here (a
 * listener on it before the start), so the failed bind happens every time, not by chance.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TransactionalServersTest {

  @Test
  void aFirstStartWhoseRespPortIsTakenStartsOnFreshPorts() throws Exception {
    TransactionalServers.Plan plan = TransactionalServers.plan(1, i -> Map.of());
    int planned = Integer.parseInt(plan.settings(0).get("resp-port"));
    List<LarderServer> members;
    try (ServerSocket _ = listenOn(planned)) {
      members = plan.startAll();
    }
    try (LarderServer m = members.getFirst()) {
      assertNotEquals(planned, m.respPort(), "started on the port someone else held");
      assertEquals(Integer.toString(m.respPort()), plan.settings(0).get("resp-port"));
      assertPong(m);
    }
  }

  @Test
  void aFirstStartWhoseClusterPortIsTakenStartsOnFreshPorts() throws Exception {
    TransactionalServers.Plan plan = TransactionalServers.plan(1, i -> Map.of());
    int planned = Integer.parseInt(plan.settings(0).get("cluster-port"));
    LarderServer m;
    try (ServerSocket _ = listenOn(planned)) {
      m = plan.start(0);
    }
    try (m) {
      String now = plan.settings(0).get("cluster-port");
      assertNotEquals(Integer.toString(planned), now, "the cluster port was not moved");
      assertTrue(
          plan.settings(0).get("peers").contains("[" + now + "]"), plan.settings(0).get("peers"));
      assertPong(m);
    }
  }

  @Test
  void aRestartWaitsForItsOwnPortToBeFreed() throws Exception {
    TransactionalServers.Plan plan = TransactionalServers.plan(1, i -> Map.of());
    int port;
    try (LarderServer first = plan.start(0)) {
      port = first.respPort();
    }
    AtomicInteger takenSeen = new AtomicInteger();
    ServerSocket holder = listenOn(port);
    LarderServer again;
    try {
      // the holder is closed only once a start found the port taken: the wait is exercised
      again =
          LoopbackCluster.startOnOwnPorts(
              plan.settings(0),
              () -> {
                takenSeen.incrementAndGet();
                close(holder);
              });
    } finally {
      holder.close();
    }
    try (again) {
      assertTrue(takenSeen.get() >= 1, "the restart never found its port taken");
      assertEquals(port, again.respPort(), "a restart keeps its port");
      assertPong(again);
    }
  }

  private static ServerSocket listenOn(int port) throws IOException {
    ServerSocket s = new ServerSocket();
    s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    return s;
  }

  private static void close(ServerSocket s) {
    try {
      s.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void assertPong(LarderServer m) {
    try (Jedis c = new Jedis("127.0.0.1", m.respPort(), 20_000)) {
      assertEquals("PONG", c.ping());
    }
  }
}
