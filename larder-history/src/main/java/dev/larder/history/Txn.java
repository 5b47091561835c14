package dev.larder.history;

import java.util.List;
import java.util.Objects;

/**
 * One recorded transaction.
 *
 * @param id unique in its history
 * @param process the client that ran it; a client runs one transaction at a time, so its
 *     transactions are ordered (the process order)
 * @param outcome how it ended
 * @param ops what it did, in order; the reads hold what they returned (for an aborted or unknown
 *     transaction they are not checked)
 * @param invokeNanos when the client began it, on one clock shared by every client of the history
 *     ({@link System#nanoTime()} in one JVM, or wall-clock nanoseconds across JVMs on one host);
 *     used for process order and real-time order
 * @param completeNanos when the client learnt its outcome, on the same clock
 */
public record Txn(
    int id, int process, Outcome outcome, List<Op> ops, long invokeNanos, long completeNanos) {

  /** Checks and copies. */
  public Txn {
    Objects.requireNonNull(outcome, "outcome");
    ops = List.copyOf(ops);
    if (completeNanos < invokeNanos) {
      throw new IllegalArgumentException("transaction " + id + " completes before it begins");
    }
  }

  /** Returns true if the commit was acknowledged. */
  public boolean committed() {
    return outcome == Outcome.COMMITTED;
  }

  @Override
  public String toString() {
    return "T" + id + "(p" + process + " " + outcome + " " + ops + ")";
  }
}
