package dev.larder.cluster.internal.tx;

import java.util.HashMap;
import java.util.Map;
import org.jgroups.Address;

/**
 * The read lease of a member READY in an epoch (docs/design/cluster-transactions.md, "The read
 * lease"): it holds while, besides this member, {@code majority - 1} other members of the epoch
 * granted a request of this member's made less than {@code lengthNanos} ago. A grant counts from
 * the moment this member asked (its stamp, echoed by the grantor), never from its arrival, so a
 * grant delayed in the network shortens the lease instead of stretching it.
 *
 * <p>Times are {@link System#nanoTime()}: monotonic, compared by difference. Grants are kept for
 * one epoch (number and ballot) at a time; {@link #track} with another epoch forgets them.
 *
 * <p>Thread-safe: grants arrive on the channel's worker threads, validity is read by every
 * transaction's begin.
 */
final class ReadLease {

  private final int majority;
  private final long lengthNanos;

  // guarded by this
  private long epoch = -1;
  private Ballot ballot = Ballot.ZERO;
  private final Map<Address, Long> granted = new HashMap<>();

  /** The epoch the lease holds in (-1: none) and until when; read without the monitor. */
  private volatile long validEpoch = -1;

  private volatile long validUntil;

  /**
   * @param majority grants needed, this member's own included (a majority of the configured
   *     members)
   * @param lengthNanos how long a grant counts from the request it answers
   */
  ReadLease(int majority, long lengthNanos) {
    this.majority = majority;
    this.lengthNanos = lengthNanos;
  }

  long lengthNanos() {
    return lengthNanos;
  }

  /** Makes {@code number} (of {@code b}) the epoch grants count for, forgetting other epochs'. */
  synchronized void track(long number, Ballot b) {
    if (number != epoch || !b.equals(ballot)) {
      epoch = number;
      ballot = b;
      granted.clear();
      recompute();
    }
  }

  /**
   * A grant from {@code from} of the request made at {@code stamp} in epoch {@code number} of
   * {@code b}; ignored if that is not the tracked epoch.
   */
  synchronized void granted(Address from, long number, Ballot b, long stamp) {
    if (number != epoch || !b.equals(ballot)) {
      return;
    }
    Long before = granted.get(from);
    if (before == null || stamp - before > 0) {
      granted.put(from, stamp);
      recompute();
    }
  }

  /** Returns true if the lease holds now in epoch {@code number}. */
  boolean holdsIn(long number) {
    return validEpoch == number && validEpoch >= 0 && System.nanoTime() - validUntil < 0;
  }

  private void recompute() {
    int needed = majority - 1; // this member grants itself
    if (needed <= 0) {
      validUntil = System.nanoTime() + Long.MAX_VALUE / 2;
      validEpoch = epoch;
      return;
    }
    if (granted.size() < needed) {
      validEpoch = -1;
      return;
    }
    // the needed-th newest request answered: the lease ends lengthNanos after it
    long[] stamps = granted.values().stream().mapToLong(Long::longValue).toArray();
    java.util.Arrays.sort(stamps); // stamps of one JVM's nanoTime: close together, no overflow
    validUntil = stamps[stamps.length - needed] + lengthNanos;
    validEpoch = epoch;
  }
}
