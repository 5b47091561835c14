package dev.larder.tx.internal;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/**
 * The side table of superseded versions that active snapshots may still need.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>When commit {@code N} overwrites or removes a key (or inserts one that was absent), it first
 * records the previous state here as a {@link Version}: valid from {@code start} (the sequence that
 * wrote it; for an absent key the last known removal, else 0) until {@code end = N}, with the
 * stored bytes (null for absent). Only then does it change the cache. A reader at snapshot {@code
 * S} reads the cache first: a version at most {@code S} is the answer; a newer version or no entry
 * sends it here for the version with {@code start <= S < end} and the greatest {@code start}.
 * Because the record is published before the cache changes, a reader that saw the change also sees
 * the record.
 *
 * <p>Writers (commit, trim) run under the store's commit lock; readers take no lock. Each key maps
 * to an immutable array replaced on change. A version is dropped once its {@code end} is at most
 * the horizon (the oldest active snapshot, and never above the visible sequence): no present or
 * future snapshot lies before its end.
 */
public final class VersionTable {

  /**
   * One superseded state of a key.
   *
   * @param start first sequence it is valid at
   * @param end the commit that superseded it
   * @param stored stored bytes, or null for "absent"
   */
  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  public record Version(long start, long end, byte[] stored) {}

  private static final Version[] NONE = new Version[0];
  private final Map<KeyRef, Version[]> versions = new ConcurrentHashMap<>();

  /**
   * Records a superseded state. Commit lock held.
   *
   * @param key the key
   * @param version the state and its validity
   */
  public void preserve(KeyRef key, Version version) {
    Version[] old = versions.getOrDefault(key, NONE);
    Version[] next = Arrays.copyOf(old, old.length + 1);
    next[old.length] = version;
    versions.put(key, next);
  }

  /**
   * Returns the state valid at {@code snapshot}, or null if none is recorded.
   *
   * @param key the key
   * @param snapshot the reader's snapshot
   */
  public Version find(KeyRef key, long snapshot) {
    Version best = null;
    for (Version v : versions.getOrDefault(key, NONE)) {
      if (v.start() <= snapshot
          && snapshot < v.end()
          && (best == null || v.start() > best.start())) {
        best = v;
      }
    }
    return best;
  }

  /**
   * Drops the states of {@code key} that no snapshot at or after {@code horizon} can need. Commit
   * lock held.
   *
   * @param key the key
   * @param horizon the oldest snapshot that may still read
   */
  public void trim(KeyRef key, long horizon) {
    Version[] old = versions.get(key);
    if (old == null) {
      return;
    }
    Version[] kept = Arrays.stream(old).filter(v -> v.end() > horizon).toArray(Version[]::new);
    if (kept.length == 0) {
      versions.remove(key);
    } else if (kept.length != old.length) {
      versions.put(key, kept);
    }
  }

  /**
   * Forgets the state recorded for {@code key} by commit {@code end} (undoing a failed commit).
   * Commit lock held.
   *
   * @param key the key
   * @param end the failed commit's sequence
   */
  public void forget(KeyRef key, long end) {
    Version[] old = versions.get(key);
    if (old == null) {
      return;
    }
    Version[] kept = Arrays.stream(old).filter(v -> v.end() != end).toArray(Version[]::new);
    if (kept.length == 0) {
      versions.remove(key);
    } else {
      versions.put(key, kept);
    }
  }

  /**
   * Visits every key of {@code cache} with a present state valid at {@code snapshot}.
   *
   * @param cache the cache index
   * @param snapshot the snapshot
   * @param visitor receives the key bytes and the stored bytes
   */
  public void forEachAt(int cache, long snapshot, BiConsumer<byte[], byte[]> visitor) {
    versions.forEach(
        (key, list) -> {
          if (key.cache() == cache) {
            Version v = find(key, snapshot);
            if (v != null && v.stored() != null) {
              visitor.accept(key.key(), v.stored());
            }
          }
        });
  }

  /** Returns the number of keys with superseded states. */
  public int keys() {
    return versions.size();
  }
}
