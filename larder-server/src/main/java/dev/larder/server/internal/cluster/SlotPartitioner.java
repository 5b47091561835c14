package dev.larder.server.internal.cluster;

import dev.larder.cluster.KeyPartitioner;

/**
 * Places the keyspace's stored keys (a database byte, then the key) on the cluster's segments by
 * their Redis Cluster slot: segment = slot × segments / 16384, so each segment holds a contiguous
 * run of 16384 / segments slots and every key of a slot lives on the same owners. That is what lets
 * the server answer CLUSTER SLOTS and MOVED from the cluster's ownership. The database byte is left
 * out, so a key has one slot in every database.
 *
 * <p>Stateless and thread-safe. Needs a power-of-two segment count of at most 16384.
 */
public final class SlotPartitioner implements KeyPartitioner {

  /** The one instance. */
  public static final SlotPartitioner INSTANCE = new SlotPartitioner();

  private SlotPartitioner() {}

  @Override
  public int segmentOf(byte[] storedKey, int segments) {
    return segmentOfSlot(HashSlot.of(storedKey, 1, storedKey.length), segments);
  }

  /**
   * Returns the segment holding the slot.
   *
   * @param slot a slot
   * @param segments the segment count (a power of two, at most 16384)
   */
  public static int segmentOfSlot(int slot, int segments) {
    return (int) ((long) slot * segments / HashSlot.SLOTS);
  }

  /**
   * Returns the first slot of the segment.
   *
   * @param segment a segment
   * @param segments the segment count
   */
  public static int firstSlot(int segment, int segments) {
    return segment * (HashSlot.SLOTS / segments);
  }

  @Override
  public String id() {
    return "redis-slots";
  }
}
