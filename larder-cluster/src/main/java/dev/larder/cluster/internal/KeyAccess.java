package dev.larder.cluster.internal;

import dev.larder.cluster.ClusterTimeoutException;
import java.util.concurrent.CompletableFuture;

/**
 * How a member serves reads and writes of single keys: one implementation per family of cluster
 * modes ({@link OwnerAccess} for replicated and distributed caches, whose keys have owners; {@link
 * InvalidationAccess} for invalidation caches, whose members keep their own entries). A member
 * picks one when it starts, wrapped in {@link QuorumAccess} under quorum partition handling.
 * Implementations are thread-safe.
 */
sealed interface KeyAccess permits OwnerAccess, InvalidationAccess, QuorumAccess {

  /**
   * Returns the encoded value, or null if absent.
   *
   * @param key the encoded key
   * @throws ClusterTimeoutException if the members that must answer did not within the timeout
   */
  byte[] get(byte[] key);

  /**
   * Returns the previous value, or {@link Outcome#TRUE}/{@link Outcome#FALSE} for conditional
   * writes; null when an async write returned early.
   *
   * @param op the write
   * @param key the encoded key
   * @param value the encoded new value (null for removals)
   * @param expected the encoded expected value of REPLACE_IF and REMOVE_IF
   * @param mayReturnEarly true if the write returns nothing, so ASYNC may return at once
   * @throws ClusterTimeoutException if the members that must take part did not in time
   */
  byte[] write(Op op, byte[] key, byte[] value, byte[] expected, boolean mayReturnEarly);

  /**
   * A put whose acknowledgement may come later than its return: by default the put runs as {@link
   * #write} does and the result is already complete; {@link OwnerAccess} returns before the backups
   * acknowledged a write this member applied as primary (see {@link Writes#putAsync}).
   *
   * @param key the encoded key
   * @param value the encoded value
   * @return completes once the write is acknowledged, or exceptionally as {@link #write} throws
   */
  default CompletableFuture<Void> putAsync(byte[] key, byte[] value) {
    write(Op.PUT, key, value, null, true);
    return CompletableFuture.completedFuture(null);
  }
}
