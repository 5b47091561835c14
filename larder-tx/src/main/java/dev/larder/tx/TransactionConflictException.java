package dev.larder.tx;

import java.io.Serial;
import java.util.List;

/**
 * Thrown by {@link Transaction#commit()} when a transaction that committed after this one's
 * snapshot wrote a key this one read (serializable) or wrote (both levels), or (in a clustered
 * store) when another transaction held a lock on such a key, or the cluster's members changed
 * before the commit was decided. Nothing of the failed transaction became visible; it is rolled
 * back. Running it again from the start usually succeeds: see {@link TxStore#inTransaction}.
 */
public final class TransactionConflictException extends RuntimeException {

  @Serial private static final long serialVersionUID = 1L;

  /** The keys in conflict, as {@code cache name} and decoded key. */
  private final transient List<ConflictingKey> keys;

  /**
   * @param keys the keys in conflict
   * @param snapshot the failed transaction's snapshot
   */
  public TransactionConflictException(List<ConflictingKey> keys, long snapshot) {
    super(
        "transaction with snapshot "
            + snapshot
            + " conflicts on "
            + keys
            + ": committed by a later transaction");
    this.keys = List.copyOf(keys);
  }

  /**
   * A transaction refused for a reason other than a later commit on one of its keys (a clustered
   * store aborts a transaction that a change of the cluster's members interrupted before any member
   * was told to commit it). Running it again usually succeeds.
   *
   * @param message why
   * @param keys the keys in conflict, often none
   */
  public TransactionConflictException(String message, List<ConflictingKey> keys) {
    super(message);
    this.keys = List.copyOf(keys);
  }

  /** Returns the keys in conflict. */
  public List<ConflictingKey> keys() {
    return keys;
  }

  /**
   * One key in conflict.
   *
   * @param cache the cache's name
   * @param key the decoded key
   * @param committedAt the sequence of the later commit that wrote it
   */
  public record ConflictingKey(String cache, Object key, long committedAt) {
    @Override
    public String toString() {
      return cache + ":" + key + "@" + committedAt;
    }
  }
}
