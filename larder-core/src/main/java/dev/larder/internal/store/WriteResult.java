package dev.larder.internal.store;

import java.util.List;

/**
 * What a write did.
 *
 * @param applied whether the write or removal took place
 * @param previous the previous value's bytes when asked for, else null
 * @param removals entries that left the segment (replaced, evicted, expired), for listeners; empty
 *     unless the segment collects them
 * @param evictions entries evicted for the bound during the call
 * @param expirations entries found expired during the call
 * @param cleared entries a {@link Segment#clear} removed
 */
@SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
public record WriteResult(
    boolean applied,
    byte[] previous,
    List<RemovedEntry> removals,
    int evictions,
    int expirations,
    int cleared) {}
