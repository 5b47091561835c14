package dev.larder.history;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The transactions of a history as nodes and their dependencies as edges, at most one edge per
 * (source, target, kind). Not thread-safe; built once by the checker, then only read.
 */
final class DependencyGraph {

  private final List<Txn> txns;
  private final Map<Integer, Integer> indexOf = new HashMap<>();
  private final List<List<Edge>> out = new ArrayList<>();
  private final Set<Edge> seen = new HashSet<>();
  private final Map<EdgeKind, Integer> counts = new HashMap<>();

  DependencyGraph(List<Txn> txns) {
    this.txns = List.copyOf(txns);
    for (int i = 0; i < txns.size(); i++) {
      if (indexOf.put(txns.get(i).id(), i) != null) {
        throw new IllegalArgumentException("two transactions have id " + txns.get(i).id());
      }
      out.add(new ArrayList<>());
    }
  }

  /** Adds an edge unless it joins a transaction to itself or repeats one of the same kind. */
  void add(int from, int to, EdgeKind kind, String key) {
    if (from == to) {
      return;
    }
    if (seen.add(new Edge(from, to, kind, null))) {
      out.get(index(from)).add(new Edge(from, to, kind, key));
      counts.merge(kind, 1, Integer::sum);
    }
  }

  int size() {
    return txns.size();
  }

  Txn txn(int index) {
    return txns.get(index);
  }

  int index(int id) {
    Integer i = indexOf.get(id);
    if (i == null) {
      throw new IllegalArgumentException("no transaction " + id);
    }
    return i;
  }

  /** Returns the edges leaving the transaction at {@code index}. */
  List<Edge> out(int index) {
    return out.get(index);
  }

  /** Returns edges added, by kind. */
  Map<EdgeKind, Integer> counts() {
    Map<EdgeKind, Integer> all = new HashMap<>();
    for (EdgeKind k : EnumSet.allOf(EdgeKind.class)) {
      all.put(k, counts.getOrDefault(k, 0));
    }
    return all;
  }
}
