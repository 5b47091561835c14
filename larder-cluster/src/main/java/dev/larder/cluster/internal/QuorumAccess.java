package dev.larder.cluster.internal;

import dev.larder.cluster.ClusterDegradedException;
import java.util.concurrent.CompletableFuture;

/**
 * Single-key access under {@link dev.larder.cluster.PartitionHandling#QUORUM}: refuses writes (and,
 * unless minority reads are allowed, reads) while this member does not see a majority of the stable
 * members, then hands over to the mode's own access. The primaries and backups check again on their
 * side ({@link Writes}, {@link Backups}), since the members of one view can disagree for a moment
 * (see {@link Quorum}).
 *
 * @param quorum this member's availability
 * @param inner the mode's access
 */
record QuorumAccess(Quorum quorum, KeyAccess inner) implements KeyAccess {

  /**
   * @throws ClusterDegradedException if reads are refused on a minority side
   */
  @Override
  public byte[] get(byte[] key) {
    quorum.checkRead();
    return inner.get(key);
  }

  /**
   * @throws ClusterDegradedException if this member is on a minority side
   */
  @Override
  public byte[] write(Op op, byte[] key, byte[] value, byte[] expected, boolean mayReturnEarly) {
    quorum.checkWrite();
    return inner.write(op, key, value, expected, mayReturnEarly);
  }

  /**
   * @throws ClusterDegradedException if this member is on a minority side
   */
  @Override
  public CompletableFuture<Void> putAsync(byte[] key, byte[] value) {
    quorum.checkWrite();
    return inner.putAsync(key, value);
  }
}
