package dev.larder.cluster.internal.tx;

import dev.larder.tx.internal.KeyRef;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

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
 * <p><b>Adoption.</b> Adoption replaces every key's history by its newest version, so a snapshot
 * taken before it cannot be served after it (its versions may be gone, and a read would answer
 * "absent"). {@link #servedFrom} is the oldest snapshot reads may use: {@code Long.MAX_VALUE} while
 * an adoption runs, then a tick of the clock taken after the adopted versions were observed (above
 * every snapshot handed out before). A read checks it after reading the key: a read that saw a key
 * reset by an adoption entered the key's monitor after the reset, which follows the volatile write
 * that raised the floor, so it sees the raised floor and fails.
 *
 * <p>Thread-safe.
 */
final class VersionStore {

  private final Map<KeyRef, KeyState> keys = new ConcurrentHashMap<>();

  /**
   * How far below the clock the horizon stays even with no open snapshot here: readers on other
   * members (whose snapshots this member does not register) find the versions they need if they
   * read within this much of their snapshot. 0 when every read is local (REPLICATED).
   */
  private final long retainTicks;

  private final TreeMap<Long, Integer> snapshots = new TreeMap<>();
  final HybridClock clock = new HybridClock();

  /** The oldest snapshot reads may use (see the class notes on adoption). */
  private volatile long servedFrom;

  /**
   * @param retainTicks clock ticks (milliseconds shifted left by 20) of versions kept below the
   *     clock for remote readers
   */
  VersionStore(long retainTicks) {
    this.retainTicks = retainTicks;
  }

  /** Returns a new snapshot, registered until {@link #end}. */
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
      long now = clock.current();
      long local = snapshots.isEmpty() ? now : snapshots.firstKey();
      return Math.min(local, now - retainTicks);
    }
  }

  KeyState state(KeyRef key) {
    return keys.computeIfAbsent(key, k -> new KeyState());
  }

  /** Returns the key's state, or null if this member never held the key. */
  KeyState peek(KeyRef key) {
    return keys.get(key);
  }

  /**
   * Returns the key's newest version at or below {@code snapshot} (its stored bytes), or null if it
   * has none (absent or removed at that snapshot).
   *
   * @throws PendingTimeoutException if a pending transaction that may commit within the snapshot is
   *     still pending at the deadline
   * @throws SnapshotLostException if an adoption since the snapshot was taken replaced the versions
   *     it needs
   */
  byte[] read(KeyRef key, long snapshot, long deadlineNanos) throws InterruptedException {
    KeyState s = keys.get(key);
    byte[] value = s == null ? null : s.readAt(snapshot, deadlineNanos);
    if (snapshot < servedFrom) {
      throw new SnapshotLostException(snapshot);
    }
    return value;
  }

  /** An adoption begins: no snapshot may be read until {@link #adoptionEnded}. */
  void adoptionBegins() {
    servedFrom = Long.MAX_VALUE;
  }

  /**
   * The adopted versions are in place and their timestamps observed: snapshots handed out from now
   * on may be read; older ones may not.
   */
  void adoptionEnded() {
    servedFrom = clock.tick();
  }

  /** Applies one committed write (observing its timestamp first). */
  void apply(KeyRef key, TxId txid, long commitTs) {
    clock.observe(commitTs);
    state(key).apply(txid, commitTs, horizon());
  }

  void forEach(BiConsumer<KeyRef, KeyState> action) {
    keys.forEach(action);
  }

  /**
   * Empties the keys {@code which} accepts (adoption), keeping the objects waiting readers hold.
   */
  void clear(Predicate<KeyRef> which) {
    keys.forEach(
        (k, s) -> {
          if (which.test(k)) {
            s.reset(0, null);
          }
        });
  }

  /**
   * Forgets the keys {@code which} accepts (segments this member no longer holds); a reader that
   * already holds one of their states finishes its read on it.
   */
  void drop(Predicate<KeyRef> which) {
    keys.keySet().removeIf(which);
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
