/**
 * Larder transactions: optimistic, multi-version transactions over one or more caches, with
 * serializable or snapshot isolation, made durable by {@code dev.larder.wal}.
 *
 * <p>Only {@code dev.larder.tx} is exported.
 */
module dev.larder.tx {
  requires transitive dev.larder.core;
  requires transitive dev.larder.wal;

  exports dev.larder.tx;
}
