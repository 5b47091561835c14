package dev.larder.internal.store;

import dev.larder.Storage;

/**
 * What one segment needs to know about its cache.
 *
 * @param storage where pages live
 * @param pageSize bytes of a standard page
 * @param budgetBytes the segment's share of the memory bound, or {@link Long#MAX_VALUE}
 * @param maxEntries the segment's share of the entry bound, or {@link Long#MAX_VALUE}
 * @param expireAfterWriteNanos or -1
 * @param expireAfterAccessNanos or -1
 * @param collectRemovals true if removed entries' bytes must be kept for a listener
 */
public record StoreSettings(
    Storage storage,
    int pageSize,
    long budgetBytes,
    long maxEntries,
    long expireAfterWriteNanos,
    long expireAfterAccessNanos,
    boolean collectRemovals) {

  /** @return true if entries carry a deadline */
  public boolean expires() {
    return expireAfterWriteNanos > 0 || expireAfterAccessNanos > 0;
  }

  long lifetimeNanos() {
    return expireAfterWriteNanos > 0 ? expireAfterWriteNanos : expireAfterAccessNanos;
  }
}
