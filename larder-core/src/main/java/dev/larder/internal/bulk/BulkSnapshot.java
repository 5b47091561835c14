package dev.larder.internal.bulk;

/**
 * A cache's bulk path for a snapshot of its contents (a server's checkpoint): every live entry
 * handed over as the bytes its codecs encoded, without a key or value object per entry and without
 * holding up the cache's writers while the entries are read. Implemented by the byte store's cache
 * (what {@code Cache.builder(...).build()} returns); not part of the public {@code Cache} API. This
 * package is exported only to the server; a caller holding another cache walks its map view.
 *
 * <p>Thread-safe: a walk may run beside any other call on the cache, and several walks at once.
 */
public interface BulkSnapshot {

  /**
   * Hands every live entry to {@code visitor}, on the calling thread, in no particular order,
   * holding no lock of the cache while the visitor runs. Weakly consistent, with a guarantee a
   * checkpoint followed by its log's replay relies on: every key present throughout the walk is
   * handed over, with a value it held at some moment during the walk; a key added or removed
   * meanwhile may or may not be; a key may be handed over more than once (each time with a value it
   * held during the walk: after its segment's index was rebuilt or the segment split under the
   * walk, which then starts that segment again). Expired entries are left out.
   *
   * @param visitor receives each entry, not null; what it throws ends the walk and is thrown here
   * @throws IllegalStateException if the cache is closed
   */
  void forEachEncoded(EncodedEntryVisitor visitor);

  /** Receives one entry of a {@link BulkSnapshot} walk. */
  @FunctionalInterface
  interface EncodedEntryVisitor {
    /**
     * Receives one entry's encoded key and value, lying next to each other in an array that the
     * walk reuses for the next entry (the visitor copies what it keeps).
     *
     * @param bytes holds the key from index 0, then the value right after it
     * @param keyLength the key's length
     * @param valueLength the value's length
     */
    void entry(byte[] bytes, int keyLength, int valueLength);
  }
}
