package dev.larder.internal.count;

/**
 * A cache's count of its keys by the first byte of their encoded form, kept by the byte store as
 * entries come and go, so that a caller who partitions its keys by a leading byte (the server's
 * databases) can size each part without walking the cache; and among them, of those whose encoded
 * value's first byte carries a mark (the server's values with an expiry). Implemented by the byte
 * store's cache (what {@code Cache.builder(...).build()} returns); not part of the public {@code
 * Cache} API. This package is exported only to the server.
 *
 * <p>Thread-safe. A count is exact at quiescence; while writers run it is a sum over the store's
 * segments, each read as it stood at one moment. Keys expired but not yet removed are counted, as
 * {@code estimatedSize()} counts them.
 */
public interface FirstByteCounts {

  /**
   * Makes the cache count its keys by first byte from now on. Only on a cache not used yet (no read
   * or write since it was built): the count starts from the empty cache. Costs each insert, removal
   * and replacement of an entry a read of its first key byte and value byte under the segment's
   * lock, and 2 KiB a segment.
   *
   * @param valueMark bits of an encoded value's first byte: a value with any of them set is marked
   *     ({@link #markedKeysStartingWith}); 0 marks none
   * @throws IllegalArgumentException if {@code valueMark} is outside 0 to 255
   * @throws IllegalStateException if the cache was used or closed already
   */
  void countKeysByFirstByte(int valueMark);

  /** Returns whether {@link #countKeysByFirstByte} was called. */
  boolean countsKeysByFirstByte();

  /**
   * Returns how many keys the cache holds whose encoded form starts with the byte {@code first}.
   *
   * @param first the byte's unsigned value, 0 to 255
   * @throws IllegalArgumentException if {@code first} is outside 0 to 255
   * @throws IllegalStateException if the cache does not count them, or is closed
   */
  long keysStartingWith(int first);

  /**
   * Returns how many of the keys {@link #keysStartingWith} counts have a marked value.
   *
   * @param first the byte's unsigned value, 0 to 255
   * @throws IllegalArgumentException if {@code first} is outside 0 to 255
   * @throws IllegalStateException if the cache does not count them, or is closed
   */
  long markedKeysStartingWith(int first);
}
