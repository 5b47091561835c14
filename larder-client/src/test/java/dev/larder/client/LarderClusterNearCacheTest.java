package dev.larder.client;

import dev.larder.server.LarderServer;
import dev.larder.server.ServerConfig;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The near-cache contract against a 3-member Larder cluster started in this JVM on loopback: the
 * cached client reads through member 1 while the other client writes through member 0, so every
 * invalidation crosses members.
 */
class LarderClusterNearCacheTest extends NearCacheContract {
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
  private static final List<LarderServer> MEMBERS = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    int size = 3;
    String name = "near-cache-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    int[] clusterPorts = new int[size];
    for (int i = 0; i < size; i++) {
      clusterPorts[i] = freePort();
    }
    for (int i = 0; i < size; i++) {
      MEMBERS.add(startMember(name, clusterPorts, i));
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (MEMBERS.stream()
        .anyMatch(m -> m.clusteredStore().orElseThrow().members().size() < size)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the members never saw each other");
      }
      Thread.sleep(20);
    }
    for (LarderServer m : MEMBERS) {
      if (!m.clusteredStore().orElseThrow().awaitRebalanced(Duration.ofSeconds(30))) {
        throw new AssertionError(m.clusterNodeName() + " did not finish its rebalance");
      }
    }
  }

  /**
   * Starts member {@code i}; if a port it was handed is taken by the time it binds (found free a
   * moment before, then taken by a socket outside this test), starts it again on fresh ports, at
   * most 5 times, and puts its new cluster port in {@code clusterPorts} (the members after it are
   * given it as a peer; those before find it through the peers it names).
   */
  private static LarderServer startMember(String name, int[] clusterPorts, int i)
      throws IOException {
    for (int attempt = 1; ; attempt++) {
      StringBuilder peers = new StringBuilder();
      for (int k = 0; k < clusterPorts.length; k++) {
        peers.append(k == 0 ? "" : ",").append("127.0.0.1[").append(clusterPorts[k]).append(']');
      }
      try {
        return LarderServer.start(
            ServerConfig.of(
                Map.of(
                    "resp-port",
                    Integer.toString(freePort()),
                    "memcache-port",
                    "-1",
                    "http-port",
                    "-1",
                    "cluster",
                    name,
                    "cluster-port",
                    Integer.toString(clusterPorts[i]),
                    "peers",
                    peers.toString(),
                    "cluster-command-threads",
                    "8",
                    "cluster-node-name",
                    "m" + i)));
      } catch (IOException | RuntimeException e) {
        if (attempt == 5 || !portTaken(e)) {
          throw e;
        }
        System.err.println("LarderClusterNearCacheTest: m" + i + " could not bind (" + e + ")");
        clusterPorts[i] = freePort();
      }
    }
  }

  /**
   * Whether a start failed on a port taken: a listener's ("the port is in use", the server's words
   * for the JDK's and the epoll transport's errors alike) or JGroups' transport's.
   */
  private static boolean portTaken(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String message = String.valueOf(t.getMessage());
      if (t instanceof BindException
          || message.contains("the port is in use")
          || message.contains("No available port to bind")) {
        return true;
      }
    }
    return false;
  }

  /**
   * A loopback port free now, below Linux's ephemeral range, handed out once per JVM (see
   * larder-server's LoopbackCluster for why not port 0).
   */
  private static int freePort() throws IOException {
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = 20_000 + ThreadLocalRandom.current().nextInt(12_000);
      if (!HANDED_OUT.add(port)) {
        continue;
      }
      try (ServerSocket s = new ServerSocket()) {
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        return port;
      } catch (BindException e) {
        // taken by another process: try another
      }
    }
    throw new IOException("no free loopback port in 20000-31999 after 200 attempts");
  }

  @AfterAll
  static void stop() {
    MEMBERS.forEach(LarderServer::close);
  }

  @Override
  int port() {
    return MEMBERS.get(1).respPort();
  }

  @Override
  int writerPort() {
    return MEMBERS.get(0).respPort();
  }
}
