package dev.larder.wal.internal;

import java.util.zip.CRC32C;

/**
 * The footer that closes a finished segment (format 2; docs/spec/wal.md): written after its last
 * record, and forced with it, once the next segment exists.
 *
 * <pre>
 *  0   u32  mark 0xFFFFFFFF (a record's length is never above 2^28, so never this)
 *  4   u32  CRC32C of bytes 8..23
 *  8   u64  next segment number (this one's + 1)
 * 16   u64  last sequence: the highest sequence in the log when the segment was finished
 * </pre>
 *
 * <p>A segment is finished when the log rolls to the next one, and at open, when the log starts a
 * new segment after the newest one found. The next segment's header is forced before the footer is
 * written, so a footer proves its successor was created: if that successor is gone, recovery knows
 * the log's newest segments were removed. Only the newest segment has no footer.
 *
 * @param nextSegment the number of the segment that follows
 * @param lastSequence the highest sequence in the log when this segment was finished
 */
public record SegmentFooter(long nextSegment, long lastSequence) {

  /** The footer's size. */
  public static final int BYTES = 24;

  /** The footer's first four bytes, where a record has its length. */
  public static final int MARK = 0xFFFFFFFF;

  /** Returns the footer's bytes. */
  public byte[] encode() {
    byte[] f = new byte[BYTES];
    RecordLayout.putInt(f, 0, MARK);
    RecordLayout.putLong(f, 8, nextSegment);
    RecordLayout.putLong(f, 16, lastSequence);
    RecordLayout.putInt(f, 4, checksum(f, 0));
    return f;
  }

  /**
   * Returns the footer if a whole, intact footer starts at {@code at} and ends the content, else
   * null.
   *
   * @param bytes segment content
   * @param at an offset where a record could start
   * @param end the end of the content
   */
  public static SegmentFooter decodeAt(byte[] bytes, int at, int end) {
    if (end - at != BYTES
        || RecordLayout.getInt(bytes, at) != MARK
        || RecordLayout.getInt(bytes, at + 4) != checksum(bytes, at)) {
      return null;
    }
    return new SegmentFooter(
        RecordLayout.getLong(bytes, at + 8), RecordLayout.getLong(bytes, at + 16));
  }

  private static int checksum(byte[] bytes, int at) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, at + 8, BYTES - 8);
    return (int) crc.getValue();
  }
}
