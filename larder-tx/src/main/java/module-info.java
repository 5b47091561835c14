/**
 * Larder transactions: optimistic, multi-version transactions over one or more caches, with
 * serializable or snapshot isolation, made durable by {@code dev.larder.wal}.
 *
 * <p>Only {@code dev.larder.tx} is exported to everyone. larder-cluster's clustered store runs the
 * same {@code TxStore} over its own engine, through {@code dev.larder.tx.spi} (and the key and
 * snapshot types of {@code dev.larder.tx.internal}), exported to it alone.
 */
@SuppressWarnings("module") // dev.larder.cluster is built after this module
module dev.larder.tx {
  requires transitive dev.larder.core;
  requires transitive dev.larder.wal;

  exports dev.larder.tx;
  exports dev.larder.tx.spi to
      dev.larder.cluster;
  exports dev.larder.tx.internal to
      dev.larder.cluster;
}
