package dev.larder.server.internal.keyspace;

/** {@link ChunkedZSetTest} with the open-collections tier off: the store's form alone. */
class ChunkedZSetTierOffTest extends ChunkedZSetTest {
  @Override
  Keyspace keyspace(long maxMemory) {
    Keyspace ks = super.keyspace(maxMemory);
    ks.openCollections(false);
    return ks;
  }
}
