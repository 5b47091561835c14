package dev.larder.history;

/**
 * One edge of a dependency graph between two transactions.
 *
 * @param from the source transaction's id
 * @param to the target transaction's id
 * @param kind what relates them
 * @param key the key that relates them; null for process and real-time edges
 */
public record Edge(int from, int to, EdgeKind kind, String key) {
  @Override
  public String toString() {
    return "T" + from + " -" + kind + (key == null ? "" : "(" + key + ")") + "-> T" + to;
  }
}
