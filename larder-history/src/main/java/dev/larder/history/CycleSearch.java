package dev.larder.history;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Finds cycles in a dependency graph and classifies them.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>As Elle does: first the strongly connected components (Tarjan's algorithm, iterative so that
 * long chains do not overflow the stack), since every cycle lies within one; a history with no
 * component of two or more transactions has no cycle and costs nothing more. Within each component,
 * for each kind, the shortest cycle of that kind is sought by a breadth-first search from the head
 * of each edge of the kind's defining type back to its tail, over the edges the kind allows:
 *
 * <ul>
 *   <li>G0: a ww edge closed by ww edges;
 *   <li>G1c: a wr edge closed by ww and wr edges;
 *   <li>G-single: an rw edge closed by ww and wr edges (so exactly one rw);
 *   <li>G2: an rw edge closed by any dependency edges, kept only if the cycle has two or more rw
 *       edges (with one it is the G-single already sought).
 * </ul>
 *
 * Each kind found in a component is reported once, with its shortest cycle. Then, if the caller
 * asked for process or real-time order, the components of the graph with those edges added are
 * searched for cycles through at least one such edge (closed by any edges), classified by the
 * dependency edges they hold and named with the order they need (e.g. {@code G-single-realtime}):
 * cycles that only a client's observed order makes. A component that holds a transaction of a cycle
 * already reported is not searched again. Searches start from at most {@link #MAX_STARTS} edges of
 * a kind per component, so a huge component is reported from a sample of its edges, never skipped.
 */
final class CycleSearch {

  static final int MAX_STARTS = 2_000;

  private static final Set<EdgeKind> DEPENDENCIES =
      EnumSet.of(EdgeKind.WW, EdgeKind.WR, EdgeKind.RW);

  private final DependencyGraph graph;
  private final List<Anomaly> found;

  CycleSearch(DependencyGraph graph, List<Anomaly> found) {
    this.graph = graph;
    this.found = found;
  }

  void dependencyCycles() {
    for (int[] component : components(DEPENDENCIES)) {
      boolean[] in = membership(component);
      report(shortest(component, in, EdgeKind.WW, EnumSet.of(EdgeKind.WW)), null);
      report(shortest(component, in, EdgeKind.WR, EnumSet.of(EdgeKind.WW, EdgeKind.WR)), null);
      report(shortest(component, in, EdgeKind.RW, EnumSet.of(EdgeKind.WW, EdgeKind.WR)), null);
      List<Edge> g2 = shortest(component, in, EdgeKind.RW, DEPENDENCIES);
      if (g2 != null && count(g2, EdgeKind.RW) >= 2) {
        report(g2, null);
      }
    }
  }

  /** Cycles that need an order edge of {@code order}'s kind (process or real-time). */
  void orderCycles(EdgeKind order) {
    Set<EdgeKind> allowed = EnumSet.copyOf(DEPENDENCIES);
    allowed.add(order);
    Set<Integer> explained = new HashSet<>();
    for (Anomaly a : found) {
      if (a.kind().isCycle()) {
        a.cycle().forEach(e -> explained.add(graph.index(e.from())));
      }
    }
    for (int[] component : components(allowed)) {
      // A component already holding a reported cycle would mostly repeat it with an order edge.
      if (Arrays.stream(component).anyMatch(explained::contains)) {
        continue;
      }
      List<Edge> cycle = shortest(component, membership(component), order, allowed);
      if (cycle != null && cycle.stream().anyMatch(e -> e.kind().isDependency())) {
        report(cycle, order);
      }
    }
  }

  private void report(List<Edge> cycle, EdgeKind order) {
    if (cycle == null) {
      return;
    }
    int rw = count(cycle, EdgeKind.RW);
    AnomalyKind kind =
        rw >= 2
            ? AnomalyKind.G2
            : rw == 1
                ? AnomalyKind.G_SINGLE
                : count(cycle, EdgeKind.WR) > 0 ? AnomalyKind.G1C : AnomalyKind.G0;
    List<Txn> txns = new ArrayList<>();
    StringBuilder text = new StringBuilder();
    for (Edge e : cycle) {
      txns.add(graph.txn(graph.index(e.from())));
      text.append(text.isEmpty() ? "" : ", ").append(e);
    }
    found.add(new Anomaly(kind, order, txns, cycle, text.toString()));
  }

  private static int count(List<Edge> cycle, EdgeKind kind) {
    return (int) cycle.stream().filter(e -> e.kind() == kind).count();
  }

  private boolean[] membership(int[] component) {
    boolean[] in = new boolean[graph.size()];
    for (int i : component) {
      in[i] = true;
    }
    return in;
  }

  /**
   * Returns the shortest cycle, within the component, that starts with an edge of kind {@code
   * first} and returns over edges of {@code closing}; null if none.
   */
  private List<Edge> shortest(
      int[] component, boolean[] in, EdgeKind first, Set<EdgeKind> closing) {
    List<Edge> best = null;
    int starts = 0;
    for (int node : component) {
      for (Edge e : graph.out(node)) {
        if (e.kind() != first || !in[graph.index(e.to())]) {
          continue;
        }
        if (++starts > MAX_STARTS) {
          return best;
        }
        List<Edge> back =
            path(
                graph.index(e.to()),
                node,
                in,
                closing,
                best == null ? Integer.MAX_VALUE : best.size() - 1);
        if (back != null) {
          List<Edge> cycle = new ArrayList<>(back.size() + 1);
          cycle.add(e);
          cycle.addAll(back);
          best = cycle;
          if (best.size() == 2) {
            return best;
          }
        }
      }
    }
    return best;
  }

  /** Breadth-first search for a path shorter than {@code limit} edges; null if none. */
  private List<Edge> path(int from, int to, boolean[] in, Set<EdgeKind> allowed, int limit) {
    Edge[] via = new Edge[graph.size()];
    int[] depth = new int[graph.size()];
    Arrays.fill(depth, -1);
    depth[from] = 0;
    ArrayDeque<Integer> queue = new ArrayDeque<>();
    queue.add(from);
    while (!queue.isEmpty()) {
      int n = queue.poll();
      if (n == to) {
        List<Edge> path = new ArrayList<>();
        for (int at = to; at != from; at = graph.index(via[at].from())) {
          path.addFirst(via[at]);
        }
        return path;
      }
      if (depth[n] + 1 >= limit) {
        continue;
      }
      for (Edge e : graph.out(n)) {
        int m = graph.index(e.to());
        if (in[m] && depth[m] < 0 && allowed.contains(e.kind())) {
          depth[m] = depth[n] + 1;
          via[m] = e;
          queue.add(m);
        }
      }
    }
    return null;
  }

  /** Tarjan's strongly connected components of two or more nodes, over the given edge kinds. */
  private List<int[]> components(Set<EdgeKind> kinds) {
    int n = graph.size();
    int[] index = new int[n];
    int[] low = new int[n];
    boolean[] onStack = new boolean[n];
    Arrays.fill(index, -1);
    int[] edgeAt = new int[n];
    ArrayDeque<Integer> stack = new ArrayDeque<>();
    ArrayDeque<Integer> call = new ArrayDeque<>();
    List<int[]> result = new ArrayList<>();
    int counter = 0;
    for (int root = 0; root < n; root++) {
      if (index[root] >= 0) {
        continue;
      }
      call.push(root);
      index[root] = low[root] = counter++;
      stack.push(root);
      onStack[root] = true;
      while (!call.isEmpty()) {
        int v = call.peek();
        List<Edge> out = graph.out(v);
        if (edgeAt[v] < out.size()) {
          Edge e = out.get(edgeAt[v]++);
          if (!kinds.contains(e.kind())) {
            continue;
          }
          int w = graph.index(e.to());
          if (index[w] < 0) {
            index[w] = low[w] = counter++;
            stack.push(w);
            onStack[w] = true;
            call.push(w);
          } else if (onStack[w]) {
            low[v] = Math.min(low[v], index[w]);
          }
          continue;
        }
        call.pop();
        if (!call.isEmpty()) {
          int parent = call.peek();
          low[parent] = Math.min(low[parent], low[v]);
        }
        if (low[v] == index[v]) {
          List<Integer> members = new ArrayList<>();
          int w;
          do {
            w = stack.pop();
            onStack[w] = false;
            members.add(w);
          } while (w != v);
          if (members.size() > 1) {
            result.add(members.stream().mapToInt(Integer::intValue).toArray());
          }
        }
      }
    }
    return result;
  }
}
