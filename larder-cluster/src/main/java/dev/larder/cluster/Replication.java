package dev.larder.cluster;

/** When a write returns. */
public enum Replication {
  /**
   * A write returns once every owner (every other member, for invalidation) applied it, or throws
   * {@link ClusterTimeoutException} naming the members that did not answer in time.
   */
  SYNC,
  /**
   * {@code put}, {@code putAll} and {@code invalidate} return at once; writes to one key are still
   * applied in one order on every owner (they go through the key's primary). Operations that return
   * a result (conditional writes, {@code remove}, {@code compute}) run as in {@link #SYNC}.
   */
  ASYNC
}
