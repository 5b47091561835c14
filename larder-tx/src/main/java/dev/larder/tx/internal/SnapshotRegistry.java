package dev.larder.tx.internal;

import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

/**
 * The snapshots of active transactions (and of a running checkpoint), so that history and old
 * versions are kept exactly as long as someone may need them. Registration reads the visible
 * sequence and records it in one short critical section, so a trim can never miss a snapshot that
 * was taken before it computed its horizon. The lock is held for a map update only; it never
 * waits for a commit.
 *
 * <p>{@link #registered()} is the count of registered snapshots, readable without the lock: a
 * blind write on the fast path reads it after publishing its sequence, and {@link #register}
 * raises it before reading the visible sequence and the writes still in flight, all through
 * volatile accesses, so that of a registering reader and a fast-path writer at least one sees the
 * other (docs/design/transactions.md, "Blind writes on the fast path").
 *
 * <p>Thread-safe.
 */
public final class SnapshotRegistry {

  /**
   * A registered snapshot.
   *
   * @param sequence the last commit it includes
   * @param overlays blind writes of commits up to {@code sequence} that were still being applied
   *     to the cache when the snapshot was taken, at most one a key: each is read instead of the
   *     cache for its key; usually empty
   */
  public record Snapshot(long sequence, List<BlindWrite> overlays) {

    /**
     * @param key a key
     * @return the overlay of that key, or null
     */
    public BlindWrite overlay(KeyRef key) {
      for (BlindWrite w : overlays) {
        if (w.key().equals(key)) {
          return w;
        }
      }
      return null;
    }
  }

  private final TreeMap<Long, Integer> active = new TreeMap<>();
  private volatile int registered;

  /**
   * Registers a snapshot of the visible state: every commit up to {@code visible} has been
   * applied to the caches, or is a blind write still in flight, which the snapshot takes as an
   * overlay for its key (it is the only write of its commit, and the key's state at its
   * sequence whether or not the cache holds it yet).
   *
   * @param visible the store's visible sequence
   * @param inFlight given a sequence, the blind writes at or before it still being applied
   * @return the snapshot taken, now registered
   */
  public synchronized Snapshot register(AtomicLong visible,
      LongFunction<List<BlindWrite>> inFlight) {
    registered = registered + 1; // volatile write before the reads of visible and the writes
    long v = visible.get();
    Snapshot s = new Snapshot(v, inFlight.apply(v));
    active.merge(s.sequence(), 1, Integer::sum);
    return s;
  }

  /** @param snapshot a snapshot to hold, e.g. a checkpoint's */
  public synchronized void registerAt(long snapshot) {
    registered = registered + 1;
    active.merge(snapshot, 1, Integer::sum);
  }

  /** @param snapshot a registered snapshot to release */
  public synchronized void release(long snapshot) {
    if (active.containsKey(snapshot)) {
      active.computeIfPresent(snapshot, (k, n) -> n == 1 ? null : n - 1);
      registered = registered - 1;
    }
  }

  /** @return how many snapshots are registered (a volatile read, no lock) */
  public int registered() {
    return registered;
  }

  /**
   * @param visible the store's visible sequence
   * @return the oldest snapshot any active or future reader may hold
   */
  public synchronized long horizon(AtomicLong visible) {
    long v = visible.get();
    return active.isEmpty() ? v : Math.min(v, active.firstKey());
  }

  /** @return number of registered snapshots */
  public synchronized int size() {
    return registered;
  }
}
