package dev.larder.internal.store;

/**
 * A segment's share of its cache's hot tier.
 *
 * @param table the cache's table of hot entries by key object, shared by its segments
 * @param budgetBytes the segment's share of the tier's bytes, or {@link Long#MAX_VALUE}
 * @param maxEntries the segment's share of the tier's entries, or {@link Long#MAX_VALUE}
 */
public record HotTierShare(HotTable table, long budgetBytes, long maxEntries) {}
