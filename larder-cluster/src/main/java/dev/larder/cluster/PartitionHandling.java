package dev.larder.cluster;

/**
 * What a member does when it is cut off from part of its cluster (a network partition, or members
 * failing faster than they are replaced). Set with {@link ClusterConfig.Builder#partitionHandling};
 * the rules are in docs/design/cluster.md, "Partitions".
 */
public enum PartitionHandling {

  /**
   * A member serves writes only while its view holds a majority of the cluster's stable members
   * (the members, by name, of the largest view it was available in); otherwise it refuses them with
   * {@link ClusterDegradedException} until a merge gives it a majority again, and reads too unless
   * {@link ClusterConfig#minorityReads()}. At most one side of a partition has a majority, so at
   * most one side acknowledges writes, and that side's entries win the merge: no acknowledged write
   * is lost to a partition. The default for synchronous caches.
   */
  QUORUM,

  /**
   * Every side of a partition keeps serving reads and writes. At the merge the larger side (on a
   * tie, the side holding the merged view's coordinator) keeps its entries and the other sides drop
   * theirs: writes acknowledged on a losing side during the partition are lost. The default for
   * asynchronous caches, which may lose writes anyway.
   */
  ALLOW_ALL
}
