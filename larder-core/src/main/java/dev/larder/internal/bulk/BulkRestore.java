package dev.larder.internal.bulk;

/**
 * A cache's bulk path for a restore from a snapshot or a log: entries handed over as the bytes its
 * codecs encode them to, stored as puts of each would leave them, without a key or value object per
 * entry. Implemented by the byte store's cache (what {@code Cache.builder(...).build()} returns);
 * not part of the public {@code Cache} API, whose implementations elsewhere (a clustered cache, an
 * adapter) have no encoded form to take. This package is exported only to the server, which loads
 * its checkpoints through it; a caller holding another cache stores the entries one by one.
 *
 * <p>Thread-safe: restores may run on several threads at once, and beside any other call on the
 * cache.
 */
public interface BulkRestore {

  /**
   * Stores entries given as their encoded bytes, in order, as a restore from a snapshot or a log
   * does: the result is that of a {@code Cache.put} of each, but no statistics are recorded for
   * them (evictions they cause excepted) and keys new to the cache are stored in batches, each
   * segment's share under one hold of its lock. A key already present, or an entry that needs room
   * made by evicting, is stored as {@code put} stores it, and removal listeners hear of what such
   * puts replace or evict. Readers may see some entries before the others, as with {@code
   * Cache.putAll}.
   *
   * @param entries the entries, each key and value encoded by this cache's codecs; read, not kept,
   *     not null
   * @throws IllegalArgumentException if an entry can never fit the bound (the entries before it are
   *     stored)
   * @throws IllegalStateException if the cache is closed
   */
  void restore(EncodedEntries entries);
}
