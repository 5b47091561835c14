package dev.larder.server.internal.keyspace;

/** Unsigned LEB128 varints of non-negative longs, as the value layout writes them. */
final class Varint {
  private Varint() {}

  static int size(long value) {
    int size = 1;
    while ((value >>>= 7) != 0) {
      size++;
    }
    return size;
  }

  static int write(byte[] out, int pos, long value) {
    while ((value & ~0x7FL) != 0) {
      out[pos++] = (byte) ((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    out[pos++] = (byte) value;
    return pos;
  }

  /** Reads at cursor[0] and advances it; refuses truncated or over-long varints. */
  static long read(byte[] in, long[] cursor) {
    long result = 0;
    for (int shift = 0; shift < 63; shift += 7) {
      int pos = (int) cursor[0];
      if (pos >= in.length) {
        throw new IllegalArgumentException("truncated varint");
      }
      int b = in[pos] & 0xFF;
      cursor[0] = pos + 1;
      result |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return result;
      }
    }
    throw new IllegalArgumentException("varint longer than 63 bits");
  }
}
