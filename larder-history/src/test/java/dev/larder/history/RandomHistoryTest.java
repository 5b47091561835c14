package dev.larder.history;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.history.HistoryChecker.Orders;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Generated histories: a serial execution of random list-append and register transactions is clean
 * under every order; the same history with one read made stale is not.
 */
class RandomHistoryTest {

  private static final int TXNS = 2_000;

  /** Runs random transactions one at a time against maps, recording them. */
  private static List<Txn> serialHistory(long seed) {
    Random random = new Random(seed);
    Map<String, List<Long>> lists = new HashMap<>();
    Map<String, Long> registers = new HashMap<>();
    long next = 1;
    List<Txn> txns = new ArrayList<>();
    for (int i = 0; i < TXNS; i++) {
      List<Op> ops = new ArrayList<>();
      for (int j = 0; j < 1 + random.nextInt(4); j++) {
        String key = "k" + random.nextInt(8);
        if (random.nextBoolean()) {
          List<Long> list = lists.computeIfAbsent("l" + key, k -> new ArrayList<>());
          if (random.nextBoolean()) {
            ops.add(new Op.ReadList("l" + key, list));
          } else {
            ops.add(Op.append("l" + key, next));
            list.add(next++);
          }
        } else {
          // registers are read before they are written, so that their order is known
          ops.add(Op.read("r" + key, registers.get("r" + key)));
          if (random.nextBoolean()) {
            ops.add(Op.write("r" + key, next));
            registers.put("r" + key, next++);
          }
        }
      }
      txns.add(new Txn(i, i % 5, Outcome.COMMITTED, ops, i * 10L, i * 10L + 5));
    }
    return txns;
  }

  @Test
  void serialExecutionsAreClean() {
    for (long seed = 1; seed <= 5; seed++) {
      CheckResult r = HistoryChecker.check(serialHistory(seed), Orders.REALTIME);
      assertTrue(r.valid(), "seed " + seed + ": " + r.anomalies());
    }
  }

  @Test
  void aStaleReadInASerialExecutionIsFound() {
    for (long seed = 1; seed <= 5; seed++) {
      List<Txn> txns = new ArrayList<>(serialHistory(seed));
      Txn victim = staleCandidate(txns);
      List<Op> ops = new ArrayList<>();
      boolean done = false;
      for (Op op : victim.ops()) {
        if (!done && op instanceof Op.ReadList r && !r.values().isEmpty()) {
          ops.add(new Op.ReadList(r.key(), r.values().subList(0, r.values().size() - 1)));
          done = true;
        } else {
          ops.add(op);
        }
      }
      txns.set(
          txns.indexOf(victim),
          new Txn(
              victim.id(),
              victim.process(),
              victim.outcome(),
              ops,
              victim.invokeNanos(),
              victim.completeNanos()));
      CheckResult r = HistoryChecker.check(txns, Orders.REALTIME);
      assertFalse(r.valid(), "seed " + seed + ": a stale read of T" + victim.id() + " passed");
    }
  }

  /**
   * A transaction from the middle of the history whose first non-empty list read precedes any
   * append of its own (later transactions read the same key, so its order stays known).
   */
  private static Txn staleCandidate(List<Txn> txns) {
    for (int i = txns.size() / 2; i < txns.size(); i++) {
      for (Op op : txns.get(i).ops()) {
        if (op instanceof Op.Append) {
          break;
        }
        if (op instanceof Op.ReadList r && !r.values().isEmpty()) {
          return txns.get(i);
        }
      }
    }
    throw new AssertionError("no candidate");
  }
}
