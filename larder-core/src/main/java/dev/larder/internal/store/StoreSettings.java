package dev.larder.internal.store;

import dev.larder.RemovalCause;
import dev.larder.Storage;

/**
 * What one segment needs to know about its cache.
 *
 * @param storage where pages live
 * @param pageSize bytes of a standard page once the segment holds enough for it (see {@link
 *     #firstPageSize})
 * @param budgetBytes the segment's share of the memory bound, or {@link Long#MAX_VALUE}
 * @param maxEntries the segment's share of the entry bound, or {@link Long#MAX_VALUE}
 * @param expireAfterWriteNanos or -1
 * @param expireAfterAccessNanos or -1
 * @param collectRemovals true if removed entries' bytes must be kept for a listener
 * @param collectEvictions true if evicted entries' bytes (causes SIZE and EXPIRED) must be kept for
 *     a listener; implied by {@code collectRemovals}
 */
public record StoreSettings(
    Storage storage,
    int pageSize,
    long budgetBytes,
    long maxEntries,
    long expireAfterWriteNanos,
    long expireAfterAccessNanos,
    boolean collectRemovals,
    boolean collectEvictions) {

  /** Settings that collect evicted entries' bytes only where {@code collectRemovals} does. */
  public StoreSettings(
      Storage storage,
      int pageSize,
      long budgetBytes,
      long maxEntries,
      long expireAfterWriteNanos,
      long expireAfterAccessNanos,
      boolean collectRemovals) {
    this(
        storage,
        pageSize,
        budgetBytes,
        maxEntries,
        expireAfterWriteNanos,
        expireAfterAccessNanos,
        collectRemovals,
        false);
  }

  /** The standard page size of a new segment whose bound calls for large pages. */
  static final int FIRST_PAGE = 4096;

  /**
   * The largest standard page a new segment starts with: 1/256 of a 16 MiB budget, the budget of
   * every segment of a cache bounded by up to 256 MiB.
   */
  static final int EAGER_PAGE = 64 * 1024;

  /**
   * Returns the standard page size a new segment starts with: {@link #pageSize} if it is at most
   * {@link #EAGER_PAGE} or an entry bound sizes it; else {@link #FIRST_PAGE}, so that what a nearly
   * empty segment of a large byte bound reserves follows what it holds, not its share of a bound
   * that may be a terabyte (pages then grow as the segment fills, see {@code PageStore}). Segments
   * with small pages keep them from the start, so that where reserving a page costs little, the
   * pages and the eviction decisions they shape are as they always were.
   */
  int firstPageSize() {
    return maxEntries == Long.MAX_VALUE && pageSize > EAGER_PAGE ? FIRST_PAGE : pageSize;
  }

  /** Returns true if entries carry a deadline. */
  public boolean expires() {
    return expireAfterWriteNanos > 0 || expireAfterAccessNanos > 0;
  }

  long lifetimeNanos() {
    return expireAfterWriteNanos > 0 ? expireAfterWriteNanos : expireAfterAccessNanos;
  }

  /**
   * Returns whether its bytes must be kept for a listener.
   *
   * @param cause why an entry goes
   */
  public boolean collects(RemovalCause cause) {
    return collectRemovals || (collectEvictions && cause.wasEvicted());
  }
}
