package dev.larder.cluster;

/**
 * What a member's near cache (copies of keys it does not own, distributed mode) did since it
 * started. Counters are read without a common lock.
 *
 * @param hits reads answered from the near cache
 * @param misses reads of non-owned keys the near cache could not answer (asked an owner)
 * @param invalidations copies dropped because a primary told this member of a write (or a backup
 *     write reached it)
 * @param entries copies held now
 * @param memoryUsed bytes the near cache's store reserves, apart from the main store
 */
public record NearCacheStats(
    long hits, long misses, long invalidations, long entries, long memoryUsed) {

  /** No near cache. */
  public static final NearCacheStats NONE = new NearCacheStats(0, 0, 0, 0, 0);
}
