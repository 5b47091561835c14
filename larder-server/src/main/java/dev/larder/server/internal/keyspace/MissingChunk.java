package dev.larder.server.internal.keyspace;

/**
 * Thrown when a chunk or index page that a chunked collection's head names is missing from the
 * store: the collection is being evicted. {@link ChunkStore}'s read and edit loops catch it, remove
 * the collection and run again, so a collection is never read with a hole. Carries no stack trace:
 * it is control flow.
 */
final class MissingChunk extends RuntimeException {
  private static final long serialVersionUID = 1L;

  MissingChunk() {
    super("a chunk of the collection is missing", null, false, false);
  }
}
