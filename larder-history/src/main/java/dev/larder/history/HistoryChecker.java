package dev.larder.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Checks a transactional history for anomalies, as Jepsen's Elle does: from what each transaction
 * read and wrote it infers which transactions depend on which, then searches the dependency graph
 * for cycles. Reports G0 (write cycle), G1a (aborted read), G1b (intermediate read), G1c (circular
 * information flow), G-single (read skew, one anti-dependency) and G2 (two or more
 * anti-dependencies: write skew), plus lost updates, incompatible list orders and garbage reads,
 * each with the transactions involved.
 *
 * <pre>{@code
 * CheckResult r = HistoryChecker.check(history, HistoryChecker.Orders.PROCESS);
 * assertTrue(r.valid(), r.anomalies().toString());
 * }</pre>
 *
 * <p>What each isolation level forbids, in these terms: serializable forbids every kind; snapshot
 * isolation allows G2 (and only G2); read committed allows G-single and G2. Cycles that need a
 * client-observed order are named with it ({@code G-single-process}): serializability alone does
 * not forbid the real-time ones (strict serializability does).
 *
 * <h2>Implementation notes</h2>
 *
 * <p>The work is split by data model: {@link ListAppendInference} (lists reveal their whole order
 * of appends, so the version order of each key is recovered exactly from its longest read) and
 * {@link RegisterInference} (registers reveal one version per read, so the order is known only
 * where a transaction read a key and then wrote it). Both add ww, wr and rw edges to one {@link
 * DependencyGraph} whose nodes are the committed and unknown transactions (aborted ones have no
 * edges: reading their writes is G1a, found directly). {@link OrderEdges} adds process or real-time
 * order on request; {@link CycleSearch} finds the strongly connected components and the shortest
 * cycle of each kind within them. Nothing is trusted of the system under test beyond the values its
 * reads returned and the outcome its clients saw.
 *
 * <p>Thread-safe: each call works on its own state.
 */
public final class HistoryChecker {

  /** Which client-observed orders to add to the dependency graph. */
  public enum Orders {
    /** Dependencies only: checks serializability. */
    NONE,
    /** Also each client's order of its own transactions. */
    PROCESS,
    /** Also real-time order (implies process order): checks strict serializability. */
    REALTIME
  }

  private HistoryChecker() {}

  /**
   * Returns what was found.
   *
   * @param history the transactions, in any order; ids unique; the values appended or written to a
   *     key unique to that key
   * @param orders which client-observed orders to add
   * @throws IllegalArgumentException if two transactions share an id or a key's values repeat
   */
  public static CheckResult check(List<Txn> history, Orders orders) {
    Objects.requireNonNull(orders, "orders");
    DependencyGraph graph = new DependencyGraph(history);
    List<Anomaly> anomalies = new ArrayList<>();
    ListAppendInference lists = new ListAppendInference(graph, anomalies);
    RegisterInference registers = new RegisterInference(graph, anomalies);
    for (Txn t : history) {
      lists.collect(t);
      registers.collect(t);
    }
    lists.infer();
    registers.infer();
    CycleSearch cycles = new CycleSearch(graph, anomalies);
    cycles.dependencyCycles();
    if (orders != Orders.NONE) {
      OrderEdges.addProcessOrder(graph, history);
      cycles.orderCycles(EdgeKind.PROCESS);
    }
    if (orders == Orders.REALTIME) {
      OrderEdges.addRealTimeOrder(graph, history);
      cycles.orderCycles(EdgeKind.REALTIME);
    }
    return new CheckResult(history.size(), anomalies, graph.counts());
  }
}
