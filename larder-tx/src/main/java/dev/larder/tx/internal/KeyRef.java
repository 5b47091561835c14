package dev.larder.tx.internal;

import java.util.Arrays;

/**
 * A key of one cache of a store, by its encoded bytes: the unit of conflict detection and of
 * version history. Immutable; the byte array must not be changed after construction.
 *
 * @param cache the cache's index in its store
 * @param key the encoded key
 */
@SuppressWarnings("ArrayRecordComponent") // equals and hashCode compare the content
public record KeyRef(int cache, byte[] key) {

  @Override
  public boolean equals(Object o) {
    return o instanceof KeyRef k && k.cache == cache && Arrays.equals(k.key, key);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(key) + cache;
  }

  @Override
  public String toString() {
    return cache + ":" + java.util.HexFormat.of().formatHex(key);
  }
}
