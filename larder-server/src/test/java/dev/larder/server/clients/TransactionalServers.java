package dev.larder.server.clients;

import dev.larder.server.LarderServer;
import dev.larder.server.ServerConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * Test helper: clustered Larder servers with {@code cluster-transactions on} on 127.0.0.1 inside
 * this JVM, started at once (each waits for {@code cluster-size} members), each with a cluster port
 * whose transactions port (1000 above) is free too. A {@link Plan} keeps each member's name, ports
 * and settings, so that a member, or all of them, can be started again as they were (a restart from
 * a log). A port found free and then taken by someone else before a member's first start bound it
 * does not fail the start: the member starts again on fresh ports.
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
      members.add(m);
    }
    return new Plan(members, ports);
  }

  /**
   * Each member's settings: its ports are chosen free when planned, chosen afresh if one was taken
   * by the time the member first binds it, and kept from the member's first start on (a restart
   * comes back on them, as a restarted server does).
   *
   * <p>Thread-safe: the members of {@link #startAll} start on threads of their own.
   */
  static final class Plan {
    /** How many times a member's first start may find a port taken and choose fresh ones. */
    static final int FIRST_START_ATTEMPTS = 5;

    private final List<Map<String, String>> members;
    private final int[] clusterPorts;
    private final boolean[] started;

    private Plan(List<Map<String, String>> members, int[] clusterPorts) {
      this.members = members;
      this.clusterPorts = clusterPorts;
      this.started = new boolean[members.size()];
    }

    /** Returns member {@code i}'s settings as they stand now. */
    synchronized Map<String, String> settings(int i) {
      return Map.copyOf(members.get(i));
    }

    /**
     * Starts member {@code i}; returns once it serves. At its first start, a port taken by the time
     * it binds (by a socket outside this harness, a moment after it was found free) is replaced by
     * fresh ones and the member started again, at most {@value #FIRST_START_ATTEMPTS} times; from
     * then on it starts on the ports it bound, trying again for a while if one is still held (see
     * {@link LoopbackCluster#startOnOwnPorts}).
     */
    LarderServer start(int i) throws Exception {
      if (hasStarted(i)) {
        return LoopbackCluster.startOnOwnPorts(settings(i));
      }
      for (int attempt = 1; ; attempt++) {
        Map<String, String> m = settings(i);
        try {
          LarderServer server = LarderServer.start(ServerConfig.of(m));
          markStarted(i);
          return server;
        } catch (IOException | RuntimeException e) {
          if (attempt == FIRST_START_ATTEMPTS || !LoopbackCluster.causedByBind(e)) {
            throw e;
          }
          System.err.println(
              "TransactionalServers: "
                  + m.get("cluster-node-name")
                  + " could not bind (attempt "
                  + attempt
                  + ", ephemeral ports "
                  + LoopbackCluster.ephemeralRange()
                  + "): "
                  + e
                  + "; starting it on fresh ports");
          freshPorts(i);
        }
      }
    }

    /** Starts every member at once; returns when every one serves, or closes them all. */
    List<LarderServer> startAll() throws Exception {
      List<Callable<LarderServer>> starts = new ArrayList<>();
      for (int i = 0; i < members.size(); i++) {
        int member = i;
        starts.add(() -> start(member));
      }
      return LoopbackCluster.startAtOnce(starts);
    }

    private synchronized boolean hasStarted(int i) {
      return started[i];
    }

    private synchronized void markStarted(int i) {
      started[i] = true;
    }

    /**
     * Gives member {@code i} a fresh RESP port and cluster port (with the transactions port above
     * it), and every member's {@code peers} the new cluster port (those running found it through
     * the peers it names; a later restart finds it through its own).
     */
    private synchronized void freshPorts(int i) throws IOException {
      clusterPorts[i] = LoopbackCluster.freeClusterPort(true);
      members.get(i).put("resp-port", Integer.toString(LoopbackCluster.freePort()));
      members.get(i).put("cluster-port", Integer.toString(clusterPorts[i]));
      String peers = LoopbackCluster.peers(clusterPorts);
      for (Map<String, String> m : members) {
        m.put("peers", peers);
      }
    }
  }
}
