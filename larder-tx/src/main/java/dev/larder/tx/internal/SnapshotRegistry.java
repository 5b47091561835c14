package dev.larder.tx.internal;

import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The snapshots of active transactions (and of a running checkpoint), so that history and old
 * versions are kept exactly as long as someone may need them. Registration reads the visible
 * sequence and records it in one short critical section, so a trim can never miss a snapshot that
 * was taken before it computed its horizon. The lock is held for a map update only; it never
 * waits for a commit.
 */
public final class SnapshotRegistry {

  private final TreeMap<Long, Integer> active = new TreeMap<>();

  /**
   * @param visible the store's visible sequence
   * @return the snapshot taken, now registered
   */
  public synchronized long register(AtomicLong visible) {
    long s = visible.get();
    active.merge(s, 1, Integer::sum);
    return s;
  }

  /** @param snapshot a snapshot to hold, e.g. a checkpoint's */
  public synchronized void registerAt(long snapshot) {
    active.merge(snapshot, 1, Integer::sum);
  }

  /** @param snapshot a registered snapshot to release */
  public synchronized void release(long snapshot) {
    active.computeIfPresent(snapshot, (k, n) -> n == 1 ? null : n - 1);
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
    return active.values().stream().mapToInt(Integer::intValue).sum();
  }
}
