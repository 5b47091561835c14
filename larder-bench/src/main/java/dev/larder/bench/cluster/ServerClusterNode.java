package dev.larder.bench.cluster;

import dev.larder.cluster.ClusteredCache;
import dev.larder.cluster.internal.ClusteredLarderCache;
import dev.larder.server.LarderServer;
import dev.larder.server.ServerConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.jgroups.Address;
import org.jgroups.JChannel;
import org.jgroups.protocols.DISCARD;
import org.jgroups.protocols.TP;
import org.jgroups.stack.ProtocolStack;
import org.jgroups.util.NameCache;

/**
 * One member of a server kill trial, in its own JVM: a {@link LarderServer} with the settings given
 * as {@code name=value} arguments (a cluster member on 127.0.0.1), driven one command line at a
 * time over stdin/stdout: {@code members}, {@code rebalanced} (waits up to 30 s for it), {@code
 * rebalancing} (whether a rebalance is under way now), {@code segments-lost} (segments it started
 * empty, {@code RebalanceStats.segmentsLost}), {@code available}, {@code forwarded} (the single-key
 * operations it handed to other members, see {@code ClusterEngine.forwarded}), {@code cut NAME...}
 * (JGroups' DISCARD, inserted above the transport, drops everything from and to those members: a
 * partition made for the test), {@code heal}, {@code quit}. Its clients are the trial's, over RESP.
 */
public final class ServerClusterNode {

  private ServerClusterNode() {}

  /**
   * Runs one member of the server cluster for the kill trials.
   *
   * @param args server settings, {@code name=value}
   * @throws Exception if the server cannot start
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> settings = new HashMap<>();
    for (String a : args) {
      int eq = a.indexOf('=');
      settings.put(a.substring(0, eq), a.substring(eq + 1));
    }
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    try (LarderServer server = LarderServer.start(ServerConfig.of(settings))) {
      ClusteredCache<byte[], byte[]> store = server.clusteredStore().orElseThrow();
      JChannel channel = ((ClusteredLarderCache<?, ?>) store).engine().channel();
      DISCARD discard = new DISCARD();
      channel.getProtocolStack().insertProtocol(discard, ProtocolStack.Position.ABOVE, TP.class);
      out.println("ready");
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String[] w = line.trim().split(" ");
        switch (w[0]) {
          case "members" -> out.println(store.members().size());
          case "rebalanced" -> out.println(store.awaitRebalanced(Duration.ofSeconds(30)));
          case "rebalancing" -> out.println(!store.awaitRebalanced(Duration.ZERO));
          case "segments-lost" -> out.println(store.rebalanceStats().segmentsLost());
          case "available" -> out.println(store.available());
          case "forwarded" ->
              out.println(((ClusteredLarderCache<?, ?>) store).engine().forwarded());
          case "cut" -> {
            Set<String> names =
                Set.of(w).stream().filter(n -> !n.equals("cut")).collect(Collectors.toSet());
            for (Address a : channel.getView().getMembers()) {
              if (names.contains(NameCache.get(a))) {
                discard.addIgnoreMember(a);
              }
            }
            out.println("cut");
          }
          case "heal" -> {
            discard.resetIgnoredMembers();
            out.println("healed");
          }
          case "quit" -> {
            return;
          }
          default -> out.println("unknown " + line);
        }
      }
    }
  }
}
