package dev.larder.server.internal.keyspace;

/** {@link ChunkedSetTest} with the open-collections tier off: the store's form alone. */
class ChunkedSetTierOffTest extends ChunkedSetTest {
  @Override
  Keyspace keyspace(long maxMemory) {
    Keyspace ks = super.keyspace(maxMemory);
    ks.openCollections(false);
    return ks;
  }
}
