package dev.larder.tx.internal;

import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The snapshots of active transactions (and of a running checkpoint), so that history and old
 * versions are kept exactly as long as someone may need them. Registration reads the visible
 * sequence and records it in one short critical section, so a trim can never miss a snapshot that
 * was taken before it computed its horizon. The lock is held for a map update only; it never waits
 * for a commit.
 *
 * <p>{@link #registered()} is the count of registered snapshots, readable without the lock: the
 * blind-write fast path reads it after announcing its write, and {@link #register} raises it before
 * looking for an announced write, both through volatile accesses, so that of a registering reader
 * and a fast-path writer at least one sees the other (docs/design/transactions.md).
 *
 * <p>Thread-safe.
 */
public final class SnapshotRegistry {

  /**
   * A registered snapshot.
   *
   * @param sequence the last commit it includes
   * @param overlay a blind write of commit {@code sequence} that was being applied when the
   *     snapshot was taken, to be read instead of the cache for its key; or null
   */
  public record Snapshot(long sequence, BlindWrite overlay) {}

  private final TreeMap<Long, Integer> active = new TreeMap<>();
  private volatile int registered;

  /**
   * Registers a snapshot of the visible state. If a blind write is announced with a sequence beyond
   * {@code visible}, the snapshot includes it (at its sequence, with it as overlay): every commit
   * before it is applied, and it is the only write of its commit.
   *
   * @param visible the store's visible sequence
   * @param announced the blind write being applied on the fast path, or null
   * @return the snapshot taken, now registered
   */
  public synchronized Snapshot register(AtomicLong visible, Supplier<BlindWrite> announced) {
    registered = registered + 1; // volatile write before the read of the announcement
    BlindWrite inFlight = announced.get();
    long v = visible.get();
    Snapshot s =
        inFlight != null && inFlight.sequence() > v
            ? new Snapshot(inFlight.sequence(), inFlight)
            : new Snapshot(v, null);
    active.merge(s.sequence(), 1, Integer::sum);
    return s;
  }

  /**
   * Holds a snapshot: commits after it keep what it reads until it is released.
   *
   * @param snapshot a snapshot to hold, e.g. a checkpoint's
   */
  public synchronized void registerAt(long snapshot) {
    registered = registered + 1;
    active.merge(snapshot, 1, Integer::sum);
  }

  /**
   * Releases a snapshot that {@link #registerAt} or a transaction holds.
   *
   * @param snapshot a registered snapshot to release
   */
  public synchronized void release(long snapshot) {
    if (active.containsKey(snapshot)) {
      active.computeIfPresent(snapshot, (k, n) -> n == 1 ? null : n - 1);
      registered = registered - 1;
    }
  }

  /** Returns how many snapshots are registered (a volatile read, no lock). */
  public int registered() {
    return registered;
  }

  /**
   * Returns the oldest snapshot any active or future reader may hold.
   *
   * @param visible the store's visible sequence
   */
  public synchronized long horizon(AtomicLong visible) {
    long v = visible.get();
    return active.isEmpty() ? v : Math.min(v, active.firstKey());
  }

  /** Returns number of registered snapshots. */
  public synchronized int size() {
    return registered;
  }
}
