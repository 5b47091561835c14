package dev.larder.cluster;

/**
 * Which segment an encoded key belongs to, when the application must know (a server that maps its
 * protocol's own key slots onto the cluster's segments). Without one, a key's segment is a 64-bit
 * hash of its encoded bytes. Every member of a cluster must use the same partitioner ({@link #id()}
 * is compared at join). Implementations must be deterministic, thread-safe and quick (every
 * operation calls it).
 */
public interface KeyPartitioner {

  /**
   * Returns the key's segment, in [0, segments).
   *
   * @param encodedKey the key's bytes, as its codec wrote them; not to be modified
   * @param segments the cluster's segment count
   */
  int segmentOf(byte[] encodedKey, int segments);

  /** Returns a name for this partitioning, equal on every member that partitions alike. */
  String id();
}
