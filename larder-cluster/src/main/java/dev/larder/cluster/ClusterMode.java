package dev.larder.cluster;

/** How a clustered cache spreads its entries over the members. */
public enum ClusterMode {
  /** Every member holds every entry; reads are local. */
  REPLICATED,
  /**
   * Each key is held by {@code owners} members chosen by consistent hashing over a fixed number of
   * segments: a primary and {@code owners - 1} backups. A read on a non-owner asks an owner.
   */
  DISTRIBUTED,
  /**
   * Each member keeps its own local entries; a write on one member removes the key on all the
   * others. For caches in front of a shared database.
   */
  INVALIDATION
}
