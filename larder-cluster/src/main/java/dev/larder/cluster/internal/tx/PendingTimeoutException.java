package dev.larder.cluster.internal.tx;

import java.io.Serial;

/**
 * A read waited until its deadline for a pending transaction that may commit within its snapshot:
 * the transaction's outcome is not known here yet (a reconfiguration will decide it).
 */
final class PendingTimeoutException extends RuntimeException {

  @Serial private static final long serialVersionUID = 1L;

  PendingTimeoutException(TxId txid) {
    super(
        "a read waited for transaction "
            + txid
            + ", prepared on this member, whose outcome is"
            + " not known yet");
  }
}
