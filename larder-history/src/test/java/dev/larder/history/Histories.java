package dev.larder.history;

import java.util.ArrayList;
import java.util.List;

/** Builds hand-made histories: each transaction runs alone, one after the other, unless timed. */
final class Histories {

  private final List<Txn> txns = new ArrayList<>();
  private long clock;

  /** A committed transaction of its own process, after every earlier one. */
  Histories ok(Op... ops) {
    return add(txns.size() + 100, Outcome.COMMITTED, ops);
  }

  Histories aborted(Op... ops) {
    return add(txns.size() + 100, Outcome.ABORTED, ops);
  }

  Histories unknown(Op... ops) {
    return add(txns.size() + 100, Outcome.UNKNOWN, ops);
  }

  /** A committed transaction of {@code process}, after every earlier one. */
  Histories ok(int process, Op... ops) {
    return add(process, Outcome.COMMITTED, ops);
  }

  /** A committed transaction of its own process spanning [begin, end] (not serial). */
  Histories timed(long begin, long end, Op... ops) {
    txns.add(
        new Txn(txns.size() + 1, txns.size() + 100, Outcome.COMMITTED, List.of(ops), begin, end));
    return this;
  }

  private Histories add(int process, Outcome outcome, Op... ops) {
    long begin = clock += 10;
    long end = clock += 10;
    txns.add(new Txn(txns.size() + 1, process, outcome, List.of(ops), begin, end));
    return this;
  }

  List<Txn> build() {
    return List.copyOf(txns);
  }
}
