package dev.larder.tx;

/**
 * How much a transaction is protected from concurrent ones. Both levels read from a snapshot: every
 * read of a transaction sees the state produced by exactly the commits whose sequence is at most
 * the transaction's snapshot (the last commit visible when it began), plus its own writes. No read
 * ever sees part of a commit, or a write that was not committed. They differ only in what commit
 * checks.
 */
public enum Isolation {

  /**
   * Serializable. Commit fails with {@link TransactionConflictException} if any key the transaction
   * read (including keys it found absent) or wrote was written by a transaction that committed
   * after its snapshot. A transaction that commits therefore read exactly the values it would have
   * read had it run alone at its commit point, so the committed transactions are equivalent to
   * running one at a time in commit-sequence order (read-only transactions at their snapshot).
   * Prevents lost update, dirty read, non-repeatable read, read skew, write skew. Applies to
   * single-key reads and writes; there are no range reads, so there are no phantoms to miss.
   */
  SERIALIZABLE,

  /**
   * Snapshot isolation (GemStone's commit check). Commit fails with {@link
   * TransactionConflictException} if any key the transaction wrote was written by a transaction
   * that committed after its snapshot: the first committer wins. Reads are not checked. Prevents
   * lost update, dirty read, non-repeatable read and read skew; allows write skew (two transactions
   * each read what the other writes and write disjoint keys; both commit).
   */
  SNAPSHOT
}
