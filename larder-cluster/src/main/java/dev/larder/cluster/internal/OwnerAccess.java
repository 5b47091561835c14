package dev.larder.cluster.internal;

import java.util.concurrent.CompletableFuture;

/**
 * Single-key access in the owner modes (replicated, distributed): reads by {@link Reads}, writes
 * through the key's primary by {@link Writes}.
 *
 * @param reads reads, with the near cache
 * @param writes writes, executed on the key's primary
 */
record OwnerAccess(Reads reads, Writes writes) implements KeyAccess {

  @Override
  public byte[] get(byte[] key) {
    return reads.get(key);
  }

  @Override
  public byte[] write(Op op, byte[] key, byte[] value, byte[] expected, boolean mayReturnEarly) {
    return writes.write(op, key, value, expected, mayReturnEarly);
  }

  @Override
  public CompletableFuture<Void> putAsync(byte[] key, byte[] value) {
    return writes.putAsync(key, value);
  }
}
