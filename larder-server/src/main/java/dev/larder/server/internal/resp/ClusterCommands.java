package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.FAST;
import static dev.larder.server.internal.resp.RespCommand.Flag.NO_MULTI;

import dev.larder.server.internal.ServerState;
import dev.larder.server.internal.cluster.HashSlot;
import dev.larder.server.internal.cluster.ServerCluster;
import dev.larder.server.internal.cluster.ServerCluster.Node;
import dev.larder.server.internal.cluster.ServerCluster.SlotRange;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Redis Cluster protocol over a Larder cluster (CLUSTER, READONLY, READWRITE, ASKING, and the
 * redirections of {@link #redirect}), and what a Redis user checks about replication (ROLE, WAIT,
 * INFO replication and cluster). On a standalone server CLUSTER answers as a Redis without cluster
 * support does; ROLE and WAIT report a master without replicas.
 *
 * <p>How Larder's cluster looks to a cluster-aware client: every member is a master, of the slots
 * whose segment it is primary of; a slot's replicas are its segment's other owners (CLUSTER SLOTS
 * lists them; CLUSTER NODES and SHARDS list masters only, since one member backs up slots of
 * several masters). Any member serves any key, forwarding to its owners, so MOVED is sent only when
 * asked for ({@code READONLY} on the connection, or {@code cluster-redirects on}). ASK is never
 * sent: a view change moves a slot at once, and a client that is told MOVED re-reads the slot map.
 *
 * <p>Stateless; thread-safe as long as each session is used by one thread.
 */
final class ClusterCommands {
  private ClusterCommands() {}

  static void register(RespCommandTable t) {
    t.command("cluster", -2)
        .doc(
            "cluster", "A container for Redis Cluster commands.", "subcommand:string ?args:string*")
        .run(ClusterCommands::cluster);
    t.command("readonly", 1)
        .flags(FAST)
        .doc(
            "cluster",
            "Lets reads of slots this node replicates be served here; asks for"
                + " MOVED redirections.",
            "")
        .run(
            c -> {
              c.session.readOnly = true;
              c.out().ok();
            });
    t.command("readwrite", 1)
        .flags(FAST)
        .doc("cluster", "Ends READONLY.", "")
        .run(
            c -> {
              c.session.readOnly = false;
              c.out().ok();
            });
    t.command("asking", 1)
        .flags(FAST)
        .doc("cluster", "Accepted for clients that follow ASK; Larder sends none.", "")
        .run(c -> c.out().ok());
    t.command("role", 1)
        .flags(FAST)
        .doc("server", "Returns the replication role.", "")
        .run(ClusterCommands::role);
    t.command("wait", 3)
        .flags(NO_MULTI)
        .doc(
            "generic",
            "Returns how many replicas hold this connection's writes.",
            "numreplicas:integer timeout:integer")
        .run(ClusterCommands::waitReplicas);
  }

  /**
   * The redirection a cluster-aware connection gets instead of a run: MOVED to the slot's master (a
   * READONLY connection's read is served by any owner), CROSSSLOT for keys of several slots.
   *
   * @return the error line, or null to run the command here
   */
  static String redirect(RespSession s, RespCommand cmd, List<byte[]> args) {
    ServerCluster cluster = s.server.cluster();
    if (cluster == null || !cmd.hasKeys() || !(s.readOnly || cluster.redirectsAll())) {
      return null;
    }
    int slot = -1;
    for (int i = cmd.firstKeyIn(), last = cmd.lastKeyIn(args);
        i <= last;
        i = cmd.nextKeyAfter(i, args)) {
      int k = HashSlot.of(args.get(i));
      if (slot >= 0 && k != slot) {
        return "CROSSSLOT Keys in request don't hash to the same slot";
      }
      slot = k;
    }
    if (slot < 0) {
      return null;
    }
    List<String> owners = cluster.owners(slot);
    String self = cluster.name();
    if (owners.isEmpty()
        || owners.getFirst().equals(self)
        || (s.readOnly
            && cmd.flags().contains(RespCommand.Flag.READONLY)
            && owners.contains(self))) {
      return null;
    }
    return "MOVED " + slot + " " + cluster.master(slot).address();
  }

  private static ServerCluster required(RespCall c) {
    ServerCluster cluster = c.server().cluster();
    if (cluster == null) {
      throw new RespError("ERR This instance has cluster support disabled");
    }
    return cluster;
  }

  private static void cluster(RespCall c) {
    String sub = c.option(1);
    if (sub.equals("keyslot")) {
      arity(c, 3);
      c.out().integer(HashSlot.of(c.arg(2)));
      return;
    }
    ServerCluster cluster = required(c);
    switch (sub) {
      case "help" -> RespHelp.reply(c, RespHelp.CLUSTER);
      case "info" -> c.out().bulk(info(cluster));
      case "myid", "myshardid" -> c.out().bulk(cluster.self().id());
      case "countkeysinslot" -> {
        arity(c, 3);
        c.out().integer(cluster.countKeysInSlot(slot(c, 2)));
      }
      case "getkeysinslot" -> {
        arity(c, 4);
        getKeysInSlot(c, cluster, slot(c, 2), c.integer(3));
      }
      case "slots" -> slots(c, cluster);
      case "shards" -> shards(c, cluster);
      case "nodes" -> c.out().bulk(nodes(cluster));
      case "waiting" -> {
        arity(c, 2);
        c.out().integer(cluster.waitingSegments());
      }
      case "abandon-waiting" -> {
        arity(c, 2);
        c.out().integer(cluster.abandonWaitingSegments());
      }
      default ->
          throw new RespError("ERR unknown subcommand '" + c.text(1) + "'. Try CLUSTER HELP.");
    }
  }

  private static void arity(RespCall c, int n) {
    if (c.argc() != n) {
      throw new RespError(
          "ERR wrong number of arguments for 'cluster|" + c.option(1) + "' command");
    }
  }

  private static int slot(RespCall c, int i) {
    long slot;
    try {
      slot = c.integer(i);
    } catch (RespError e) {
      throw new RespError("ERR Invalid slot");
    }
    if (slot < 0 || slot >= HashSlot.SLOTS) {
      throw new RespError("ERR Invalid slot");
    }
    return (int) slot;
  }

  private static String info(ServerCluster cluster) {
    Map<String, Object> f = new LinkedHashMap<>();
    int nodes = cluster.nodes().size();
    f.put("cluster_enabled", 1);
    f.put("cluster_state", cluster.available() ? "ok" : "fail");
    f.put("cluster_slots_assigned", HashSlot.SLOTS);
    f.put("cluster_slots_ok", cluster.available() ? HashSlot.SLOTS : 0);
    f.put("cluster_slots_pfail", 0);
    f.put("cluster_slots_fail", cluster.available() ? 0 : HashSlot.SLOTS);
    f.put("cluster_known_nodes", nodes);
    f.put("cluster_size", masters(cluster).size());
    f.put("cluster_current_epoch", nodes);
    f.put("cluster_my_epoch", 1 + cluster.nodes().indexOf(cluster.self()));
    f.put("cluster_stats_messages_sent", 0);
    f.put("cluster_stats_messages_received", 0);
    f.put("total_cluster_links_buffer_limit_exceeded", 0);
    StringBuilder sb = new StringBuilder();
    f.forEach((k, v) -> sb.append(k).append(':').append(v).append("\r\n"));
    return sb.toString();
  }

  /** Returns each master (in view order) with its slot ranges. */
  private static Map<Node, List<SlotRange>> masters(ServerCluster cluster) {
    Map<Node, List<SlotRange>> out = new LinkedHashMap<>();
    for (Node n : cluster.nodes()) {
      out.put(n, new ArrayList<>());
    }
    for (SlotRange r : cluster.ranges()) {
      out.computeIfAbsent(r.owners().getFirst(), n -> new ArrayList<>()).add(r);
    }
    out.values().removeIf(List::isEmpty);
    return out;
  }

  private static void slots(RespCall c, ServerCluster cluster) {
    List<SlotRange> ranges = cluster.ranges();
    RespWriter out = c.out();
    out.array(ranges.size());
    for (SlotRange r : ranges) {
      out.array(2 + r.owners().size());
      out.integer(r.from());
      out.integer(r.to());
      for (Node n : r.owners()) {
        out.array(3);
        out.bulk(n.host());
        out.integer(n.port());
        out.bulk(n.id());
      }
    }
  }

  private static void shards(RespCall c, ServerCluster cluster) {
    Map<Node, List<SlotRange>> masters = masters(cluster);
    boolean everyoneReplicates =
        cluster.ranges().stream().allMatch(r -> r.owners().size() == cluster.nodes().size());
    RespWriter out = c.out();
    out.array(masters.size());
    for (Map.Entry<Node, List<SlotRange>> m : masters.entrySet()) {
      List<Node> nodes = new ArrayList<>(List.of(m.getKey()));
      if (everyoneReplicates) {
        cluster.nodes().stream().filter(n -> !n.equals(m.getKey())).forEach(nodes::add);
      }
      out.map(2);
      out.bulk("slots");
      out.array(2 * m.getValue().size());
      for (SlotRange r : m.getValue()) {
        out.integer(r.from());
        out.integer(r.to());
      }
      out.bulk("nodes");
      out.array(nodes.size());
      for (Node n : nodes) {
        out.map(7);
        out.bulk("id");
        out.bulk(n.id());
        out.bulk("port");
        out.integer(n.port());
        out.bulk("ip");
        out.bulk(n.host());
        out.bulk("endpoint");
        out.bulk(n.host());
        out.bulk("role");
        out.bulk(n.equals(m.getKey()) ? "master" : "replica");
        out.bulk("replication-offset");
        out.integer(0);
        out.bulk("health");
        out.bulk("online");
      }
    }
  }

  /** CLUSTER NODES: one line per member, every member a master of its primary slots. */
  static String nodes(ServerCluster cluster) {
    Map<Node, List<SlotRange>> masters = masters(cluster);
    Node self = cluster.self();
    List<Node> nodes = cluster.nodes();
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < nodes.size(); i++) {
      Node n = nodes.get(i);
      sb.append(n.id())
          .append(' ')
          .append(n.address())
          .append('@')
          .append(n.port() + 10000)
          .append(' ')
          .append(n.equals(self) ? "myself,master" : "master")
          .append(" - 0 0 ")
          .append(i + 1)
          .append(" connected");
      for (SlotRange r : masters.getOrDefault(n, List.of())) {
        sb.append(' ').append(r.from());
        if (r.to() != r.from()) {
          sb.append('-').append(r.to());
        }
      }
      sb.append('\n');
    }
    return sb.toString();
  }

  private static void getKeysInSlot(RespCall c, ServerCluster cluster, int slot, long count) {
    if (count < 0) {
      throw new RespError("ERR Invalid number of keys");
    }
    List<byte[]> keys = new ArrayList<>();
    for (var it = cluster.localEntries(); it.hasNext() && keys.size() < count; ) {
      byte[] k = it.next().getKey();
      if (k[0] == c.db() && HashSlot.of(k, 1, k.length) == slot) {
        keys.add(java.util.Arrays.copyOfRange(k, 1, k.length));
      }
    }
    c.out().array(keys.size());
    keys.forEach(c.out()::bulk);
  }

  private static void role(RespCall c) {
    ServerCluster cluster = c.server().cluster();
    List<Node> replicas =
        cluster == null
            ? List.of()
            : cluster.nodes().stream().filter(n -> !n.equals(cluster.self())).toList();
    RespWriter out = c.out();
    out.array(3);
    out.bulk("master");
    out.integer(0);
    out.array(replicas.size());
    for (Node n : replicas) {
      out.array(3);
      out.bulk(n.host());
      out.bulk(Integer.toString(n.port()));
      out.bulk("0");
    }
  }

  /**
   * WAIT answers at once: under synchronous replication a write was acknowledged only once every
   * owner of its key held it, so the replicas that hold it are the key's other owners (the smallest
   * count over the slots, since WAIT names no key); under asynchronous replication, or standalone,
   * none is known to.
   */
  private static void waitReplicas(RespCall c) {
    long wanted = c.integer(1);
    long timeout = c.integer(2);
    if (wanted < 0 || timeout < 0) {
      throw new RespError("ERR timeout is negative");
    }
    ServerCluster cluster = c.server().cluster();
    if (cluster == null || !cluster.synchronous()) {
      c.out().integer(0);
      return;
    }
    int fewest = Integer.MAX_VALUE;
    for (SlotRange r : cluster.ranges()) {
      fewest = Math.min(fewest, r.owners().size() - 1);
    }
    c.out().integer(fewest == Integer.MAX_VALUE ? 0 : fewest);
  }

  /**
   * The fields of INFO's replication and cluster sections.
   *
   * @param s the server
   * @param section "replication" or "cluster"
   * @param f where the fields go, in order
   */
  static void info(ServerState s, String section, Map<String, Object> f) {
    ServerCluster cluster = s.cluster();
    if (section.equals("cluster")) {
      f.put("cluster_enabled", cluster == null ? 0 : 1);
      return;
    }
    f.put("role", "master");
    List<Node> replicas =
        cluster == null
            ? List.of()
            : cluster.nodes().stream().filter(n -> !n.equals(cluster.self())).toList();
    f.put("connected_slaves", replicas.size());
    for (int i = 0; i < replicas.size(); i++) {
      f.put(
          "slave" + i,
          "ip="
              + replicas.get(i).host()
              + ",port="
              + replicas.get(i).port()
              + ",state=online,offset=0,lag=0");
    }
    f.put("master_failover_state", "no-failover");
    f.put("master_replid", cluster == null ? "0".repeat(40) : cluster.self().id());
    f.put("master_replid2", "0".repeat(40));
    f.put("master_repl_offset", 0);
    f.put("second_repl_offset", -1);
    f.put("repl_backlog_active", 0);
    if (cluster != null) {
      f.put("larder_replication", cluster.synchronous() ? "sync" : "async");
      f.put("larder_cluster_available", cluster.available() ? 1 : 0);
    }
  }
}
