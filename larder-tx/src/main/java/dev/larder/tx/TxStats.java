package dev.larder.tx;

/**
 * Counters and sizes of a {@link TxStore}.
 *
 * @param commits transactions committed with at least one write
 * @param conflicts commits refused with {@link TransactionConflictException}
 * @param visibleSequence the last commit visible to new transactions
 * @param activeSnapshots snapshots held by open transactions and running checkpoints
 * @param historyCommits commits whose write sets are kept for conflict checks
 * @param versionedKeys keys with superseded versions kept for open snapshots
 */
public record TxStats(
    long commits,
    long conflicts,
    long visibleSequence,
    int activeSnapshots,
    int historyCommits,
    int versionedKeys) {}
