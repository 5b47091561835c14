package dev.larder.history;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What {@link HistoryChecker#check} found.
 *
 * @param transactions how many transactions the history held
 * @param anomalies every anomaly found
 * @param edges the dependency graph's edges, by kind
 */
public record CheckResult(int transactions, List<Anomaly> anomalies, Map<EdgeKind, Integer> edges) {

  /** Copies. */
  public CheckResult {
    anomalies = List.copyOf(anomalies);
    edges = Map.copyOf(edges);
  }

  /** Returns anomalies found, by {@link Anomaly#name()}, sorted by name. */
  public Map<String, Integer> counts() {
    Map<String, Integer> counts = new TreeMap<>();
    for (Anomaly a : anomalies) {
      counts.merge(a.name(), 1, Integer::sum);
    }
    return counts;
  }

  /** Returns true if nothing was found. */
  public boolean valid() {
    return anomalies.isEmpty();
  }

  /**
   * Returns the anomalies whose name is not allowed.
   *
   * @param allowed anomaly names that the isolation level checked permits (e.g. {@code G2} under
   *     snapshot isolation)
   */
  public List<Anomaly> except(Set<String> allowed) {
    return anomalies.stream().filter(a -> !allowed.contains(a.name())).toList();
  }

  @Override
  public String toString() {
    return transactions
        + " transactions, edges "
        + new TreeMap<>(edges)
        + ", anomalies "
        + counts();
  }
}
