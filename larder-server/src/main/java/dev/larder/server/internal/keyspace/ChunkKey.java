package dev.larder.server.internal.keyspace;

import java.util.Arrays;

/**
 * The stored key of a chunk or an index page of a chunked collection (a large list, set or hash;
 * the reference is {@code docs/spec/server-value-layout.md}, "Stored key"):
 *
 * <pre>
 *   byte        0x80 | db
 *   8 bytes     collection id, big-endian
 *   4 bytes     chunk number, big-endian
 *   bytes       the collection's key (without the db byte), to the end
 * </pre>
 *
 * <p>A chunk key's first byte is never a database number (0 to 15), so no client can name it and
 * every walk that looks for a database's keys passes over chunks. The collection id keeps the
 * chunks of a collection apart from those of an earlier one of the same key (a chunk whose id its
 * head does not carry belongs to no one); the head key at the end lets an evicted chunk name the
 * collection that must go with it.
 *
 * <p>Stateless and thread-safe. A method given a key that is not a chunk key where one is required
 * throws {@link IllegalArgumentException}.
 */
public final class ChunkKey {
  /** The bit that marks a chunk's stored key: its first byte is {@code CHUNK_SPACE | db}. */
  public static final int CHUNK_SPACE = 0x80;

  private static final int KEY_PREFIX = 1 + 8 + 4;

  private ChunkKey() {}

  /** Returns whether a stored key is a chunk's. */
  public static boolean isChunkKey(byte[] storedKey) {
    return storedKey.length > 0 && (storedKey[0] & CHUNK_SPACE) != 0;
  }

  /**
   * Returns a chunk's stored key.
   *
   * @param headKey the collection's stored key (db byte, key)
   * @param id the collection id
   * @param number the chunk's number
   */
  public static byte[] of(byte[] headKey, long id, int number) {
    byte[] k = new byte[KEY_PREFIX + headKey.length - 1];
    k[0] = (byte) (CHUNK_SPACE | headKey[0]);
    putLong(k, 1, id);
    k[9] = (byte) (number >>> 24);
    k[10] = (byte) (number >>> 16);
    k[11] = (byte) (number >>> 8);
    k[12] = (byte) number;
    System.arraycopy(headKey, 1, k, KEY_PREFIX, headKey.length - 1);
    return k;
  }

  /**
   * Returns the stored key of the collection a chunk belongs to.
   *
   * @param chunkKey a chunk's stored key
   * @throws IllegalArgumentException if it is not one
   */
  public static byte[] headKeyOf(byte[] chunkKey) {
    if (!isChunkKey(chunkKey) || chunkKey.length < KEY_PREFIX) {
      throw new IllegalArgumentException("not a chunk key");
    }
    byte[] head = new byte[chunkKey.length - KEY_PREFIX + 1];
    head[0] = (byte) (chunkKey[0] & 0x0F);
    System.arraycopy(chunkKey, KEY_PREFIX, head, 1, head.length - 1);
    return head;
  }

  /**
   * Returns whether a stored key is a chunk of the collection at {@code headKey} (of any collection
   * id).
   *
   * @param storedKey any stored key
   * @param headKey a collection's stored key (db byte, key)
   */
  public static boolean isChunkOf(byte[] storedKey, byte[] headKey) {
    return isChunkKey(storedKey)
        && storedKey.length - KEY_PREFIX == headKey.length - 1
        && (storedKey[0] & 0x0F) == headKey[0]
        && Arrays.equals(storedKey, KEY_PREFIX, storedKey.length, headKey, 1, headKey.length);
  }

  /** Returns the collection id in a chunk's stored key. */
  public static long idOf(byte[] chunkKey) {
    return getLong(chunkKey, 1);
  }

  /** Returns the chunk number in a chunk's stored key. */
  public static int numberOf(byte[] chunkKey) {
    return ((chunkKey[9] & 0xFF) << 24)
        | ((chunkKey[10] & 0xFF) << 16)
        | ((chunkKey[11] & 0xFF) << 8)
        | (chunkKey[12] & 0xFF);
  }

  static void putLong(byte[] out, int at, long v) {
    for (int i = 0; i < 8; i++) {
      out[at + i] = (byte) (v >>> (56 - 8 * i));
    }
  }

  static long getLong(byte[] in, int at) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (in[at + i] & 0xFF);
    }
    return v;
  }
}
