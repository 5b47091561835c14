package dev.larder.tx.internal;

/**
 * The value bytes a transactional cache stores: the commit sequence that wrote the value, then the
 * value codec's bytes (docs/design/transactions.md, docs/spec/wal.md).
 *
 * <pre>
 * +------------------------------+---------------------------+
 * | sequence, unsigned LEB128    | value codec bytes         |
 * | (1-9 bytes: 7 bits a byte,   |                           |
 * |  high bit = more)            |                           |
 * +------------------------------+---------------------------+
 * </pre>
 *
 * Only transactional caches pay for the prefix: typically 2-4 bytes an entry.
 */
public final class StoredValue {

  private StoredValue() {}

  /**
   * Returns the stored bytes.
   *
   * @param sequence the commit sequence, non-negative
   * @param value the encoded value
   */
  public static byte[] wrap(long sequence, byte[] value) {
    return wrap(sequence, value, value.length);
  }

  /**
   * Returns the stored bytes.
   *
   * @param sequence the commit sequence, non-negative
   * @param value holds the encoded value from offset 0
   * @param length the encoded value's length
   */
  public static byte[] wrap(long sequence, byte[] value, int length) {
    int prefix = prefixLength(sequence);
    byte[] out = new byte[prefix + length];
    long v = sequence;
    int i = 0;
    while ((v & ~0x7FL) != 0) {
      out[i++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    out[i] = (byte) v;
    System.arraycopy(value, 0, out, prefix, length);
    return out;
  }

  /**
   * Returns the commit sequence that wrote them.
   *
   * @param stored stored bytes
   * @throws IllegalArgumentException if the prefix is malformed
   */
  public static long sequence(byte[] stored) {
    long result = 0;
    for (int i = 0, shift = 0; i < stored.length && shift < 64; i++, shift += 7) {
      result |= (long) (stored[i] & 0x7F) << shift;
      if ((stored[i] & 0x80) == 0) {
        return result;
      }
    }
    throw new IllegalArgumentException("malformed sequence prefix in a stored value");
  }

  /**
   * Returns where the value codec's bytes start.
   *
   * @param stored stored bytes
   */
  public static int valueOffset(byte[] stored) {
    int i = 0;
    while (i < stored.length && (stored[i] & 0x80) != 0) {
      i++;
    }
    return i + 1;
  }

  private static int prefixLength(long sequence) {
    int n = 1;
    long v = sequence >>> 7;
    while (v != 0) {
      n++;
      v >>>= 7;
    }
    return n;
  }
}
