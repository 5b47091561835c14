package dev.larder.cluster.internal;

import dev.larder.RemovalCause;
import dev.larder.cluster.ClusterMode;

/**
 * Which member reports which removal to the cache's removal listener, so that each removal from the
 * cluster is reported once. Thread-safe.
 *
 * <p>Implementation notes. In owner modes the key's primary reports: explicit removals and
 * replacements from its write path ({@link #onWrite}, under the segment lock, so in the key's order
 * of writes), evictions and expiries from its own store ({@link #onStoreRemoval}). Removals of
 * backup copies, and of entries state transfer drops, are not removals from the cache and are not
 * reported. In invalidation mode each member's store is its own and every removal from it is
 * reported. The sink only queues (the listener runs on the cache's executor), so reporting under a
 * lock never waits for user code.
 */
final class RemovalReporting {

  private final EngineHooks.Removals sink;
  private final boolean invalidationMode;
  private final Membership membership;
  private final SegmentOwnership segments;
  private final Lifecycle lifecycle;
  private final boolean stamps;

  /**
   * @param sink where removals go, or null when nobody listens
   * @param stamps true if stored values carry an expiry stamp (stripped before reporting)
   */
  RemovalReporting(
      EngineHooks.Removals sink,
      ClusterMode mode,
      Membership membership,
      SegmentOwnership segments,
      Lifecycle lifecycle,
      boolean stamps) {
    this.sink = sink;
    this.invalidationMode = mode == ClusterMode.INVALIDATION;
    this.membership = membership;
    this.segments = segments;
    this.lifecycle = lifecycle;
    this.stamps = stamps;
  }

  /** Returns true if a listener wants removals (else a write need not read the old value). */
  boolean wanted() {
    return sink != null;
  }

  /**
   * Reports what a primary's write removed: the previous value (EXPLICIT or REPLACED), or an
   * expired value it overwrote (EXPIRED). Caller holds the segment lock.
   *
   * @param stored the stored form the write found, or null
   * @param current its live value, or null if absent or expired
   * @param removal true if the write removed the key
   */
  void onWrite(byte[] key, byte[] stored, byte[] current, boolean removal) {
    if (sink == null || stored == null) {
      return;
    }
    if (current != null) {
      sink.removed(key, current, removal ? RemovalCause.EXPLICIT : RemovalCause.REPLACED);
    } else {
      sink.removed(key, Stamp.payload(stored), RemovalCause.EXPIRED);
    }
  }

  /**
   * A removal in this member's store (its listener, on the store's executor). In invalidation mode
   * every one is reported: the store is this member's own. Otherwise only evictions and expiries of
   * keys this member is primary of: explicit removals and replacements are reported by the
   * primary's write path, and removals of backup copies or of entries state transfer drops are not
   * removals from the cache.
   */
  void onStoreRemoval(byte[] key, byte[] value, RemovalCause cause) {
    if (sink == null || lifecycle.closing()) {
      return;
    }
    if (invalidationMode) {
      sink.removed(key, value, cause);
      return;
    }
    Topology t = membership.topology();
    if (cause.wasEvicted()
        && t != null
        && t.hash().primary(segments.segmentOf(key)).equals(membership.self())) {
      sink.removed(key, stamps ? Stamp.payload(value) : value, cause);
    }
  }
}
