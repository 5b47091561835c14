package dev.larder.cluster.internal.tx;

/**
 * A reconfiguration's ballot, ordered by round, then by the proposing member's id, so that two
 * proposers never use the same ballot.
 *
 * @param round the round
 * @param member the proposer's member id
 */
record Ballot(long round, long member) implements Comparable<Ballot> {

  /** Below every ballot a proposer uses. */
  static final Ballot ZERO = new Ballot(0, 0);

  @Override
  public int compareTo(Ballot o) {
    int c = Long.compare(round, o.round);
    return c != 0 ? c : Long.compare(member, o.member);
  }

  boolean isAbove(Ballot o) {
    return compareTo(o) > 0;
  }

  @Override
  public String toString() {
    return round + "." + Long.toHexString(member);
  }
}
