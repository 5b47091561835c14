package dev.larder.internal.store;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The readers' side of a cache's hot tier: its entries by key object, for a lookup that costs what
 * an object cache's does (the key's hash code, one table probe, an {@code equals} that is usually
 * {@code ==}), with no encoding of the key and no copy or decoding of the value.
 *
 * <p>Implementation notes. Entries are owned by the segments that hold their keys' compact entries
 * ({@link HotShard}); only a segment under its write lock adds or removes them here. A segment
 * removes a key's entry before it changes or removes the key's compact entry, and adds one only
 * after the compact entry holding that value is published, both under its lock; so at every moment
 * the entry here, if any, holds the key's current value, and a reader that finds one returns a
 * value the key held at the moment of its lookup (docs/design/hot-tier.md, "No stale read"). Key
 * objects must have {@code equals} and {@code hashCode} that agree with their encoded bytes, which
 * the cache asks of immutable key codecs.
 */
public final class HotTable {

  private final ConcurrentHashMap<Object, HotEntry> entries = new ConcurrentHashMap<>();
  private final boolean expires;

  /**
   * @param expires whether entries carry a deadline (expire-after-write)
   */
  public HotTable(boolean expires) {
    this.expires = expires;
  }

  /**
   * Looks a key up; a hit marks the entry as read for the tier's and the store's policies.
   *
   * @param key the key object
   * @param now ticker time, read only if entries expire
   * @return the value, or null if the key has no live hot entry
   */
  public Object get(Object key, long now) {
    HotEntry entry = entries.get(key);
    if (entry == null || (expires && now - entry.deadline >= 0)) {
      return null;
    }
    entry.touch();
    return entry.value;
  }

  /**
   * Returns whether the key has a hot entry now (a writer deciding to prepare a replacement).
   *
   * @param key the key object
   */
  public boolean contains(Object key) {
    return entries.containsKey(key);
  }

  /** Returns entries present; racy. */
  public int size() {
    return entries.size();
  }

  void add(HotEntry entry) {
    entries.put(entry.key, entry);
  }

  void remove(HotEntry entry) {
    entries.remove(entry.key, entry);
  }
}
