package dev.larder.cluster.internal.tx;

import java.io.Serial;

/**
 * A read at a snapshot taken before this member adopted the cluster's state: adoption keeps only
 * each key's newest version, so what the key held at that snapshot is no longer known here.
 */
final class SnapshotLostException extends RuntimeException {

  @Serial private static final long serialVersionUID = 1L;

  SnapshotLostException(long snapshot) {
    super(
        "snapshot "
            + snapshot
            + " was taken before this member adopted the cluster's state,"
            + " which keeps only each key's newest version: the transaction cannot read at it");
  }
}
