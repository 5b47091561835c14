package dev.larder.server.clients;

import dev.larder.cluster.ClusteredCache;
import dev.larder.cluster.internal.ClusteredLarderCache;
import dev.larder.server.LarderServer;
import dev.larder.server.ServerConfig;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.jgroups.JChannel;
import org.jgroups.protocols.DISCARD;
import org.jgroups.protocols.TP;
import org.jgroups.stack.ProtocolStack;

/**
 * Test helper: Larder servers forming one cluster on 127.0.0.1 inside this JVM, each with free
 * RESP, memcached and cluster ports, finding each other through {@code peers}; and partitions made
 * with JGroups' DISCARD inserted above each member's transport.
 */
final class LoopbackCluster implements AutoCloseable {
  private static final AtomicInteger CLUSTERS = new AtomicInteger();
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

  final List<LarderServer> members = new ArrayList<>();
  private final List<DISCARD> discards = new ArrayList<>();

  /**
   * @param size members
   * @param settings more settings, name then value, for every member
   */
  LoopbackCluster(int size, String... settings) throws IOException {
    String name = "server-test-" + ProcessHandle.current().pid() + "-" + CLUSTERS.incrementAndGet();
    int[] ports = new int[size];
    StringBuilder peers = new StringBuilder();
    for (int i = 0; i < size; i++) {
      ports[i] = freePort();
      peers.append(i == 0 ? "" : ",").append("127.0.0.1[").append(ports[i]).append(']');
    }
    try {
      for (int i = 0; i < size; i++) {
        Map<String, String> m =
            new HashMap<>(
                Map.of(
                    "resp-port",
                    Integer.toString(freePort()),
                    "memcache-port",
                    "0",
                    "http-port",
                    "-1",
                    "cluster",
                    name,
                    "cluster-port",
                    Integer.toString(ports[i]),
                    "peers",
                    peers.toString(),
                    "cluster-command-threads",
                    "8",
                    "cluster-node-name",
                    "m" + i));
        for (int s = 0; s < settings.length; s += 2) {
          m.put(settings[s], settings[s + 1]);
        }
        members.add(LarderServer.start(ServerConfig.of(m)));
      }
      await(
          () -> members.stream().allMatch(m -> store(m).members().size() == size),
          "every member sees " + size);
      for (LarderServer m : members) {
        if (!store(m).awaitRebalanced(Duration.ofSeconds(30))) {
          throw new AssertionError(m.clusterNodeName() + " did not finish its rebalance");
        }
      }
    } catch (IOException | RuntimeException | Error e) {
      close();
      throw e;
    }
  }

  /**
   * Returns a loopback port free now, chosen below Linux's default ephemeral range (32768-60999). A
   * port the kernel hands out for a bind to port 0 is free only until it hands it out again, as the
   * local end of a connection or another listener's port 0: that happened between choosing a
   * member's cluster port here and the member binding it ("the port is in use"). The same holds for
   * a clustered server's RESP port 0, which it chooses before it joins and binds after, so the
   * members are given their RESP ports from here too. A port is handed out once per test JVM.
   */
  static int freePort() throws IOException {
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

  LarderServer member(int i) {
    return members.get(i);
  }

  static ClusteredCache<byte[], byte[]> store(LarderServer m) {
    return m.clusteredStore().orElseThrow();
  }

  private static JChannel channel(LarderServer m) {
    return ((ClusteredLarderCache<?, ?>) store(m)).engine().channel();
  }

  /** Cuts member {@code i} off from the others until {@link #heal}. */
  void cutOff(int i) throws Exception {
    for (LarderServer m : members) {
      DISCARD d = new DISCARD();
      channel(m).getProtocolStack().insertProtocol(d, ProtocolStack.Position.ABOVE, TP.class);
      discards.add(d);
    }
    for (int j = 0; j < members.size(); j++) {
      for (int k = 0; k < members.size(); k++) {
        if ((j == i) != (k == i)) {
          discards.get(j).addIgnoreMember(channel(member(k)).getAddress());
        }
      }
    }
    await(
        () ->
            store(member(i)).members().size() == 1
                && store(member((i + 1) % members.size())).members().size() == members.size() - 1,
        "the split");
  }

  /** Ends the partition and waits for the merge and its rebalance. */
  void heal() {
    discards.forEach(DISCARD::resetIgnoredMembers);
    await(
        () ->
            members.stream()
                .allMatch(m -> store(m).members().size() == members.size() && store(m).available()),
        () ->
            "the merge: "
                + members.stream()
                    .map(
                        m ->
                            m.clusterNodeName()
                                + " sees "
                                + store(m).members()
                                + ", available "
                                + store(m).available())
                    .toList());
    for (LarderServer m : members) {
      store(m).awaitRebalanced(Duration.ofSeconds(30));
    }
  }

  static void await(BooleanSupplier condition, String what) {
    await(condition, () -> what);
  }

  /** Waits up to 60 s for a condition; on timeout says {@code what}, evaluated then. */
  static void await(BooleanSupplier condition, java.util.function.Supplier<String> what) {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what.get());
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  @Override
  public void close() {
    for (LarderServer m : members) {
      m.close();
    }
  }
}
