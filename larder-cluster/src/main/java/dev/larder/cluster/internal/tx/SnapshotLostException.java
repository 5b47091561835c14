package dev.larder.cluster.internal.tx;

import java.io.Serial;

/**
 * A read at a snapshot whose versions this member no longer keeps: it was taken before this member
 * adopted the cluster's state (adoption keeps only each key's newest version), or, for a reader on
 * another member, its versions fell below this member's horizon.
 */
final class SnapshotLostException extends RuntimeException {

  @Serial private static final long serialVersionUID = 1L;

  SnapshotLostException(long snapshot) {
    super(
        "snapshot "
            + snapshot
            + " needs versions this member no longer keeps (it adopted the cluster's state since,"
            + " or a reader elsewhere is older than its horizon): the transaction cannot read at"
            + " it");
  }
}
