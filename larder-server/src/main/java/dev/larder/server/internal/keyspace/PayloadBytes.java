package dev.larder.server.internal.keyspace;

/**
 * Bounded reads and writes of the pieces set and sorted-set payloads are made of: little-endian
 * 32-bit offsets, length-prefixed byte strings, big-endian doubles. Every read checks its bounds
 * and throws {@link IllegalArgumentException} for bytes that do not hold what they claim, so a
 * damaged payload is refused rather than read past its end.
 *
 * <p>Stateless and thread-safe.
 */
final class PayloadBytes {
  private PayloadBytes() {}

  /** Reads an unsigned little-endian 32-bit number at {@code pos} as an int (at most 2^31-1). */
  static int u32(byte[] p, int pos) {
    if (pos < 0 || pos > p.length - 4) {
      throw new IllegalArgumentException("payload truncated");
    }
    int v =
        (p[pos] & 0xFF) | (p[pos + 1] & 0xFF) << 8 | (p[pos + 2] & 0xFF) << 16 | p[pos + 3] << 24;
    if (v < 0) {
      throw new IllegalArgumentException("offset out of range");
    }
    return v;
  }

  /** Writes {@code v} as a little-endian 32-bit number at {@code pos}. */
  static void putU32(byte[] p, int pos, int v) {
    p[pos] = (byte) v;
    p[pos + 1] = (byte) (v >>> 8);
    p[pos + 2] = (byte) (v >>> 16);
    p[pos + 3] = (byte) (v >>> 24);
  }

  /** Reads a big-endian 64-bit double at {@code pos}. */
  static double dbl(byte[] p, int pos) {
    if (pos < 0 || pos > p.length - 8) {
      throw new IllegalArgumentException("payload truncated");
    }
    long bits = 0;
    for (int i = 0; i < 8; i++) {
      bits = bits << 8 | (p[pos + i] & 0xFF);
    }
    double d = Double.longBitsToDouble(bits);
    if (Double.isNaN(d)) {
      throw new IllegalArgumentException("NaN score");
    }
    return d;
  }

  /** Writes {@code d} as a big-endian 64-bit double at {@code pos}; returns the position after. */
  static int putDbl(byte[] p, int pos, double d) {
    long bits = Double.doubleToRawLongBits(d);
    for (int i = 7; i >= 0; i--) {
      p[pos + i] = (byte) bits;
      bits >>>= 8;
    }
    return pos + 8;
  }

  /**
   * Reads a varint count that must fit the remaining bytes at {@code minEach} bytes an item.
   *
   * @param cursor the position, advanced past the varint
   */
  static int count(byte[] p, long[] cursor, int minEach) {
    long n = Varint.read(p, cursor);
    if (n > (p.length - cursor[0]) / Math.max(1, minEach) || n > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("count larger than its payload");
    }
    return (int) n;
  }

  /**
   * Reads a length-prefixed string's length at {@code cursor[0]}, checks it fits before {@code
   * end}, and leaves the cursor at the string's first byte.
   */
  static int chunkLength(byte[] p, long[] cursor, int end) {
    long length = Varint.read(p, cursor);
    if (cursor[0] > end || length > end - cursor[0]) {
      throw new IllegalArgumentException("string longer than its payload");
    }
    return (int) length;
  }

  /** Writes a length-prefixed string; returns the position after. */
  static int putChunk(byte[] out, int pos, byte[] b) {
    pos = Varint.write(out, pos, b.length);
    System.arraycopy(b, 0, out, pos, b.length);
    return pos + b.length;
  }

  /** The bytes {@link #putChunk} takes for {@code b}. */
  static int chunkSize(byte[] b) {
    return Varint.size(b.length) + b.length;
  }
}
