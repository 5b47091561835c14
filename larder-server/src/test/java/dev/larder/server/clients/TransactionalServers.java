package dev.larder.server.clients;

import dev.larder.server.LarderServer;
import dev.larder.server.ServerConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * Test helper: clustered Larder servers with {@code cluster-transactions on} on 127.0.0.1 inside
 * this JVM, started at once (each waits for {@code cluster-size} members), each with a cluster port
 * whose transactions port (1000 above) is free too. A {@link Plan} keeps each member's name, ports
 * and settings, so that a member, or all of them, can be started again as they were (a restart from
 * a log).
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
    return plan(size, i -> Map.of(), settings).startAll();
  }

  /**
   * Chooses the ports and settings of {@code size} members without starting them.
   *
   * @param own each member's own settings (a directory of its own, say), over {@code settings}
   * @param settings more settings, name then value, for every member
   */
  static Plan plan(int size, IntFunction<Map<String, String>> own, String... settings)
      throws Exception {
    String name = "tx-server-" + ProcessHandle.current().pid() + "-" + CLUSTERS.incrementAndGet();
    int[] ports = new int[size];
    for (int i = 0; i < size; i++) {
      ports[i] = LoopbackCluster.freeClusterPort(true);
    }
    String peers = LoopbackCluster.peers(ports);
    List<Map<String, String>> members = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      Map<String, String> m = new HashMap<>();
      m.put("resp-port", Integer.toString(LoopbackCluster.freePort()));
      m.put("memcache-port", "0");
      m.put("http-port", "-1");
      m.put("cluster", name);
      m.put("cluster-port", Integer.toString(ports[i]));
      m.put("peers", peers);
      m.put("cluster-command-threads", "8");
      m.put("cluster-node-name", "m" + i);
      m.put("cluster-size", Integer.toString(size));
      m.put("cluster-transactions", "on");
      for (int s = 0; s < settings.length; s += 2) {
        m.put(settings[s], settings[s + 1]);
      }
      m.putAll(own.apply(i));
      members.add(Map.copyOf(m));
    }
    return new Plan(List.copyOf(members));
  }

  /**
   * Each member's settings, fixed once chosen.
   *
   * @param members each member's settings, by index
   */
  record Plan(List<Map<String, String>> members) {

    /** Starts member {@code i} with its settings; returns once it serves. */
    LarderServer start(int i) throws Exception {
      return LarderServer.start(ServerConfig.of(members.get(i)));
    }

    /** Starts every member at once; returns when every one serves, or closes them all. */
    List<LarderServer> startAll() throws Exception {
      return LoopbackCluster.startAtOnce(members);
    }
  }
}
