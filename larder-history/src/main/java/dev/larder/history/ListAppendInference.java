package dev.larder.history;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Infers the dependencies of list-append keys and the anomalies seen without a cycle.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>A list read reveals the whole order of appends up to it, so every committed read of a key must
 * be a prefix of the longest one; that longest read is the key's <b>version order</b> (a read that
 * is not a prefix of it is an incompatible order, and the key gives no edges beyond it). Appends
 * that no read has seen yet are after the longest read, in an order not known, so they give no
 * edges. From the order {@code v1 .. vn}, each appended by one transaction:
 *
 * <ul>
 *   <li>ww: the appender of {@code vi} to the appender of {@code vi+1};
 *   <li>wr: the appender of a read's last element to the reader;
 *   <li>rw: a reader of the first {@code m < n} elements to the appender of {@code vm+1}.
 * </ul>
 *
 * Only a transaction's <i>external</i> reads (before it appended to the key itself) give wr and rw
 * edges; every committed read, external or not, counts for the order. Aborted transactions are not
 * nodes of the graph: reading one of their values is G1a. Reading a value that its appender
 * followed with another append to the same key in the same transaction is G1b (an intermediate
 * read). Two committed transactions that read the same prefix of a key and both appended to it is a
 * lost update (it also shows as a G-single cycle).
 */
final class ListAppendInference {

  private final DependencyGraph graph;
  private final List<Anomaly> anomalies;

  /** key -> value -> the transaction that appended it. */
  private final Map<String, Map<Long, Txn>> appender = new HashMap<>();

  /** key -> transaction id -> its appends to the key, in order. */
  private final Map<String, Map<Integer, List<Long>>> appendsBy = new HashMap<>();

  /** key -> committed reads (any, for the order). */
  private final Map<String, List<Observed>> reads = new LinkedHashMap<>();

  /** key -> committed external reads (for edges). */
  private final Map<String, List<Observed>> external = new LinkedHashMap<>();

  /** A read and who made it. */
  private record Observed(Txn reader, List<Long> values) {}

  ListAppendInference(DependencyGraph graph, List<Anomaly> anomalies) {
    this.graph = graph;
    this.anomalies = anomalies;
  }

  void collect(Txn t) {
    // keys this transaction has appended to (true) or read (false) so far
    Map<String, Boolean> touched = new HashMap<>();
    for (Op op : t.ops()) {
      if (op instanceof Op.Append a) {
        Txn previous = appender.computeIfAbsent(a.key(), k -> new HashMap<>()).put(a.value(), t);
        if (previous != null) {
          throw new IllegalArgumentException(
              "value "
                  + a.value()
                  + " appended to "
                  + a.key()
                  + " by both T"
                  + previous.id()
                  + " and T"
                  + t.id()
                  + ": appended values must be "
                  + "unique per key");
        }
        appendsBy
            .computeIfAbsent(a.key(), k -> new HashMap<>())
            .computeIfAbsent(t.id(), k -> new ArrayList<>())
            .add(a.value());
        touched.put(a.key(), true);
      } else if (op instanceof Op.ReadList r && t.committed()) {
        Observed o = new Observed(t, r.values());
        reads.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(o);
        // a later read of the key in the same transaction repeats the first or sees its appends
        if (touched.putIfAbsent(r.key(), false) == null) {
          external.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(o);
        }
      }
    }
  }

  void infer() {
    for (String key : reads.keySet()) {
      List<Long> order = versionOrder(key);
      checkValues(key);
      if (order != null) {
        addEdges(key, order);
      }
    }
    lostUpdates();
  }

  /** Returns the longest read of the key, or null if two reads are incompatible. */
  private List<Long> versionOrder(String key) {
    List<Observed> all = reads.get(key);
    Observed longest = all.get(0);
    for (Observed o : all) {
      if (o.values().size() > longest.values().size()) {
        longest = o;
      }
    }
    for (Observed o : all) {
      if (!isPrefix(o.values(), longest.values())) {
        anomalies.add(
            new Anomaly(
                AnomalyKind.INCOMPATIBLE_ORDER,
                null,
                List.of(o.reader(), longest.reader()),
                List.of(),
                "key "
                    + key
                    + " read as "
                    + o.values()
                    + " by T"
                    + o.reader().id()
                    + " and as "
                    + longest.values()
                    + " by T"
                    + longest.reader().id()));
        return null;
      }
    }
    return longest.values();
  }

