package dev.larder.tx;

import dev.larder.codec.ByteSource;
import dev.larder.tx.internal.BlindWrite;
import dev.larder.tx.internal.KeyRef;
import dev.larder.tx.internal.SnapshotRegistry;
import dev.larder.tx.spi.TxBackend;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;

/**
 * One optimistic transaction over the caches of a {@link TxStore}.
 *
 * <p><b>What it sees.</b> Its snapshot, taken at {@link TxStore#begin}: the state after exactly the
 * commits with a sequence up to {@link #snapshot()}, plus its own writes. A value it has read is
 * remembered, so reading a key again returns the same value even if the cache has since evicted or
 * expired the entry. A first read of an entry the cache has forgotten (evicted, expired) returns
 * null, as a cache miss would: a transactional cache may forget, but never shows a value that was
 * not committed, nor part of a commit.
 *
 * <p><b>Writes</b> are buffered here and invisible to everyone else until {@link #commit()}, which
 * checks them against the commits made since the snapshot (see {@link Isolation}) and either
 * applies all of them atomically or none, throwing {@link TransactionConflictException}.
 *
 * <p><b>Ending.</b> {@link #close()} rolls back anything not committed, so try-with-resources is
 * the usual shape. After commit, rollback or close every method but {@code close} throws {@link
 * IllegalStateException}.
 *
 * <p><b>Thread safety:</b> a transaction belongs to one thread at a time; it is not thread-safe.
 */
public final class Transaction implements AutoCloseable {

  private final TxStore store;
  private final TxBackend engine;
  private final Isolation isolation;
  private final long snapshot;

  /** A blind write of commit {@code snapshot} still being applied when this began, or null. */
  private final BlindWrite overlay;

  private final Map<KeyRef, byte[]> reads = new HashMap<>();
  private final LinkedHashMap<KeyRef, byte[]> writes = new LinkedHashMap<>();
  private boolean active = true;
  private long commitSequence = -1;

  Transaction(TxStore store, TxBackend engine, Isolation isolation) {
    this.store = store;
    this.engine = engine;
    this.isolation = isolation;
    SnapshotRegistry.Snapshot s = engine.begin();
    this.snapshot = s.sequence();
    this.overlay = s.overlay();
  }

  /** Returns the last commit this transaction sees. */
  public long snapshot() {
    return snapshot;
  }

  /** Returns this transaction's isolation level. */
  public Isolation isolation() {
    return isolation;
  }

  /** Returns true until commit, rollback or close. */
  public boolean isActive() {
    return active;
  }

  /**
   * Returns the sequence {@link #commit()} assigned, or the snapshot for a transaction that wrote
   * nothing.
   *
   * @throws IllegalStateException if not committed
   */
  public long commitSequence() {
    if (commitSequence < 0) {
      throw new IllegalStateException("not committed");
    }
    return commitSequence;
  }

  /**
   * Returns the value at the snapshot (or as written by this transaction), or null if absent.
   *
   * @param cache a cache of this transaction's store
   * @param key the key
   * @param <K> key type
   * @param <V> value type
   */
  @SuppressWarnings("ReferenceEquality") // REMOVED is a sentinel array, told apart by identity
  public <K, V> V get(TxCache<K, V> cache, K key) {
    KeyRef ref = ref(cache, key);
    byte[] own = writes.get(ref);
    if (own != null) {
      return own == TxBackend.REMOVED ? null : decode(cache, own, 0);
    }
    return decodeStored(cache, readStored(ref));
  }

  /**
   * Buffers a write; visible to others only after commit.
   *
   * @param cache a cache of this transaction's store
   * @param key the key
   * @param value the value
   * @param <K> key type
   * @param <V> value type
   */
  public <K, V> void put(TxCache<K, V> cache, K key, V value) {
    KeyRef ref = ref(cache, key);
    writes.put(ref, store.encoding().value(cache.index(), Objects.requireNonNull(value, "value")));
  }

  /**
   * Buffers a removal (without reading the key).
   *
   * @param cache a cache of this transaction's store
   * @param key the key
   * @param <K> key type
   * @param <V> value type
   */
  public <K, V> void remove(TxCache<K, V> cache, K key) {
    writes.put(ref(cache, key), TxBackend.REMOVED);
  }

  /**
   * Reads the key and buffers the function's result as its new value (null removes).
   *
   * @param cache a cache of this transaction's store
   * @param key the key
   * @param function given the key and the current value (or null)
   * @param <K> key type
   * @param <V> value type
   * @return the new value, or null if removed
   */
  public <K, V> V compute(
      TxCache<K, V> cache, K key, BiFunction<? super K, ? super V, ? extends V> function) {
    Objects.requireNonNull(function, "function");
    V current = get(cache, key);
    V next = function.apply(key, current);
    if (next == null) {
      if (current != null) {
        remove(cache, key);
      }
    } else {
      put(cache, key, next);
    }
    return next;
  }

  /**
   * Commits: checks for conflicts, then makes every write visible at once and, with persistence,
   * durable under the store's fsync policy before returning.
   *
   * @return the commit's sequence (the snapshot if nothing was written)
   * @throws TransactionConflictException if a later commit wrote a key this one read (serializable)
   *     or wrote; the transaction is rolled back
   * @throws IllegalArgumentException if a value can never fit its cache; rolled back
   * @throws IllegalStateException if not active, or if the log failed (the commit is then in doubt
   *     until the store is reopened)
   */
  public long commit() {
    checkActive();
    try {
      commitSequence =
          writes.isEmpty() ? snapshot : engine.commit(snapshot, isolation, reads.keySet(), writes);
    } finally {
      end();
    }
    return commitSequence;
  }

  /** Discards every buffered write. */
  public void rollback() {
    checkActive();
    end();
  }

  /** Rolls back if still active; otherwise does nothing. */
  @Override
  public void close() {
    if (active) {
      end();
    }
  }

  private void end() {
    active = false;
    engine.end(snapshot);
  }

  private byte[] readStored(KeyRef ref) {
    if (reads.containsKey(ref)) {
      return reads.get(ref);
    }
    // The overlay is the state of its key at the snapshot, whether or not the cache has it yet.
    byte[] stored =
        overlay != null && overlay.key().equals(ref)
            ? overlay.stored()
            : engine.read(ref, snapshot);
    reads.put(ref, stored);
    return stored;
  }

  private KeyRef ref(TxCache<?, ?> cache, Object key) {
    checkActive();
    store.check(cache);
    return new KeyRef(
        cache.index(), store.encoding().key(cache.index(), Objects.requireNonNull(key, "key")));
  }

  private <V> V decodeStored(TxCache<?, V> cache, byte[] stored) {
    return stored == null ? null : decode(cache, stored, engine.valueOffset(stored));
  }

  private static <V> V decode(TxCache<?, V> cache, byte[] bytes, int offset) {
    return cache.spec().valueCodec().decode(new ByteSource(bytes, offset, bytes.length - offset));
  }

  private void checkActive() {
    if (!active) {
      throw new IllegalStateException("transaction is no longer active");
    }
  }
}
