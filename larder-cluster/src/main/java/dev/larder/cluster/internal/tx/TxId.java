package dev.larder.cluster.internal.tx;

/**
 * A transaction's id: unique across the cluster and across restarts, since the incarnation is drawn
 * at random when a member starts and the counter counts that incarnation's transactions.
 *
 * @param incarnation the originating member's incarnation
 * @param counter the transaction's number within it
 */
record TxId(long incarnation, long counter) {
  @Override
  public String toString() {
    return Long.toHexString(incarnation) + "-" + counter;
  }
}