  private static boolean isPrefix(List<Long> a, List<Long> b) {
    if (a instanceof LongPrefix pa && b instanceof LongPrefix pb) {
      return LongPrefix.isPrefix(pa, pb); // without boxing; at once for reads sharing an array
    }
    return a.size() <= b.size() && b.subList(0, a.size()).equals(a);
  }

  /** G1a, G1b and garbage reads, from each committed external read's elements. */
  private void checkValues(String key) {
    Map<Long, Txn> writers = appender.getOrDefault(key, Map.of());
    for (Observed o : external.getOrDefault(key, List.of())) {
      for (Long v : o.values()) {
        Txn w = writers.get(v);
        if (w == null) {
          anomalies.add(
              new Anomaly(
                  AnomalyKind.GARBAGE_READ,
                  null,
                  List.of(o.reader()),
                  List.of(),
                  "T"
                      + o.reader().id()
                      + " read "
                      + v
                      + " in "
                      + key
                      + ", which no transaction appended"));
        } else if (w.outcome() == Outcome.ABORTED) {
          anomalies.add(
              new Anomaly(
                  AnomalyKind.G1A,
                  null,
                  List.of(o.reader(), w),
                  List.of(),
                  "T"
                      + o.reader().id()
                      + " read "
                      + v
                      + " in "
                      + key
                      + ", appended by aborted T"
                      + w.id()));
        }
      }
      if (!o.values().isEmpty()) {
        long last = o.values().getLast();
        Txn w = writers.get(last);
        if (w != null && w.id() != o.reader().id()) {
          List<Long> own = appendsBy.get(key).get(w.id());
          if (own.getLast() != last) {
            anomalies.add(
                new Anomaly(
                    AnomalyKind.G1B,
                    null,
                    List.of(o.reader(), w),
                    List.of(),
                    "T"
                        + o.reader().id()
                        + " read "
                        + key
                        + " ending in "
                        + last
                        + ", which T"
                        + w.id()
                        + " followed with "
                        + own.getLast()));
          }
        }
      }
    }
  }

  private void addEdges(String key, List<Long> order) {
    Map<Long, Txn> writers = appender.getOrDefault(key, Map.of());
    for (int i = 0; i + 1 < order.size(); i++) {
      Txn a = writers.get(order.get(i));
      Txn b = writers.get(order.get(i + 1));
      if (inGraph(a) && inGraph(b)) {
        graph.add(a.id(), b.id(), EdgeKind.WW, key);
      }
    }
    for (Observed o : external.getOrDefault(key, List.of())) {
      int m = o.values().size();
      if (m > 0) {
        Txn w = writers.get(o.values().getLast());
        if (inGraph(w)) {
          graph.add(w.id(), o.reader().id(), EdgeKind.WR, key);
        }
      }
      if (m < order.size()) {
        Txn next = writers.get(order.get(m));
        if (inGraph(next)) {
          graph.add(o.reader().id(), next.id(), EdgeKind.RW, key);
        }
      }
    }
  }

  private void lostUpdates() {
    for (Map.Entry<String, List<Observed>> e : external.entrySet()) {
      Map<Integer, List<Long>> appends = appendsBy.getOrDefault(e.getKey(), Map.of());
      Map<List<Long>, Observed> byPrefix = new HashMap<>();
      for (Observed o : e.getValue()) {
        if (!appends.containsKey(o.reader().id())) {
          continue;
        }
        Observed other = byPrefix.putIfAbsent(o.values(), o);
        if (other != null) {
          anomalies.add(
              new Anomaly(
                  AnomalyKind.LOST_UPDATE,
                  null,
                  List.of(other.reader(), o.reader()),
                  List.of(),
                  "T"
                      + other.reader().id()
                      + " and T"
                      + o.reader().id()
                      + " both read "
                      + e.getKey()
                      + " = "
                      + o.values()
                      + " and both appended to it"));
        }
      }
    }
  }

  private static boolean inGraph(Txn t) {
    return t != null && t.outcome() != Outcome.ABORTED;
  }
}
