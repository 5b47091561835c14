package dev.larder.history;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Infers the dependencies of read-write register keys and the anomalies seen without a cycle.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>A register read reveals only one version, so the version order is known in part, from two
 * facts: the initial (absent) state precedes every write, and a committed transaction that read
 * version {@code a} of a key and then wrote it installed its last write {@code b} after {@code a}
 * (writes follow reads). Each such pair {@code a -> b} is a known direct successor. Then:
 *
 * <ul>
 *   <li>ww: the writer of {@code a} to the writer of {@code b} (not for the initial state);
 *   <li>wr: the writer of a value to each committed transaction that read it;
 *   <li>rw: each committed reader of {@code a} (including the initial state) to the writer of each
 *       known successor {@code b}.
 * </ul>
 *
 * Blind writes (with no read of the key before them) give no order, so the checker sees less of a
 * history of blind writes; histories meant for it should read before they write. Only external
 * reads (before the transaction's own write to the key) give edges. A read of an aborted
 * transaction's value is G1a; of a value its writer overwrote in the same transaction, G1b; of a
 * value nobody wrote, a garbage read. Two committed transactions that read the same version and
 * both wrote the key is a lost update (it also shows as a cycle of two rw edges, G2).
 */
final class RegisterInference {

  /** The initial state's stand-in in maps keyed by value (values are longs, absent is null). */
  private record Version(Long value) {}

  private final DependencyGraph graph;
  private final List<Anomaly> anomalies;
  private final Map<String, Map<Long, Txn>> writer = new HashMap<>();

  /** key -> transaction id -> its writes to the key, in order. */
  private final Map<String, Map<Integer, List<Long>>> writesBy = new HashMap<>();

  /** key -> version -> committed external readers. */
  private final Map<String, Map<Version, List<Txn>>> readers = new LinkedHashMap<>();

  /** key -> version -> known direct successors. */
  private final Map<String, Map<Version, Set<Long>>> successors = new LinkedHashMap<>();

  /** key -> version -> committed transactions that read it, then wrote the key. */
  private final Map<String, Map<Version, List<Txn>>> updaters = new LinkedHashMap<>();

  RegisterInference(DependencyGraph graph, List<Anomaly> anomalies) {
    this.graph = graph;
    this.anomalies = anomalies;
  }

  void collect(Txn t) {
    Map<String, Version> readFirst = new HashMap<>();
    Set<String> wrote = new LinkedHashSet<>();
    Map<String, Long> lastWrite = new HashMap<>();
    for (Op op : t.ops()) {
      if (op instanceof Op.Write w) {
        Txn previous = writer.computeIfAbsent(w.key(), k -> new HashMap<>()).put(w.value(), t);
        if (previous != null) {
          throw new IllegalArgumentException(
              "value "
                  + w.value()
                  + " written to "
                  + w.key()
                  + " by both T"
                  + previous.id()
                  + " and T"
                  + t.id()
                  + ": written values must be "
                  + "unique per key");
        }
        writesBy
            .computeIfAbsent(w.key(), k -> new HashMap<>())
            .computeIfAbsent(t.id(), k -> new ArrayList<>())
            .add(w.value());
        wrote.add(w.key());
        lastWrite.put(w.key(), w.value());
      } else if (op instanceof Op.Read r && t.committed() && !wrote.contains(r.key())) {
        Version v = new Version(r.value());
        readers
            .computeIfAbsent(r.key(), k -> new LinkedHashMap<>())
            .computeIfAbsent(v, k -> new ArrayList<>())
            .add(t);
        readFirst.putIfAbsent(r.key(), v);
      }
    }
    if (!t.committed()) {
      return;
    }
    for (Map.Entry<String, Version> e : readFirst.entrySet()) {
      Long written = lastWrite.get(e.getKey());
      if (written != null) {
        successors
            .computeIfAbsent(e.getKey(), k -> new LinkedHashMap<>())
            .computeIfAbsent(e.getValue(), k -> new LinkedHashSet<>())
            .add(written);
        updaters
            .computeIfAbsent(e.getKey(), k -> new LinkedHashMap<>())
            .computeIfAbsent(e.getValue(), k -> new ArrayList<>())
            .add(t);
      }
    }
  }

  void infer() {
    for (Map.Entry<String, Map<Version, List<Txn>>> e : readers.entrySet()) {
      checkValues(e.getKey(), e.getValue());
    }
    for (Map.Entry<String, Map<Version, Set<Long>>> e : successors.entrySet()) {
      addOrderEdges(e.getKey(), e.getValue());
    }
    for (Map.Entry<String, Map<Version, List<Txn>>> e : updaters.entrySet()) {
      for (Map.Entry<Version, List<Txn>> v : e.getValue().entrySet()) {
        List<Txn> both = v.getValue();
        for (int i = 1; i < both.size(); i++) {
          anomalies.add(
              new Anomaly(
                  AnomalyKind.LOST_UPDATE,
                  null,
                  List.of(both.get(0), both.get(i)),
                  List.of(),
                  "T"
                      + both.get(0).id()
                      + " and T"
                      + both.get(i).id()
                      + " both read "
                      + e.getKey()
                      + " = "
                      + describe(v.getKey())
                      + " and both wrote it"));
        }
      }
    }
  }

  private void checkValues(String key, Map<Version, List<Txn>> byVersion) {
    Map<Long, Txn> writers = writer.getOrDefault(key, Map.of());
    for (Map.Entry<Version, List<Txn>> e : byVersion.entrySet()) {
      Long value = e.getKey().value();
      if (value == null) {
        continue;
      }
      Txn w = writers.get(value);
      for (Txn reader : e.getValue()) {
        if (w == null) {
          anomalies.add(
              new Anomaly(
                  AnomalyKind.GARBAGE_READ,
                  null,
                  List.of(reader),
                  List.of(),
                  "T"
                      + reader.id()
                      + " read "
                      + key
                      + " = "
                      + value
                      + ", which no transaction wrote"));
        } else if (w.outcome() == Outcome.ABORTED) {
          anomalies.add(
              new Anomaly(
                  AnomalyKind.G1A,
                  null,
                  List.of(reader, w),
                  List.of(),
                  "T"
                      + reader.id()
                      + " read "
                      + key
                      + " = "
                      + value
                      + ", written by aborted T"
                      + w.id()));
        } else {
          List<Long> own = writesBy.get(key).get(w.id());
          if (!Objects.equals(own.getLast(), value)) {
            anomalies.add(
                new Anomaly(
                    AnomalyKind.G1B,
                    null,
                    List.of(reader, w),
                    List.of(),
                    "T"
                        + reader.id()
                        + " read "
                        + key
                        + " = "
                        + value
                        + ", which T"
                        + w.id()
                        + " overwrote with "
                        + own.getLast()));
          }
          graph.add(w.id(), reader.id(), EdgeKind.WR, key);
        }
      }
    }
  }

  private void addOrderEdges(String key, Map<Version, Set<Long>> next) {
    Map<Long, Txn> writers = writer.getOrDefault(key, Map.of());
    Map<Version, List<Txn>> byVersion = readers.getOrDefault(key, Map.of());
    for (Map.Entry<Version, Set<Long>> e : next.entrySet()) {
      Txn before = e.getKey().value() == null ? null : writers.get(e.getKey().value());
      for (Long b : e.getValue()) {
        Txn after = writers.get(b);
        if (before != null && before.outcome() != Outcome.ABORTED) {
          graph.add(before.id(), after.id(), EdgeKind.WW, key);
        }
        for (Txn reader : byVersion.getOrDefault(e.getKey(), List.of())) {
          graph.add(reader.id(), after.id(), EdgeKind.RW, key);
        }
      }
    }
  }

  private static String describe(Version v) {
    return v.value() == null ? "absent" : String.valueOf(v.value());
  }
}
