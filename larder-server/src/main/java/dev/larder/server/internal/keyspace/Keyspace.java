package dev.larder.server.internal.keyspace;

import dev.larder.Cache;
import dev.larder.RemovalCause;
import dev.larder.codec.Codecs;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The server's data: 16 numbered databases of byte-string keys, held in one byte-bounded Larder
 * cache, with per-key expiry, value types and versions.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>A stored key is the database number (one byte) followed by the key's bytes; a stored value
 * is {@link ValueLayout}'s encoding. Every database shares the one memory bound, and Larder's
 * eviction policy chooses victims across all of them (Redis's {@code allkeys-lfu} in spirit).
 *
 * <p>Expiry is per key and absolute, kept in the value: a read that finds an expired value
 * treats it as absent and removes it, conditionally on the bytes it read, so a concurrent
 * rewrite is not lost. {@link #sweepExpired} walks the keys a slice at a time to reclaim keys
 * nobody reads.
 *
 * <p>Every write goes through the cache's atomic compute and gets a fresh version from one
 * counter, so a version names one write of one key: memcached's CAS unique and the witness
 * WATCH compares. Single-key commands are atomic by themselves; commands that touch several
 * keys, and transactions, take {@link #exclusive()} while every other command holds
 * {@link #shared()}, so nothing interleaves with them.
 *
 * <p>Thread-safe.
 */
public final class Keyspace implements AutoCloseable {
  /** The number of databases (SELECT 0 to 15). */
  public static final int DATABASES = 16;

  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  /** Gives each write its version: a counter, or a clustered server's {@code Versions}. */
  private final LongSupplier versions;
  /**
   * Where the expiry sweep walks: the whole cache, or (clustered) the entries this member is
   * primary of.
   */
  private final Supplier<Iterator<Map.Entry<byte[], byte[]>>> sweepWalk;
  /** Whether the cache was given (a clustered one): it is not rebuilt by {@link #resize}. */
  private final boolean given;
  private final LongSupplier clock;
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder expired = new LongAdder();
  private final LongAdder evicted = new LongAdder();
  /** Values with an expiry stored so far, counted after each such write (see sweepExpired). */
  private final LongAdder expiringWrites = new LongAdder();
  private volatile Cache<byte[], byte[]> cache;
  private volatile long maxMemory;
  // The sweep's walk; guarded by this (sweepExpired is synchronized).
  private Iterator<Map.Entry<byte[], byte[]>> sweep;
  private long passStartWrites;
  private boolean passSawExpiring;
  /** expiringWrites' count when a whole pass found no key with an expiry; -1 while sweeping. */
  private long quietAt;

  /**
   * @param maxMemory the byte bound of the whole keyspace (at least 64 KiB)
   * @param clock the current Unix time in milliseconds
   */
  public Keyspace(long maxMemory, LongSupplier clock) {
    this.clock = clock;
    this.maxMemory = maxMemory;
    this.cache = build(maxMemory);
    AtomicLong counter = new AtomicLong();
    this.versions = counter::incrementAndGet;
    this.sweepWalk = () -> cache.asMap().entrySet().iterator();
    this.given = false;
  }

  /**
   * A keyspace over a cache built elsewhere: a clustered server's, whose entries live on several
   * members. The stored keys and values are the same as a standalone keyspace's. The cache's
   * evictions are not counted, its bound cannot be changed ({@link #resize} refuses), and a
   * failed removal of an expired value found by a read is left to the sweep.
   *
   * @param cache the cache of stored keys and values; closed with the keyspace
   * @param maxMemory the cache's byte bound (what INFO and noeviction report)
   * @param clock the current Unix time in milliseconds
   * @param versions gives each write a version unique to that write of that key
   * @param sweepWalk a new walk, for each pass of the expiry sweep, of the entries this keyspace
   *     must sweep
   */
  public Keyspace(Cache<byte[], byte[]> cache, long maxMemory, LongSupplier clock,
      LongSupplier versions, Supplier<Iterator<Map.Entry<byte[], byte[]>>> sweepWalk) {
    this.cache = cache;
    this.maxMemory = maxMemory;
    this.clock = clock;
    this.versions = versions;
    this.sweepWalk = sweepWalk;
    this.given = true;
  }

  private Cache<byte[], byte[]> build(long bytes) {
    return Cache.builder(Codecs.bytes(), Codecs.bytes())
        .maximumMemory(bytes)
        // The listener only counts evictions: run it on the writing thread. On the default
        // executor (the common pool) every overwrite of a key handed a task to another thread
        // and woke it, about a seventh of the server's CPU under redis-benchmark SET. An
        // eviction listener, not a removal listener: with the latter the store copied out the
        // old key and value of every overwrite for a notice this listener ignores.
        .executor(Runnable::run)
        .evictionListener(
            (k, v, cause) -> {
              if (cause == RemovalCause.SIZE) {
                evicted.increment();
              }
            })
        .build();
  }

  /** @return the lock every command but the exclusive ones holds while it runs */
  public Lock shared() {
    return lock.readLock();
  }

  /** @return the lock multi-key commands and EXEC hold, excluding every other command */
  public Lock exclusive() {
    return lock.writeLock();
  }

  /** @return the current Unix time in milliseconds, as expiry sees it */
  public long now() {
    return clock.getAsLong();
  }

  /**
   * Reads a key, counting a hit or a miss.
   *
   * @param db the database
   * @param key the key
   * @return its live value, or null
   */
  public StoredValue get(int db, byte[] key) {
    StoredValue value = peek(db, key);
    (value == null ? misses : hits).increment();
    return value;
  }

  /**
   * Reads a key's stored bytes ({@link ValueLayout}'s encoding), counting a hit or a miss: for
   * writing a value out without decoding it into a {@link StoredValue}.
   *
   * @param db the database
   * @param key the key
   * @return the live value's stored bytes (the caller's own array), or null
   */
  public byte[] getStored(int db, byte[] key) {
    byte[] bytes = liveOrRemove(storedKey(db, key));
    (bytes == null ? misses : hits).increment();
    return bytes;
  }

  /**
   * Stores a string with no expiry and no flags unconditionally (a plain SET), as
   * {@link #put} does, without building a {@link StoredValue}.
   *
   * @param db the database
   * @param key the key
   * @param payload the string's bytes
   */
  public void putString(int db, byte[] key, byte[] payload) {
    cache.put(storedKey(db, key), ValueLayout.encodeString(versions.getAsLong(), payload));
  }

  /**
   * Reads a key without counting it.
   *
   * @param db the database
   * @param key the key
   * @return its live value, or null
   */
  public StoredValue peek(int db, byte[] key) {
    byte[] bytes = liveOrRemove(storedKey(db, key));
    return bytes == null ? null : ValueLayout.decode(bytes);
  }

  /**
   * Atomically replaces a key's value with {@code fn}'s result. The function sees the live
   * value (null when absent or expired) and returns the new one, null to delete, or the very
   * object it was given to leave the key as it is. It may run more than once, so it must be free
   * of side effects.
   *
   * @param db the database
   * @param key the key
   * @param fn the change
   * @return the value before and after, as seen by the run that took effect
   */
  public Change update(int db, byte[] key, UnaryOperator<StoredValue> fn) {
    return update(db, key, fn, true);
  }

  /**
   * As {@link #update(int, byte[], UnaryOperator)}, but a changed value keeps the version
   * {@code fn} gave it when {@code newVersion} is false: memcached's {@code touch} and
   * {@code gat} change an item's expiry and keep its CAS unique, as memcached does.
   *
   * @param db the database
   * @param key the key
   * @param fn the change
   * @param newVersion whether a changed value gets a new version
   * @return the value before and after, as seen by the run that took effect
   */
  public Change update(int db, byte[] key, UnaryOperator<StoredValue> fn, boolean newVersion) {
    Change[] result = new Change[1];
    long now = now();
    cache.compute(
        storedKey(db, key),
        (k, old) -> {
          StoredValue before = old == null ? null : ValueLayout.decode(old);
          if (before != null && before.expiredAt(now)) {
            before = null;
          }
          StoredValue after = fn.apply(before);
          if (after == before) {
            result[0] = new Change(before, before);
            return before == null ? null : old;
          }
          if (after != null && newVersion) {
            after = after.withVersion(versions.getAsLong());
          }
          result[0] = new Change(before, after);
          return after == null ? null : ValueLayout.encode(after);
        });
    Change change = result[0];
    if (change.after() != null && change.after() != change.before()
        && change.after().volatileKey()) {
      expiringWrites.increment();
    }
    return change;
  }

  /**
   * Stores a value unconditionally.
   *
   * @param db the database
   * @param key the key
   * @param value the value (its version is replaced by a fresh one)
   * @return the stored value
   */
  public StoredValue put(int db, byte[] key, StoredValue value) {
    StoredValue versioned = value.withVersion(versions.getAsLong());
    cache.put(storedKey(db, key), ValueLayout.encode(versioned));
    if (versioned.volatileKey()) {
      expiringWrites.increment();
    }
    return versioned;
  }

  /**
   * @param db the database
   * @param key the key
   * @return whether a live value was removed
   */
  public boolean delete(int db, byte[] key) {
    byte[] old = cache.remove(storedKey(db, key));
    return old != null && !expired(old);
  }

  /**
   * Calls {@code action} for every live key of a database, in no particular order. Keys written
   * during the walk may or may not be seen.
   *
   * @param db the database
   * @param action given each key (a fresh array) and its value
   */
  public void forEach(int db, BiConsumer<byte[], StoredValue> action) {
    long now = now();
    for (Map.Entry<byte[], byte[]> e : cache.asMap().entrySet()) {
      byte[] k = e.getKey();
      if (k[0] == db) {
        StoredValue v = ValueLayout.decode(e.getValue());
        if (!v.expiredAt(now)) {
          action.accept(Arrays.copyOfRange(k, 1, k.length), v);
        }
      }
    }
  }

  /**
   * @return live keys and keys with an expiry, per database: {@code [db][0]} keys,
   *     {@code [db][1]} expiring
   */
  public long[][] counts() {
    long[][] counts = new long[DATABASES][2];
    long now = now();
    for (Map.Entry<byte[], byte[]> e : cache.asMap().entrySet()) {
      long expiry = ValueLayout.expiryOf(e.getValue());
      if (expiry == 0 || expiry > now) {
        counts[e.getKey()[0]][0]++;
        counts[e.getKey()[0]][1] += expiry == 0 ? 0 : 1;
      }
    }
    return counts;
  }

  /**
   * @param db the database
   * @return its number of live keys (a walk of the whole keyspace)
   */
  public long size(int db) {
    return counts()[db][0];
  }

  /**
   * Removes every key of a database.
   *
   * @param db the database
   */
  public void flush(int db) {
    cache.asMap().keySet().removeIf(k -> k[0] == db);
  }

  /** Removes every key of every database. */
  public void flushAll() {
    cache.invalidateAll();
  }

  /**
   * Removes expired keys among the next {@code budget} keys of a walk that resumes where the
   * previous call stopped. Called by one thread at a time. Once a whole pass has found no key
   * with an expiry, calls return at once until a value with an expiry is stored again, so a
   * keyspace without expiring keys is not walked at all.
   *
   * @param budget how many keys to look at
   * @return how many expired keys were removed
   */
  public synchronized int sweepExpired(int budget) {
    // A given (clustered) cache also holds values with an expiry written on other members,
    // which this member's count does not see: its sweep never goes quiet.
    if (quietAt >= 0 && !given) {
      if (expiringWrites.sum() == quietAt) {
        return 0;
      }
      quietAt = -1;
    }
    int removed = 0;
    long now = now();
    for (int i = 0; i < budget; i++) {
      if (sweep == null || !sweep.hasNext()) {
        if (sweep != null && !passSawExpiring) {
          // A whole pass saw no expiring key: quiet until one is written. A write counted
          // after passStartWrites was read may have been missed by the pass; it makes the
          // count differ, so the sweep resumes.
          sweep = null;
          quietAt = passStartWrites;
          return removed;
        }
        passStartWrites = expiringWrites.sum();
        passSawExpiring = false;
        sweep = sweepWalk.get();
        if (!sweep.hasNext()) {
          sweep = null;
          quietAt = passStartWrites;
          return removed;
        }
      }
      Map.Entry<byte[], byte[]> e = sweep.next();
      long expiry = ValueLayout.expiryOf(e.getValue());
      if (expiry != 0) {
        passSawExpiring = true;
        if (expiry <= now && cache.remove(e.getKey(), e.getValue())) {
          expired.increment();
          removed++;
        }
      }
    }
    return removed;
  }

  /** @return whether the sweep is idle: its last whole pass saw no expiring key, none since */
  synchronized boolean sweepIdle() {
    return quietAt >= 0 && expiringWrites.sum() == quietAt;
  }

  /**
   * @return the number of stored keys of every database, expired ones not yet removed included
   *     (the cache's estimate; no walk, unlike {@link #counts()})
   */
  public long estimatedSize() {
    return cache.estimatedSize();
  }

  /** @return the bytes the cache reserves (pages, index, policy) */
  public long memoryUsed() {
    return cache.memoryUsed();
  }

  /** @return the byte bound */
  public long maxMemory() {
    return maxMemory;
  }

  /**
   * Changes the byte bound: builds a cache of the new bound and copies every entry into it
   * (the new cache's policy evicts what no longer fits). The caller holds {@link #exclusive()}.
   *
   * @param bytes the new bound, at least 64 KiB
   */
  public void resize(long bytes) {
    if (given) {
      throw new IllegalStateException("maxmemory cannot be changed while the server runs in a"
          + " cluster; restart the member with the new bound");
    }
    Cache<byte[], byte[]> next = build(bytes);
    Cache<byte[], byte[]> previous = cache;
    for (Map.Entry<byte[], byte[]> e : previous.asMap().entrySet()) {
      next.put(e.getKey(), e.getValue());
    }
    cache = next;
    maxMemory = bytes;
    synchronized (this) {
      sweep = null;
    }
    previous.close();
  }

  /** @return keyspace statistics: hits, misses, expired keys, evicted keys */
  public long[] stats() {
    return new long[] {hits.sum(), misses.sum(), expired.sum(), evicted.sum()};
  }

  /** Resets the hit, miss, expired and evicted counters. */
  public void resetStats() {
    hits.reset();
    misses.reset();
    expired.reset();
    evicted.reset();
  }

  @Override
  public void close() {
    cache.close();
  }

  /** The stored bytes of a key's live value, or null; an expired value is removed and counted. */
  private byte[] liveOrRemove(byte[] stored) {
    byte[] bytes = cache.getIfPresent(stored);
    if (bytes == null) {
      return null;
    }
    if (expired(bytes)) {
      removeExpired(stored, bytes);
      return null;
    }
    return bytes;
  }

  private void removeExpired(byte[] stored, byte[] bytes) {
    try {
      if (cache.remove(stored, bytes)) {
        expired.increment();
      }
    } catch (RuntimeException e) {
      if (!given) {
        throw e;
      }
      // A clustered cache refused (a minority side) or timed out: the read still answers
      // "absent", and the primary's sweep removes the value.
    }
  }

  private boolean expired(byte[] bytes) {
    long expiry = ValueLayout.expiryOf(bytes);
    return expiry != 0 && expiry <= now();
  }

  private static byte[] storedKey(int db, byte[] key) {
    if (db < 0 || db >= DATABASES) {
      throw new IllegalArgumentException("database " + db + " out of range");
    }
    byte[] stored = new byte[key.length + 1];
    stored[0] = (byte) db;
    System.arraycopy(key, 0, stored, 1, key.length);
    return stored;
  }

  /**
   * The outcome of {@link #update}.
   *
   * @param before the live value before, or null
   * @param after the value after, or null if absent
   */
  public record Change(StoredValue before, StoredValue after) {}
}
