package dev.larder;

/** Why an entry left the cache. */
public enum RemovalCause {
  /** Removed by the user: remove, invalidate, invalidateAll, compute returning null. */
  EXPLICIT,
  /**
   * Its value was replaced by a put, replace or compute: reported once per update, also when the
   * update had to make room for its new value. Evictions that make room are of other keys.
   */
  REPLACED,
  /** Its expiry time passed. */
  EXPIRED,
  /** Evicted by the policy to honour the memory or entry bound; never the key being written. */
  SIZE;

  /** Returns true if the cache removed the entry on its own (expiry or the bound). */
  public boolean wasEvicted() {
    return this == EXPIRED || this == SIZE;
  }
}
