package dev.larder.server.internal.cluster;

/**
 * Redis Cluster's key slots: a key's slot is CRC16 (XMODEM: polynomial 0x1021, initial 0, no
 * reflection) of the key, or of its hash tag, modulo {@value #SLOTS}. The hash tag is what lies
 * between the first {@code {} and the first {@code }} after it, when that is not empty, so that
 * {@code user:{42}:name} and {@code user:{42}:mail} share a slot.
 *
 * <p>Stateless and thread-safe.
 */
public final class HashSlot {
  /** The number of slots. */
  public static final int SLOTS = 16384;

  private static final int[] TABLE = table();

  private HashSlot() {}

  private static int[] table() {
    int[] t = new int[256];
    for (int i = 0; i < 256; i++) {
      int crc = i << 8;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
      }
      t[i] = crc & 0xFFFF;
    }
    return t;
  }

  /**
   * Returns its slot, in [0, 16384).
   *
   * @param key a key
   */
  public static int of(byte[] key) {
    return of(key, 0, key.length);
  }

  /**
   * Returns its slot, in [0, 16384).
   *
   * @param bytes holds the key
   * @param from where the key starts
   * @param to where it ends (exclusive)
   */
  public static int of(byte[] bytes, int from, int to) {
    int open = -1;
    for (int i = from; i < to; i++) {
      if (bytes[i] == '{') {
        open = i;
        break;
      }
    }
    if (open >= 0) {
      for (int i = open + 1; i < to; i++) {
        if (bytes[i] == '}') {
          if (i > open + 1) {
            return crc16(bytes, open + 1, i) & (SLOTS - 1);
          }
          break;
        }
      }
    }
    return crc16(bytes, from, to) & (SLOTS - 1);
  }

  /** CRC16/XMODEM of {@code bytes[from, to)}. */
  static int crc16(byte[] bytes, int from, int to) {
    int crc = 0;
    for (int i = from; i < to; i++) {
      crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ bytes[i]) & 0xFF]) & 0xFFFF;
    }
    return crc;
  }
}
