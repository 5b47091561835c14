package dev.larder.history;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Adds the orders clients observed: process order (each client's transactions, one after the other)
 * and real-time order (a transaction that completed before another began precedes it). Only
 * committed transactions take part: an aborted one is not a node, and an unknown one has no known
 * completion.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Real-time order has up to n² pairs; the checker adds a transitive reduction of it instead.
 * Walking begin and completion events in time order, it keeps a <i>frontier</i>: transactions
 * completed so far that no later-completed transaction follows yet. A transaction that begins gets
 * an edge from each member of the frontier; when it completes it replaces, in the frontier, the
 * members it got edges from. Every pair (a completed before b began) is then joined by a path: a
 * was in the frontier when b began, or was replaced by a transaction that follows a and completed
 * before b began, and so on. The frontier holds at most one transaction per concurrent client.
 */
final class OrderEdges {

  private OrderEdges() {}

  static void addProcessOrder(DependencyGraph graph, List<Txn> txns) {
    Map<Integer, List<Txn>> byProcess = new HashMap<>();
    for (Txn t : txns) {
      if (t.committed()) {
        byProcess.computeIfAbsent(t.process(), p -> new ArrayList<>()).add(t);
      }
    }
    for (List<Txn> ts : byProcess.values()) {
      ts.sort(Comparator.comparingLong(Txn::invokeNanos).thenComparingInt(Txn::id));
      for (int i = 0; i + 1 < ts.size(); i++) {
        graph.add(ts.get(i).id(), ts.get(i + 1).id(), EdgeKind.PROCESS, null);
      }
    }
  }

  private record Event(long at, boolean begin, Txn txn) {}

  static void addRealTimeOrder(DependencyGraph graph, List<Txn> txns) {
    List<Event> events = new ArrayList<>();
    for (Txn t : txns) {
      if (t.committed()) {
        events.add(new Event(t.invokeNanos(), true, t));
        events.add(new Event(t.completeNanos(), false, t));
      }
    }
    // At equal times a completion is not before a beginning: begins sort first.
    events.sort(Comparator.comparingLong(Event::at).thenComparing(e -> !e.begin()));
    Set<Txn> frontier = new LinkedHashSet<>();
    Map<Txn, List<Txn>> predecessors = new HashMap<>();
    for (Event e : events) {
      if (e.begin()) {
        List<Txn> before = new ArrayList<>(frontier);
        predecessors.put(e.txn(), before);
        for (Txn p : before) {
          graph.add(p.id(), e.txn().id(), EdgeKind.REALTIME, null);
        }
      } else {
        predecessors.remove(e.txn()).forEach(frontier::remove);
        frontier.add(e.txn());
      }
    }
  }
}
