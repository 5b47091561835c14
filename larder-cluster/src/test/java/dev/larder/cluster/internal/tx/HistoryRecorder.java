package dev.larder.cluster.internal.tx;

import dev.larder.cluster.ClusterException;
import dev.larder.history.Op;
import dev.larder.history.Outcome;
import dev.larder.history.Txn;
import dev.larder.tx.Transaction;
import dev.larder.tx.TransactionConflictException;
import dev.larder.tx.TxCache;
import dev.larder.tx.TxStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs random list-append and register transactions against a store and records each as the history
 * checker wants it. Lists are stored as comma-separated strings; an append reads the list and
 * writes it longer (the checker sees only the append). Registers are read before they are written,
 * so that their version order is known. Values are unique per key (one counter).
 */
final class HistoryRecorder {

  private final AtomicLong values = new AtomicLong();
  private final AtomicInteger ids = new AtomicInteger();
  private final List<Txn> history = new ArrayList<>();
  private final int keys;

  HistoryRecorder(int keys) {
    this.keys = keys;
  }

  /** One transaction of {@code process}, recorded whatever its outcome. */
  void runOne(
      int process,
      TxStore store,
      TxCache<String, String> lists,
      TxCache<String, Long> registers,
      Random random) {
    List<Op> ops = new ArrayList<>();
    long invoke = System.nanoTime();
    Outcome outcome;
    try (Transaction tx = store.begin()) {
      int n = 1 + random.nextInt(4);
      for (int i = 0; i < n; i++) {
        String key = "k" + random.nextInt(keys);
        switch (random.nextInt(4)) {
          case 0 -> ops.add(new Op.ReadList(key, parse(tx.get(lists, key))));
          case 1 -> {
            long v = values.incrementAndGet();
            String old = tx.get(lists, key);
            tx.put(lists, key, old == null ? Long.toString(v) : old + "," + v);
            ops.add(Op.append(key, v));
          }
          case 2 -> ops.add(Op.read(key, tx.get(registers, key)));
          default -> {
            Long old = tx.get(registers, key);
            long v = values.incrementAndGet();
            tx.put(registers, key, v);
            ops.add(Op.read(key, old));
            ops.add(Op.write(key, v));
          }
        }
      }
      tx.commit();
      outcome = Outcome.COMMITTED;
    } catch (TransactionConflictException e) {
      outcome = Outcome.ABORTED;
    } catch (ClusterException e) {
      outcome = Outcome.UNKNOWN;
    }
    Txn t = new Txn(ids.incrementAndGet(), process, outcome, ops, invoke, System.nanoTime());
    synchronized (history) {
      history.add(t);
    }
  }

  static List<Long> parse(String list) {
    return list == null || list.isEmpty()
        ? List.of()
        : Arrays.stream(list.split(",")).map(Long::valueOf).toList();
  }

  List<Txn> history() {
    synchronized (history) {
      return List.copyOf(history);
    }
  }
}
