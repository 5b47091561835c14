package dev.larder.server.internal.keyspace;

/**
 * Unsigned LEB128 varints of non-negative longs, as the value layout and the server log write them:
 * 7 bits a byte, low group first, the high bit set on every byte but the last.
 */
public final class Varint {
  private Varint() {}

  /**
   * Returns the bytes its varint takes.
   *
   * @param value a non-negative number
   */
  public static int size(long value) {
    int size = 1;
    while ((value >>>= 7) != 0) {
      size++;
    }
    return size;
  }

  /**
   * Returns the position after it.
   *
   * @param out the buffer, with room for {@link #size} bytes at {@code pos}
   * @param pos where to write
   * @param value a non-negative number
   */
  public static int write(byte[] out, int pos, long value) {
    while ((value & ~0x7FL) != 0) {
      out[pos++] = (byte) ((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    out[pos++] = (byte) value;
    return pos;
  }

  /**
   * Reads at {@code cursor[0]} and advances it.
   *
   * @param in the bytes
   * @param cursor the position, advanced past the varint
   * @return the number
   * @throws IllegalArgumentException if the varint is truncated or longer than 63 bits
   */
  public static long read(byte[] in, long[] cursor) {
    long result = 0;
    for (int shift = 0; shift < 63; shift += 7) {
      int pos = (int) cursor[0];
      if (pos >= in.length) {
        throw new IllegalArgumentException("truncated varint");
      }
      int b = in[pos] & 0xFF;
      cursor[0] = pos + 1L;
      result |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return result;
      }
    }
    throw new IllegalArgumentException("varint longer than 63 bits");
  }
}
