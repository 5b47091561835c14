package dev.larder.bench.cluster;

import dev.larder.cluster.ClusteredCache;
import dev.larder.cluster.ClusteredTxMember;
import dev.larder.cluster.internal.ClusteredLarderCache;
import dev.larder.cluster.internal.tx.ClusterTxEngine;
import dev.larder.server.LarderServer;
import dev.larder.server.ServerConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.jgroups.Address;
import org.jgroups.Event;
import org.jgroups.JChannel;
import org.jgroups.protocols.DISCARD;
import org.jgroups.protocols.MERGE3;
import org.jgroups.protocols.TP;
import org.jgroups.protocols.VERIFY_SUSPECT2;
import org.jgroups.stack.ProtocolStack;
import org.jgroups.util.NameCache;

/**
 * One member of a server kill trial, in its own JVM: a {@link LarderServer} with the settings given
 * as {@code name=value} arguments (a cluster member on 127.0.0.1), driven one command line at a
 * time over stdin/stdout: {@code members}, {@code rebalanced} (waits up to 30 s for it), {@code
 * rebalancing} (whether a rebalance is under way now), {@code segments-lost} (segments it started
 * empty, {@code RebalanceStats.segmentsLost}), {@code available}, {@code forwarded} (the single-key
 * operations it handed to other members, see {@code ClusterEngine.forwarded}), {@code tx} (with
 * {@code cluster-transactions on}: {@code READY n} or {@code WAIT n}, whether its transactional
 * store may commit and its epoch's size; {@code none} otherwise), {@code epoch} (as {@code tx},
 * then the epoch's number: {@code READY n e}), {@code cut NAME...} (JGroups' DISCARD, inserted
 * above the transport of the cluster's channel and of the transactional store's, drops everything
 * from and to those members: a partition made for the test), {@code suspect NAME...} (hands failure
 * detection the suspicion its timer would raise later), {@code heal}, {@code merge} (runs MERGE3's
 * round now), {@code quit}. Its clients are the trial's, over RESP.
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
      ClusteredTxMember tx = server.clusteredTxMember().orElse(null);
      // the cluster's channel, and the transactional store's (cluster-transactions on)
      List<JChannel> channels = new ArrayList<>();
      channels.add(((ClusteredLarderCache<?, ?>) store).engine().channel());
      if (tx != null) {
        channels.add(tx.unwrap(ClusterTxEngine.class).channel());
      }
      List<DISCARD> discards = new ArrayList<>();
      for (JChannel c : channels) {
        DISCARD discard = new DISCARD();
        c.getProtocolStack().insertProtocol(discard, ProtocolStack.Position.ABOVE, TP.class);
        discards.add(discard);
      }
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
          case "tx" ->
              out.println(
                  tx == null ? "none" : (tx.isReady() ? "READY " : "WAIT ") + tx.members().size());
          case "epoch" -> {
            if (tx == null) {
              out.println("none");
            } else {
              ClusterTxEngine engine = tx.unwrap(ClusterTxEngine.class);
              out.println(
                  (engine.isReady() ? "READY " : "WAIT ")
                      + engine.epochSize()
                      + " "
                      + engine.epochNumber());
            }
          }
          case "cut" -> {
            Set<String> names = names(w);
            for (int c = 0; c < channels.size(); c++) {
              for (Address a : channels.get(c).getView().getMembers()) {
                if (names.contains(NameCache.get(a))) {
                  discards.get(c).addIgnoreMember(a);
                }
              }
            }
            out.println("cut");
          }
          case "suspect" -> {
            suspect(channels, names(w));
            out.println("suspected");
          }
          case "heal" -> {
            discards.forEach(DISCARD::resetIgnoredMembers);
            out.println("healed");
          }
          case "merge" -> {
            merge(channels);
            out.println("merging");
          }
          case "quit" -> {
            return;
          }
          default -> out.println("unknown " + line);
        }
      }
    }
  }

  /** The names after a command's first word. */
  private static Set<String> names(String[] words) {
    return Set.of(words).stream().filter(n -> !n.equals(words[0])).collect(Collectors.toSet());
  }

  /**
   * Hands each channel's VERIFY_SUSPECT2 the named members of its view as suspects, the suspicion
   * FD_ALL3 raises only after its 10 s timeout: VERIFY_SUSPECT2 then checks it as always (its probe
   * goes unanswered through a cut), and GMS excludes them.
   */
  private static void suspect(List<JChannel> channels, Set<String> names) {
    for (JChannel c : channels) {
      List<Address> suspects =
          c.getView().getMembers().stream().filter(a -> names.contains(NameCache.get(a))).toList();
      if (!suspects.isEmpty()) {
        c.getProtocolStack()
            .findProtocol(VERIFY_SUSPECT2.class)
            .up(new Event(Event.SUSPECT, suspects));
      }
    }
  }

  /**
   * Runs MERGE3's round now rather than at its next interval: this member sends its INFO, and, if
   * it coordinates its view, checks for other views 300 ms later. The merge is MERGE3's and GMS's.
   */
  private static void merge(List<JChannel> channels) throws InterruptedException {
    for (JChannel c : channels) {
      c.getProtocolStack().<MERGE3>findProtocol(MERGE3.class).sendInfo();
    }
    Thread.sleep(300); // INFO goes out through an asynchronous discovery round
    for (JChannel c : channels) {
      if (c.getAddress().equals(c.getView().getCoord())) {
        c.getProtocolStack().<MERGE3>findProtocol(MERGE3.class).checkInconsistencies();
      }
    }
  }
}
