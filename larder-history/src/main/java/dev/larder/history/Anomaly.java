package dev.larder.history;

import java.util.List;
import java.util.stream.Collectors;

/**
 * One anomaly found in a history.
 *
 * @param kind its kind
 * @param order for a cycle, the client-observed order it also needs: null if dependency edges alone
 *     make the cycle, {@link EdgeKind#PROCESS} or {@link EdgeKind#REALTIME} otherwise
 * @param transactions the transactions involved (for a cycle, in cycle order)
 * @param cycle for a cycle kind, its edges in order (the last returns to the first); empty
 *     otherwise
 * @param explanation what was seen, in words
 */
public record Anomaly(
    AnomalyKind kind,
    EdgeKind order,
    List<Txn> transactions,
    List<Edge> cycle,
    String explanation) {

  /** Copies. */
  public Anomaly {
    transactions = List.copyOf(transactions);
    cycle = List.copyOf(cycle);
  }

  /**
   * Returns the kind's name with the order it needs, e.g. {@code G-single} or {@code G2-realtime}.
   */
  public String name() {
    return order == null ? kind.label() : kind.label() + "-" + order;
  }

  @Override
  public String toString() {
    String txns = transactions.stream().map(Txn::toString).collect(Collectors.joining("\n    "));
    return name() + ": " + explanation + "\n    " + txns;
  }
}
