package dev.larder.bench.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The transactional member JVMs' answers to {@code epoch} ("READY n e" or "WAIT n e": the state,
 * the epoch's size and its number), and the wait until they are all READY in one epoch: a trial
 * reads its final state only then, so that no member serves what an epoch it was dropped from left
 * behind. Not thread-safe: one trial's driver thread calls it.
 */
final class MemberEpochs {
  private MemberEpochs() {}

  /** Every member's answer, joined by ", ", in the members' order. */
  static String answers(MemberProcess[] members) throws InterruptedException {
    List<String> out = new ArrayList<>();
    for (MemberProcess m : members) {
      out.add(m.ask("epoch", 30));
    }
    return String.join(", ", out);
  }

  /** Whether every answer is READY in an epoch of {@code nodes} members, the same epoch. */
  static boolean oneEpoch(String answers, int nodes) {
    String want = "READY " + nodes + " ";
    String[] each = answers.split(", ", -1);
    for (String a : each) {
      if (!a.startsWith(want) || !a.equals(each[0])) {
        return false;
      }
    }
    return true;
  }

  /**
   * Waits until {@link #oneEpoch}, asking every 50 ms, and returns the answers.
   *
   * @param first the answers already read (the first poll)
   * @param seconds how long to wait at most
   * @param detail more for the failure's message (e.g. the members' standard error), called once on
   *     a timeout
   * @throws IllegalStateException if they are not in one epoch within {@code seconds}
   */
  static String awaitOne(
      MemberProcess[] members, int nodes, String first, int seconds, Supplier<String> detail)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    String now = first;
    while (!oneEpoch(now, nodes)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the members are not READY in one epoch of "
                + nodes
                + " after "
                + seconds
                + " s: "
                + now
                + detail.get());
      }
      Thread.sleep(50);
      now = answers(members);
    }
    return now;
  }
}
