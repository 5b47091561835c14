package dev.larder.server.internal.keyspace;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A few index pages of chunked collections kept decoded, so that the next command on the same
 * collection neither reads nor decodes the page again: a large set's, hash's or sorted set's change
 * reads the page that lists its chunk, and commands on one large key come one after another (a set
 * of 1,000 chunks has 8 pages; a sorted set of as many chunks, 16 a side).
 *
 * <h2>Implementation notes</h2>
 *
 * <p>An index page is never overwritten: a change that alters a page writes it under a fresh number
 * and removes the old one once its head is in ({@link RangeBody}, {@link ZSetSide}), and a
 * collection's numbers only grow. So a page's stored key (head key, collection id, number) names
 * one content for as long as it exists, and a decoded page kept under it is never stale: it is kept
 * when read from the store, and when a change whose head lists it went in (never before: a change
 * that loses its head's compare-and-set takes its pages back). A page evicted from the store may
 * still be found here; its collection is then being evicted whole ({@link ChunkStore}), which this
 * changes nothing of. Chunks are not kept: they are overwritten in place, and a change reaches
 * chunks at random where it reaches the same few pages.
 *
 * <p>Direct-mapped: {@link #SLOTS} slots, a page's slot by its collection id and number, a newer
 * page replacing whatever held its slot. So it holds at most {@link #SLOTS} pages (each about 1.5
 * KiB of payload, a few KiB decoded) outside the store's byte bound, whatever the keyspace holds.
 *
 * <p>Thread-safe: a slot holds an immutable object, published through an atomic array. The decoded
 * pages it holds must be treated as immutable by everyone who reads them.
 *
 * @param <T> a page's decoded form
 */
final class DecodedPages<T> {
  /** The slots: a power of two. */
  static final int SLOTS = 64;

  private static final class Slot<T> {
    final byte[] headKey;
    final long id;
    final int number;
    final T page;

    Slot(byte[] headKey, long id, int number, T page) {
      this.headKey = headKey;
      this.id = id;
      this.number = number;
      this.page = page;
    }
  }

  private final AtomicReferenceArray<Slot<T>> slots = new AtomicReferenceArray<>(SLOTS);

  /**
   * Returns the decoded page kept for that page, or null.
   *
   * @param headKey the collection's stored key
   * @param id its collection id
   * @param number the page's number
   */
  T get(byte[] headKey, long id, int number) {
    Slot<T> s = slots.get(slotOf(id, number));
    return s != null && s.id == id && s.number == number && Arrays.equals(s.headKey, headKey)
        ? s.page
        : null;
  }

  /**
   * Keeps a page's decoded form: one read from the store, or one a change wrote whose head went in.
   *
   * @param headKey the collection's stored key (copied)
   * @param id its collection id
   * @param number the page's number
   * @param page its decoded form, never changed afterwards
   */
  void put(byte[] headKey, long id, int number, T page) {
    slots.set(slotOf(id, number), new Slot<>(headKey.clone(), id, number, page));
  }

  private static int slotOf(long id, int number) {
    long h = (id * 0x9E3779B97F4A7C15L) ^ (number * 0xC2B2AE3D27D4EB4FL);
    return (int) (h ^ (h >>> 29)) & (SLOTS - 1);
  }
}
