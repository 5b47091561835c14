package dev.larder.server.internal.keyspace;

/**
 * Stores the chunks and index pages a chunked collection's write-back makes ({@link
 * ListBody#write}, {@link RangeBody#write}), by number, as entries under the collection's chunk
 * keys.
 */
@FunctionalInterface
interface ChunkWriter {
  /**
   * Stores a chunk's or an index page's payload.
   *
   * @param number its number
   * @param payload its payload
   * @param fresh whether the number is new (not one the collection held before the command): such
   *     an entry is taken back if the command's head is not the one that goes in
   */
  void put(int number, byte[] payload, boolean fresh);
}
