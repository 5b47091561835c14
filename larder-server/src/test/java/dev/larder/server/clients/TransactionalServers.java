package dev.larder.server.clients;

import dev.larder.server.LarderServer;
import dev.larder.server.ServerConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Test helper: clustered Larder servers with {@code cluster-transactions on} on 127.0.0.1 inside
 * this JVM, started at once (each waits for {@code cluster-size} members), each with a cluster port
 * whose transactions port (1000 above) is free too.
 */
final class TransactionalServers {
  private static final AtomicInteger CLUSTERS = new AtomicInteger();

  private TransactionalServers() {}

  /**
   * Starts {@code size} members; returns when every one serves.
   *
   * @param settings more settings, name then value, for every member
   */
  static List<LarderServer> start(int size, String... settings) throws Exception {
    String name = "tx-server-" + ProcessHandle.current().pid() + "-" + CLUSTERS.incrementAndGet();
    int[] ports = new int[size];
    StringBuilder peers = new StringBuilder();
    for (int i = 0; i < size; i++) {
      ports[i] = LoopbackCluster.freePortWith(1000);
      peers.append(i == 0 ? "" : ",").append("127.0.0.1[").append(ports[i]).append(']');
    }
    List<LarderServer> members = new ArrayList<>();
    ExecutorService starter = Executors.newFixedThreadPool(size);
    try {
      List<Future<LarderServer>> started = new ArrayList<>();
      for (int i = 0; i < size; i++) {
        Map<String, String> m = new HashMap<>();
        m.put("resp-port", Integer.toString(LoopbackCluster.freePort()));
        m.put("memcache-port", "0");
        m.put("http-port", "-1");
        m.put("cluster", name);
        m.put("cluster-port", Integer.toString(ports[i]));
        m.put("peers", peers.toString());
        m.put("cluster-command-threads", "8");
        m.put("cluster-node-name", "m" + i);
        m.put("cluster-size", Integer.toString(size));
        m.put("cluster-transactions", "on");
        for (int s = 0; s < settings.length; s += 2) {
          m.put(settings[s], settings[s + 1]);
        }
        started.add(starter.submit(() -> LarderServer.start(ServerConfig.of(m))));
      }
      for (Future<LarderServer> f : started) {
        members.add(f.get(120, TimeUnit.SECONDS));
      }
    } catch (Exception | Error e) {
      members.forEach(LarderServer::close);
      throw e;
    } finally {
      starter.shutdownNow();
    }
    return members;
  }
}
