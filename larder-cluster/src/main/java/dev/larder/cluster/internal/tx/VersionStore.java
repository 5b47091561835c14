package dev.larder.cluster.internal.tx;

import dev.larder.tx.internal.KeyRef;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/**
 * A member's keys ({@link KeyState}s, every cache of the store in one map), its clock, and the
 * snapshots of its open transactions.
 *
 * <p><b>Horizon.</b> A snapshot is taken and registered under one lock ({@link #begin}); the
 * horizon that trims old versions is computed under the same lock as the oldest registered
 * snapshot, or the clock's current value if none. A snapshot taken after the horizon was computed
 * is above it, and the clock has observed every commit timestamp applied before (the caller
 * observes a commit's timestamp before applying it), so a version older than the newest one at or
 * below the horizon is never needed again.
 *
 * <p>Thread-safe.
 */
final class VersionStore {

  private final Map<KeyRef, KeyState> keys = new ConcurrentHashMap<>();
  private final TreeMap<Long, Integer> snapshots = new TreeMap<>();
  final HybridClock clock = new HybridClock();

  /** @return a new snapshot, registered until {@link #end} */
  long begin() {
    synchronized (snapshots) {
      long s = clock.tick();
      snapshots.merge(s, 1, Integer::sum);
      return s;
    }
  }

  void end(long snapshot) {
    synchronized (snapshots) {
      snapshots.computeIfPresent(snapshot, (k, n) -> n == 1 ? null : n - 1);
    }
  }

  int openSnapshots() {
    synchronized (snapshots) {
      return snapshots.values().stream().mapToInt(Integer::intValue).sum();
    }
  }

  long horizon() {
    synchronized (snapshots) {
      return snapshots.isEmpty() ? clock.current() : snapshots.firstKey();
    }
  }

  KeyState state(KeyRef key) {
    return keys.computeIfAbsent(key, k -> new KeyState());
  }

  /** @return the key's state, or null if this member never held the key */
  KeyState peek(KeyRef key) {
    return keys.get(key);
  }

  byte[] read(KeyRef key, long snapshot, long deadlineNanos) throws InterruptedException {
    KeyState s = keys.get(key);
    return s == null ? null : s.readAt(snapshot, deadlineNanos);
  }

  /** Applies one committed write (observing its timestamp first). */
  void apply(KeyRef key, TxId txid, long commitTs) {
    clock.observe(commitTs);
    state(key).apply(txid, commitTs, horizon());
  }

  void forEach(BiConsumer<KeyRef, KeyState> action) {
    keys.forEach(action);
  }

  /** Empties every key (adoption), keeping the objects that waiting readers hold. */
  void clear() {
    for (KeyState s : keys.values()) {
      s.reset(0, null);
    }
  }

  long estimatedSize(int cache) {
    long n = 0;
    for (Map.Entry<KeyRef, KeyState> e : keys.entrySet()) {
      if (e.getKey().cache() == cache && e.getValue().newest() != null) {
        n++;
      }
    }
    return n;
  }

  long memoryUsed(int cache) {
    long n = 0;
    for (Map.Entry<KeyRef, KeyState> e : keys.entrySet()) {
      if (e.getKey().cache() == cache) {
        n += e.getKey().key().length + e.getValue().bytes();
      }
    }
    return n;
  }
}
