package dev.larder.server.internal.memcache;

/**
 * memcached's per-item state that the meta protocol reads and writes, packed into the one number
 * the keyspace stores beside an item ({@code StoredValue.itemState}, the layout's version-2 field;
 * docs/spec/server-value-layout.md). 0 means none of it, and costs nothing in the stored value.
 *
 * <pre>
 *   bit 0      STALE: marked stale by {@code md I} (or written stale by {@code ms I} with a low CAS)
 *   bit 1      TOKEN_SENT: a client was told W (win) for this item; others are told Z
 *   bit 2      FETCHED: the item was read since it was stored (meta's h)
 *   bit 3      KEY_BINARY: the item was stored with a base64 key (ms b), so k answers in base64
 *   bits 4..   last access: seconds since 2025-01-01T00:00:00Z, 0 when not recorded
 * </pre>
 *
 * <p>Stateless and thread-safe.
 */
final class ItemState {
  static final long STALE = 1;
  static final long TOKEN_SENT = 1 << 1;
  static final long FETCHED = 1 << 2;
  static final long KEY_BINARY = 1 << 3;
  private static final int ACCESS_SHIFT = 4;
  private static final long BITS = (1 << ACCESS_SHIFT) - 1;

  /** 2025-01-01T00:00:00Z in Unix seconds: the epoch of the last-access field. */
  static final long ACCESS_EPOCH_SECONDS = 1_735_689_600L;

  /** memcached bumps an item's access time at most this often (its ITEM_UPDATE_INTERVAL). */
  static final long ACCESS_INTERVAL_SECONDS = 60;

  private ItemState() {}

  static boolean has(long state, long bit) {
    return (state & bit) != 0;
  }

  /** The last access in Unix seconds, or 0 if none was recorded. */
  static long lastAccessSeconds(long state) {
    long at = state >>> ACCESS_SHIFT;
    return at == 0 ? 0 : at + ACCESS_EPOCH_SECONDS;
  }

  /** The state with the last access set to a Unix time in seconds (clamped to the epoch + 1). */
  static long withLastAccess(long state, long unixSeconds) {
    long at = Math.max(1, unixSeconds - ACCESS_EPOCH_SECONDS);
    return (state & BITS) | (at << ACCESS_SHIFT);
  }

  /**
   * The state after a fetch at {@code nowSeconds}, as memcached's segmented LRU bumps an item: the
   * first fetch marks it fetched; a later one records the access time if none is recorded or the
   * last is at least {@value #ACCESS_INTERVAL_SECONDS} seconds old.
   */
  static long fetched(long state, long nowSeconds) {
    if (!has(state, FETCHED)) {
      return state | FETCHED;
    }
    long last = lastAccessSeconds(state);
    return last == 0 || nowSeconds - last >= ACCESS_INTERVAL_SECONDS
        ? withLastAccess(state, nowSeconds)
        : state;
  }
}
