package dev.larder.client.internal;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Invalidation by stamps: what lets the near cache drop every entry of a Redis key without an index
 * from Redis keys to entries.
 *
 * <p>Implementation notes. A fixed table of counters; a Redis key hashes to one slot. Invalidating
 * the key increments its slot; a flush increments one global epoch. A key's stamp is its slot's
 * counter plus the epoch: both only grow, so any invalidation of the key (or of another key of the
 * same slot) or any flush after a stamp was read changes the stamp. An entry stores the stamps of
 * its Redis keys as they were read <em>before</em> its command was sent, and is served only while
 * every stamp is unchanged. So an invalidation that arrives while the reply is on its way, or is
 * processed by another thread between the reply and the store, still retires the entry: Jedis's own
 * cache, which deletes what is present when the message is processed, would keep such an entry.
 *
 * <p>A slot shared by two keys costs extra misses, never a stale read: an invalidation of one
 * retires the other's entries too. Stamps are compared modulo 2^32, so an entry could be served
 * stale only after exactly 2^32 increments of its slot and the epoch while it sat unread.
 *
 * <p>Memory: four bytes a slot, counted by the cache in its bound. Thread-safe: the counters are
 * atomics; readers and writers take no lock.
 */
public final class InvalidationStamps {
  private final AtomicIntegerArray slots;
  private final AtomicInteger epoch = new AtomicInteger();
  private final int mask;

  /**
   * Creates a table of {@code slotCount} counters.
   *
   * @param slotCount a power of two, at least 1
   */
  public InvalidationStamps(int slotCount) {
    if (slotCount < 1 || Integer.bitCount(slotCount) != 1) {
      throw new IllegalArgumentException("slotCount must be a power of two: " + slotCount);
    }
    this.slots = new AtomicIntegerArray(slotCount);
    this.mask = slotCount - 1;
  }

  /** Returns the bytes the table holds (its counters), for the cache's bound. */
  public long bytes() {
    return 4L * slots.length() + 64;
  }

  /** Returns the current stamp of a Redis key. */
  public int stamp(byte[] redisKey) {
    return slots.get(slot(redisKey)) + epoch.get();
  }

  /** Retires every entry that reads {@code redisKey}. */
  public void invalidate(byte[] redisKey) {
    slots.incrementAndGet(slot(redisKey));
  }

  /** Retires every entry. */
  public void invalidateAll() {
    epoch.incrementAndGet();
  }

  private int slot(byte[] redisKey) {
    int h = 0x9747b28c;
    for (byte b : redisKey) {
      h = 31 * h + b;
    }
    // murmur3's finaliser: the low bits that pick the slot depend on every byte.
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    return h & mask;
  }
}
