package dev.larder.server.internal.keyspace;

/**
 * Reads the payloads of one chunked collection's chunks and index pages from the store, by number
 * ({@link ChunkStore#loader}): what a collection being read or changed ({@link ListBody}, {@link
 * RangeBody}) reads its chunks with, only when a command reaches them.
 */
@FunctionalInterface
interface ChunkLoader {
  /**
   * Returns the payload of the collection's chunk or index page of that number, or null if the
   * store does not hold it (the collection is being evicted: see {@link MissingChunk}).
   *
   * @param number a chunk or page number
   */
  byte[] load(int number);
}
