package dev.larder.server.internal.keyspace;

/** {@link ChunkedListTest} with the open-collections tier off: the store's form alone. */
class ChunkedListTierOffTest extends ChunkedListTest {
  @Override
  Keyspace keyspace(long maxMemory) {
    Keyspace ks = super.keyspace(maxMemory);
    ks.openCollections(false);
    return ks;
  }
}
