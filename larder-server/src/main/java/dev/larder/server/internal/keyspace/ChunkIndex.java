package dev.larder.server.internal.keyspace;

import java.util.function.IntConsumer;
import java.util.function.IntFunction;

/**
 * The index a chunked collection's head holds, as the type-independent chunk machinery ({@link
 * ChunkStore}) sees it: the collection id and a walk over the chunk entries it names. Each chunked
 * type has its own index (a list's by position, a set's or hash's by key-hash range), behind this
 * one view.
 *
 * <p>A head need not list its chunks itself: a large list's head folds its middle chunks into index
 * pages, and a large set's or hash's lists its chunks in index pages once it has more than a few,
 * the pages being chunk entries of their own ({@link ListChunks}, {@link RangeChunks}). So the walk
 * takes a reader of stored chunk payloads, and says when a page it needed was not there.
 *
 * <p>An index is a mutable value owned by one thread.
 */
sealed interface ChunkIndex permits ListChunks.Index, RangeChunks.Index, ZSetChunks.Index {
  /** Returns the collection id: unique to one chunked collection, part of its chunks' keys. */
  long id();

  /**
   * Calls {@code visit} with the number of every chunk entry the head names: its chunks, and its
   * index pages and the chunks each lists. A page's chunks come before the page itself; a missing
   * page's chunks are not visited (the page's own number still is).
   *
   * @param read a chunk number's stored payload (of this collection's chunk under that number), or
   *     null if the store does not hold it; called for index pages only
   * @param visit given each number
   * @return false if an index page was missing (the walk named less than the head does), else true
   * @throws IllegalArgumentException if a page read is malformed
   */
  boolean forEachNumber(IntFunction<byte[]> read, IntConsumer visit);
}
