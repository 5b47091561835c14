package dev.larder.server.internal.net;

/**
 * Decides when the syncer starts the next force of the log after one ends, under {@code appendfsync
 * always}: at once, or after a short wait that lets the writers the last force answered append
 * their next records, so that one force covers them all.
 *
 * <p><b>Why.</b> Starting the next force the moment one ends splits clients with one write in
 * flight each (redis-benchmark at pipeline 1) into two groups that take turns: while force k runs,
 * the clients force k-1 answered send their next writes, which force k+1 takes at once when k ends;
 * meanwhile the clients k answered send theirs, for k+2. Each force then carries half of the
 * clients, and the disk runs twice the forces that one group of all of them would need. Redis's
 * loop (write, force, reply to all, read all) forces once per round trip with every client in it.
 *
 * <p><b>The rule.</b> A force that carried {@code c} records (the records appended between the
 * start of the force before it and its own start) answered about {@code c} writers. When it ends,
 * the next force waits until {@code c} more records are appended after that moment (those writers'
 * next writes), but never past half the ended force's length after its end. A writer alone carries
 * 1 record a force, and its next write is the one record the next force waits for, so it never
 * waits: the next force starts as its round arrives, as without the rule. Clients that do not come
 * back (they read, or closed) cost at most the bound; the next force carries fewer and so waits for
 * fewer.
 *
 * <p>Not thread-safe: the syncer thread alone uses it. Sequences are the log's appended sequence
 * (one a record, only grows); times are {@link System#nanoTime()}.
 */
final class ForceGathering {
  /** The longest wait, as a fraction of the last force's length. */
  static final double BOUND = 0.5;

  /** The appended sequence when the last force started; -1 before the first. */
  private long lastStart = -1;

  /** Records the last force carried. */
  private long carried;

  /** The appended sequence the next force waits for. */
  private long target;

  /** When the next force stops waiting for it. */
  private long deadline;

  /** Whether a force has ended and the next one has not started (a wait applies). */
  private boolean ended;

  /**
   * A force starts, covering at least every record appended up to {@code appendedSequence}.
   *
   * @param appendedSequence the log's appended sequence, read before the force writes
   */
  void forceStarting(long appendedSequence) {
    carried = lastStart < 0 ? 0 : Math.max(0, appendedSequence - lastStart);
    lastStart = appendedSequence;
    ended = false;
  }

  /**
   * The force that started last has ended.
   *
   * @param appendedSequence the log's appended sequence now
   * @param now when it ended
   * @param forceNanos how long it took
   */
  void forceEnded(long appendedSequence, long now, long forceNanos) {
    target = appendedSequence + carried;
    deadline = now + (long) (Math.max(0, forceNanos) * BOUND);
    ended = true;
  }

  /**
   * Returns how long the next force should still wait, given the records appended so far: 0 to
   * start it now. Never more than the bound after the last force's end; 0 before any force ended.
   *
   * @param appendedSequence the log's appended sequence now
   * @param now the time now
   */
  long waitNanos(long appendedSequence, long now) {
    if (!ended || appendedSequence >= target) {
      return 0;
    }
    return Math.max(0, deadline - now);
  }
}
