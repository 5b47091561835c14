package dev.larder.tx;

/**
 * The work of one transaction, for {@link TxStore#inTransaction}: may run more than once, so it
 * should have no effects outside the transaction (or only ones safe to repeat).
 *
 * @param <R> result type
 */
@FunctionalInterface
public interface TransactionBody<R> {

  /**
   * Returns the result.
   *
   * @param tx the transaction, active; commit it, or let the helper commit it on return
   */
  R run(Transaction tx);
}
