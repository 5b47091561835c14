package dev.larder.cluster.internal;

import dev.larder.Cache;
import dev.larder.cluster.StoreJournal;
import java.time.InstantSource;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

/**
 * This member's store of encoded entries (its own and its backups), and the stored form of their
 * values. Thread-safe.
 *
 * <p>Implementation notes. With expire-after-write in an owner mode, a stored value is {@link
 * Stamp}ed with its deadline by the key's primary, and every owner and state transfer keeps that
 * stamp, so an entry expires at the same instant everywhere; {@link #live} turns a stored form back
 * into the value, or null once its deadline passed. Without expiry (or in invalidation mode, where
 * each member's store is its own and expires by itself) the stored form is the encoded value. Local
 * writes that belong to the replication protocol go through {@link #apply}, under the segment lock,
 * so that the segment's live keys ({@link SegmentOwnership}) record them. Every write to the store
 * goes through this class ({@link #apply}, {@link #putReceived}, {@link #drop}, {@link #clear}), so
 * that a {@link StoreJournal}, when there is one, hears each change after it is made.
 */
final class LocalStore implements AutoCloseable {

  /** The store; owned by this member, closed with it. */
  final Cache<byte[], byte[]> entries;

  private final SegmentOwnership segments;
  private final boolean stamps;
  private final InstantSource clock;
  private final long ttlMillis;

  /** Told of every change, or null. */
  private final StoreJournal journal;

  /** Which stored values {@link #counted} counts, or null for none. */
  private final Predicate<byte[]> countedValues;

  /** Values the store took (put, backup, state transfer) that {@link #countedValues} accepted. */
  private final LongAdder counted = new LongAdder();

  /**
   * @param stamps true if stored values carry an expiry stamp (expiry on, owners hold entries)
   * @param journal told of every change to the store, or null
   * @param countedValues which stored values to count as the store takes them, or null for none
   */
  LocalStore(
      Cache<byte[], byte[]> entries,
      SegmentOwnership segments,
      boolean stamps,
      InstantSource clock,
      long ttlMillis,
      StoreJournal journal,
      Predicate<byte[]> countedValues) {
    this.entries = entries;
    this.countedValues = countedValues;
    this.journal = journal;
    this.segments = segments;
    this.stamps = stamps;
    this.clock = clock;
    this.ttlMillis = ttlMillis;
  }

  /** Returns true if stored values carry an expiry stamp. */
  boolean stamps() {
    return stamps;
  }

  /** Returns the stored form of a key, or null. */
  byte[] stored(byte[] key) {
    return entries.getIfPresent(key);
  }

  /** The stored form of a value written now: stamped with its expiry deadline if entries expire. */
  byte[] storedForm(byte[] payload) {
    return payload == null || !stamps ? payload : Stamp.wrap(clock.millis() + ttlMillis, payload);
  }

  /** Returns the value of a stored form, or null if absent or expired. */
  byte[] live(byte[] stored) {
    if (stored == null || !stamps) {
      return stored;
    }
    return Stamp.deadline(stored) <= clock.millis() ? null : Stamp.payload(stored);
  }

  /** Puts or removes locally and marks the key live. Caller holds the segment lock. */
  void apply(int s, ByteKey key, byte[] value) {
    if (value == null) {
      entries.invalidate(key.bytes());
    } else {
      entries.put(key.bytes(), value);
      count(value);
    }
    segments.markLive(s, key);
    tell(key.bytes(), value);
    sync();
  }

  /**
   * Puts an entry received by state transfer, not waiting for the journal ({@link #sync} after a
   * batch). Caller holds the key's segment lock.
   */
  void putReceived(byte[] key, byte[] value) {
    entries.put(key, value);
    count(value);
    tell(key, value);
  }

  private void count(byte[] value) {
    if (countedValues != null && countedValues.test(value)) {
      counted.increment();
    }
  }

  /**
   * Returns how many values the store has taken, by any path (a write applied here as primary or
   * backup, state transfer), that the counting predicate accepted; only grows.
   */
  long countedStored() {
    return counted.sum();
  }

  /**
   * Drops an entry this member must not keep, not waiting for the journal ({@link #sync} after a
   * batch). Caller holds the key's segment lock.
   */
  void drop(byte[] key) {
    entries.invalidate(key);
    tell(key, null);
  }

  /** Empties the store. */
  void clear() {
    entries.invalidateAll();
    if (journal != null) {
      journal.cleared();
      journal.sync();
    }
  }

  /** Waits until the journal holds every change told so far durably (see {@link StoreJournal}). */
  void sync() {
    if (journal != null) {
      journal.sync();
    }
  }

  private void tell(byte[] key, byte[] value) {
    if (journal == null) {
      return;
    }
    if (value == null) {
      journal.removed(key);
    } else {
      journal.stored(key, value);
    }
  }

  @Override
  public void close() {
    entries.close();
  }
}
