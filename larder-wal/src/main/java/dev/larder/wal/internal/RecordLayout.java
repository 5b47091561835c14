package dev.larder.wal.internal;

import java.util.zip.CRC32C;

/**
 * The byte layout of a log record (format 2, the record itself unchanged since format 1;
 * docs/spec/wal.md). A segment is a {@link SegmentHeader}, records back to back, and, once the
 * segment is finished, a {@link SegmentFooter}.
 *
 * <pre>
 * segment file  log-&lt;16 hex digits: segment number&gt;.wal
 * +------------------------------------------------------------------+
 * | header: 32 bytes in format 2 (16 in format 1), see SegmentHeader |
 * +------------------------------------------------------------------+
 * | record | record | ...                          records, back to back
 * +------------------------------------------------------------------+
 * | footer: 24 bytes, once finished (format 2), see SegmentFooter    |
 * +------------------------------------------------------------------+
 *
 * record
 *  0   u32  length L of the body (17 &lt;= L &lt;= 2^28)
 *  4   u32  CRC32C of the body
 *  8   u64  sequence (strictly increasing along the log)
 * 16   u64  forced end: the offset in this segment up to which the file was known forced
 *           when the record was encoded
 * 24   u8   type (1 = commit, 2 = dictionary addition; the log does not interpret it)
 * 25   L-17 payload
 * </pre>
 *
 * All integers are big-endian. A length of zero means "no record here" (the end of the log, if
 * every remaining byte is zero); a length of 0xFFFFFFFF opens the footer.
 */
public final class RecordLayout {

  /** Bytes before the body: length and checksum. */
  public static final int FRAME_BYTES = 8;

  /** Body bytes before the payload: sequence, forced end, type. */
  public static final int BODY_PREFIX = 17;

  /** Largest body accepted, so that a damaged length cannot make recovery allocate wildly. */
  public static final int MAX_BODY = 1 << 28;

  private RecordLayout() {}

  /**
   * Encodes one record into {@code out} at {@code at}.
   *
   * @param out destination, with at least {@link #size(int)} bytes from {@code at}
   * @param at offset in {@code out}
   * @param sequence the record's sequence
   * @param forcedEnd the forced end of the segment
   * @param type the record type
   * @param payload the payload
   */
  public static void encode(
      byte[] out, int at, long sequence, long forcedEnd, int type, byte[] payload) {
    encode(
        out,
        at,
        sequence,
        forcedEnd,
        type,
        payload.length,
        (buffer, offset) -> System.arraycopy(payload, 0, buffer, offset, payload.length));
  }

  /** Writes a payload into a buffer. */
  @FunctionalInterface
  public interface PayloadWriter {
    /**
     * Writes the payload's bytes.
     *
     * @param out the buffer
     * @param offset where the payload starts
     */
    void writeTo(byte[] out, int offset);
  }

  /**
   * Encodes one record into {@code out} at {@code at}, the payload written by {@code payload}.
   *
   * @param out destination, with at least {@link #size(int)} bytes from {@code at}
   * @param at offset in {@code out}
   * @param sequence the record's sequence
   * @param forcedEnd the forced end of the segment
   * @param type the record type
   * @param payloadLength the payload's length
   * @param payload writes exactly {@code payloadLength} bytes at the offset it is given
   */
  public static void encode(
      byte[] out,
      int at,
      long sequence,
      long forcedEnd,
      int type,
      int payloadLength,
      PayloadWriter payload) {
    int body = BODY_PREFIX + payloadLength;
    putInt(out, at, body);
    putLong(out, at + 8, sequence);
    putLong(out, at + 16, forcedEnd);
    out[at + 24] = (byte) type;
    payload.writeTo(out, at + 25);
    CRC32C crc = new CRC32C();
    crc.update(out, at + FRAME_BYTES, body);
    putInt(out, at + 4, (int) crc.getValue());
  }

  /**
   * Returns the record's size on disk.
   *
   * @param payloadLength payload bytes
   */
  public static int size(int payloadLength) {
    return FRAME_BYTES + BODY_PREFIX + payloadLength;
  }

  /**
   * Returns the record's total size if a whole record with a good checksum starts at {@code at},
   * else -1.
   *
   * @param bytes segment content
   * @param at candidate record offset
   * @param end end of valid content
   */
  public static int validAt(byte[] bytes, int at, int end) {
    if (end - at < FRAME_BYTES + BODY_PREFIX) {
      return -1;
    }
    int body = getInt(bytes, at);
    if (body < BODY_PREFIX || body > MAX_BODY || body > end - at - FRAME_BYTES) {
      return -1;
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, at + FRAME_BYTES, body);
    return (int) crc.getValue() == getInt(bytes, at + 4) ? FRAME_BYTES + body : -1;
  }

  /** Returns the sequence of the record at {@code at}. */
  public static long sequence(byte[] bytes, int at) {
    return getLong(bytes, at + 8);
  }

  /** Returns the forced end of the record at {@code at}. */
  public static long forcedEnd(byte[] bytes, int at) {
    return getLong(bytes, at + 16);
  }

  /** Returns the type of the record at {@code at}. */
  public static int type(byte[] bytes, int at) {
    return bytes[at + 24] & 0xFF;
  }

  /** Returns a copy of the payload of the valid record at {@code at}. */
  public static byte[] payload(byte[] bytes, int at) {
    int body = getInt(bytes, at);
    byte[] p = new byte[body - BODY_PREFIX];
    System.arraycopy(bytes, at + 25, p, 0, p.length);
    return p;
  }

  /** Returns true if every byte of {@code bytes[from, end)} is zero. */
  public static boolean allZero(byte[] bytes, int from, int end) {
    for (int i = from; i < end; i++) {
      if (bytes[i] != 0) {
        return false;
      }
    }
    return true;
  }

  static void putInt(byte[] b, int at, int v) {
    b[at] = (byte) (v >>> 24);
    b[at + 1] = (byte) (v >>> 16);
    b[at + 2] = (byte) (v >>> 8);
    b[at + 3] = (byte) v;
  }

  static void putLong(byte[] b, int at, long v) {
    putInt(b, at, (int) (v >>> 32));
    putInt(b, at + 4, (int) v);
  }

  static int getInt(byte[] b, int at) {
    return ((b[at] & 0xFF) << 24)
        | ((b[at + 1] & 0xFF) << 16)
        | ((b[at + 2] & 0xFF) << 8)
        | (b[at + 3] & 0xFF);
  }

  static long getLong(byte[] b, int at) {
    return ((long) getInt(b, at) << 32) | (getInt(b, at + 4) & 0xFFFFFFFFL);
  }
}
