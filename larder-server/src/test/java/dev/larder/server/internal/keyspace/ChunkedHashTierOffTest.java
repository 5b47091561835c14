package dev.larder.server.internal.keyspace;

/** {@link ChunkedHashTest} with the open-collections tier off: the store's form alone. */
class ChunkedHashTierOffTest extends ChunkedHashTest {
  @Override
  Keyspace keyspace(long maxMemory) {
    Keyspace ks = super.keyspace(maxMemory);
    ks.openCollections(false);
    return ks;
  }
}
