package dev.larder.cluster;

/**
 * What this member received through state transfer. Cumulative since the member joined, plus the
 * last rebalance. Values are read without a common lock and may be mutually inconsistent while a
 * rebalance runs.
 *
 * @param rebalances views that gave this member segments it did not hold
 * @param segmentsReceived segments received from other members, in total
 * @param entriesReceived entries received, in total
 * @param bytesReceived key and value bytes received, in total
 * @param segmentsLost segments this member became an owner of but found no member holding a
 *     complete copy of (every previous owner left at once); they start empty. A durable member's
 *     segment still pending after a full restart is not counted: it waits for a member holding its
 *     newest record instead
 * @param shortfallBytes bytes of received state that did not fit under this member's memory bound
 *     (the store evicted to stay within it); 0 when the member took its whole share
 * @param lastSegments segments received in the last rebalance
 * @param lastBytes bytes received in the last rebalance
 * @param lastMillis wall-clock time of the last rebalance, from the view to the last segment
 * @param inProgress true while segments are still being received
 */
public record RebalanceStats(
    long rebalances,
    long segmentsReceived,
    long entriesReceived,
    long bytesReceived,
    long segmentsLost,
    long shortfallBytes,
    long lastSegments,
    long lastBytes,
    long lastMillis,
    boolean inProgress) {}
