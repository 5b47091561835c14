package dev.larder.tx;

import java.io.Serial;
import java.util.List;

/**
 * Thrown by {@link Transaction#commit()} when a transaction that committed after this one's
 * snapshot wrote a key this one read (serializable) or wrote (both levels). Nothing of the failed
 * transaction became visible; it is rolled back. Running it again from the start usually succeeds:
 * see {@link TxStore#inTransaction}.
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
    super("transaction with snapshot " + snapshot + " conflicts on " + keys
        + ": committed by a later transaction");
    this.keys = List.copyOf(keys);
  }

  /** @return the keys in conflict */
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
