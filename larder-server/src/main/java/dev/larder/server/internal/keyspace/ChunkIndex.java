package dev.larder.server.internal.keyspace;

/**
 * The index a chunked collection's head holds, as the type-independent chunk machinery ({@link
 * ChunkStore}) sees it: the collection id and the numbers of the chunks it names. Each chunked type
 * has its own index (a list's by position, a set's or hash's by key-hash range), behind this one
 * view.
 *
 * <p>An index is a mutable value owned by one thread.
 */
sealed interface ChunkIndex permits ListChunks.Index, RangeChunks.Index {
  /** Returns the collection id: unique to one chunked collection, part of its chunks' keys. */
  long id();

  /** Returns the number of chunks. */
  int chunks();

  /** Returns the chunk number at a position, 0 to {@link #chunks()} - 1. */
  int number(int i);

  /** Returns whether a chunk of that number is listed. */
  boolean contains(int number);
}
