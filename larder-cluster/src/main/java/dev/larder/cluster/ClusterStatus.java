package dev.larder.cluster;

import dev.larder.cluster.internal.ClusteredLarderCache;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jgroups.View;

/**
 * A clustered cache's state as an operator sees it, from this member: the cluster, the view, the
 * mode and the rebalance. Made for status pages (larder-http's console shows {@link #figures()} in
 * its "Cluster" panel) and logs.
 *
 * @param clusterName the JGroups cluster name
 * @param node this member's name
 * @param members the current members, coordinator first
 * @param viewId the id of the view this member installed last, -1 before its first view
 * @param mode replicated, distributed or invalidation
 * @param owners copies of each entry (distributed mode)
 * @param replication when writes return
 * @param ownedSegments segments this member owns
 * @param localEntries entries in this member's store
 * @param rebalance what state transfer moved to this member
 * @param mergesLost merges this member lost (it dropped its entries for the winning side's)
 * @param asyncWritesDropped async writes dropped during view changes
 */
public record ClusterStatus(
    String clusterName,
    String node,
    List<String> members,
    long viewId,
    ClusterMode mode,
    int owners,
    String replication,
    int ownedSegments,
    long localEntries,
    RebalanceStats rebalance,
    long mergesLost,
    long asyncWritesDropped) {

  /** Checks the components and copies the members. */
  public ClusterStatus {
    Objects.requireNonNull(clusterName, "clusterName");
    Objects.requireNonNull(node, "node");
    members = List.copyOf(members);
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(replication, "replication");
    Objects.requireNonNull(rebalance, "rebalance");
  }

  /**
   * Reads a clustered cache's status. Each figure is read on its own (as {@link RebalanceStats}
   * says, they may disagree while a view change runs); nothing waits for other members.
   * Thread-safe.
   *
   * @param cache a clustered cache
   * @return its status now
   * @throws IllegalStateException if the cache is closed
   */
  public static ClusterStatus of(ClusteredCache<?, ?> cache) {
    ClusterConfig config = cache.clusterConfig();
    long viewId = -1;
    if (cache instanceof ClusteredLarderCache<?, ?> c) {
      View view = c.engine().channel().getView();
      viewId = view == null ? -1 : view.getViewId().getId();
    }
    return new ClusterStatus(
        config.clusterName(),
        cache.nodeName(),
        cache.members(),
        viewId,
        config.mode(),
        config.owners(),
        String.valueOf(config.replication()),
        cache.ownedSegments(),
        cache.localEntryCount(),
        cache.rebalanceStats(),
        cache.mergesLost(),
        cache.asyncWritesDropped());
  }

  /**
   * Returns the figures by label, in a stable order: {@code cluster}, {@code node}, {@code members}
   * (names joined by ", "), {@code memberCount}, {@code viewId}, {@code mode}, {@code owners}
   * (distributed mode only), {@code replication}, {@code ownedSegments}, {@code localEntries},
   * {@code rebalance} ("in progress" or "idle"), {@code rebalances}, {@code lastRebalanceMillis},
   * {@code segmentsLost}, {@code mergesLost}, {@code asyncWritesDropped}.
   */
  public Map<String, Object> figures() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("cluster", clusterName);
    m.put("node", node);
    m.put("members", String.join(", ", members));
    m.put("memberCount", members.size());
    m.put("viewId", viewId);
    m.put("mode", mode.toString());
    if (mode == ClusterMode.DISTRIBUTED) {
      m.put("owners", owners);
    }
    m.put("replication", replication);
    m.put("ownedSegments", ownedSegments);
    m.put("localEntries", localEntries);
    m.put("rebalance", rebalance.inProgress() ? "in progress" : "idle");
    m.put("rebalances", rebalance.rebalances());
    m.put("lastRebalanceMillis", rebalance.lastMillis());
    m.put("segmentsLost", rebalance.segmentsLost());
    m.put("mergesLost", mergesLost);
    m.put("asyncWritesDropped", asyncWritesDropped);
    return m;
  }
}
