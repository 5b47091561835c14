package dev.larder.bench.hitratio;

/** A cache replayed one request at a time. Single-threaded. */
interface OnlineCache extends AutoCloseable {

  /**
   * Serves one request: a lookup and, on a miss, an insertion.
   *
   * @return true on a hit
   */
  boolean request(long key, int size);

  /** Returns the sum of the sizes of the objects held now, or -1 if not known. */
  default long heldBytes() {
    return -1;
  }

  @Override
  default void close() {}

  /** Replays a whole trace through {@code cache}, counting hits, and closes the cache. */
  static Outcome replay(OnlineCache cache, Trace trace) {
    long hits = 0;
    long hitBytes = 0;
    long requestBytes = 0;
    long[] keys = trace.keys();
    int[] sizes = trace.weights();
    long held;
    try (cache) {
      for (int i = 0; i < keys.length; i++) {
        requestBytes += sizes[i];
        if (cache.request(keys[i], sizes[i])) {
          hits++;
          hitBytes += sizes[i];
        }
      }
      held = cache.heldBytes();
    }
    return new Outcome(keys.length, hits, requestBytes, hitBytes, held);
  }
}
