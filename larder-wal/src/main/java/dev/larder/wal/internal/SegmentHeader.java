package dev.larder.wal.internal;

import java.util.zip.CRC32C;

/**
 * The header that opens every log segment (docs/spec/wal.md). Format 2 writes it; formats 1 and 2
 * are read.
 *
 * <pre>
 * format 2, 32 bytes, written and forced when the segment is created
 *  0   8 bytes  magic "LRDRWAL\0"
 *  8   u32      version (2)
 * 12   u32      CRC32C of bytes 16..31
 * 16   u64      segment number (the number in the file's name)
 * 24   u64      previous sequence: the highest sequence appended to the log before this segment
 *               was started (0 for a new log); its first record, if any, follows it
 *
 * format 1, 16 bytes
 *  0   8 bytes  magic "LRDRWAL\0"
 *  8   u32      version (1)
 * 12   u32      reserved (0)
 * </pre>
 *
 * <p>The previous sequence is what lets recovery tell that a segment, or the checkpoint before the
 * first one, is missing: each segment must begin where the one before it ended, and the first where
 * the checkpoint (or the log, at 0) begins. A format-1 header does not say, so those checks cannot
 * be made at a format-1 segment.
 *
 * @param version the format, 1 or 2
 * @param number the segment number; -1 in format 1, which does not record it
 * @param previousSequence the sequence before the segment's first record; -1 in format 1
 */
public record SegmentHeader(int version, long number, long previousSequence) {

  /** Segment magic, both formats. */
  private static final byte[] MAGIC = {'L', 'R', 'D', 'R', 'W', 'A', 'L', 0};

  /** The format written. */
  public static final int VERSION = 2;

  /** Size of the header written (format 2). */
  public static final int BYTES = 32;

  /** Size of a format-1 header. */
  public static final int V1_BYTES = 16;

  /**
   * Returns a format-2 header.
   *
   * @param number the segment number
   * @param previousSequence the highest sequence in the log before the segment
   */
  public static byte[] encode(long number, long previousSequence) {
    byte[] h = new byte[BYTES];
    System.arraycopy(MAGIC, 0, h, 0, MAGIC.length);
    RecordLayout.putInt(h, 8, VERSION);
    RecordLayout.putLong(h, 16, number);
    RecordLayout.putLong(h, 24, previousSequence);
    RecordLayout.putInt(h, 12, checksum(h));
    return h;
  }

  /** Returns where the first record starts in a segment of this header's format. */
  public int size() {
    return version == 1 ? V1_BYTES : BYTES;
  }

  /** Returns true if the header says where the segment begins (format 2). */
  public boolean knowsPrevious() {
    return version >= 2;
  }

  /**
   * Reads a header.
   *
   * @param bytes the file's first bytes
   * @param length how many of them the file has
   * @return the header
   * @throws Damage if the bytes are not a whole, intact header of a known format
   */
  public static SegmentHeader decode(byte[] bytes, int length) throws Damage {
    if (length < V1_BYTES) {
      throw new Damage(true, 0, "file shorter than its header (" + length + " bytes)");
    }
    for (int i = 0; i < MAGIC.length; i++) {
      if (bytes[i] != MAGIC[i]) {
        throw new Damage(false, 0, "not a Larder log segment (bad magic)");
      }
    }
    int version = RecordLayout.getInt(bytes, 8);
    if (version == 1) {
      return new SegmentHeader(1, -1, -1);
    }
    if (version != VERSION) {
      throw new Damage(false, 0, "unsupported log format version " + version);
    }
    if (length < BYTES) {
      throw new Damage(true, 0, "file shorter than its header (" + length + " bytes)");
    }
    if (RecordLayout.getInt(bytes, 12) != checksum(bytes)) {
      throw new Damage(false, 0, "segment header fails its checksum");
    }
    return new SegmentHeader(
        version, RecordLayout.getLong(bytes, 16), RecordLayout.getLong(bytes, 24));
  }

  private static int checksum(byte[] header) {
    CRC32C crc = new CRC32C();
    crc.update(header, 16, BYTES - 16);
    return (int) crc.getValue();
  }

  /** A header that cannot be read. */
  public static final class Damage extends Exception {
    @java.io.Serial private static final long serialVersionUID = 1L;

    /** True if the file simply ends inside its header (created, its header never forced). */
    public final boolean incomplete;

    /** Where the damage is reported: the header, at offset 0. */
    public final long offset;

    Damage(boolean incomplete, long offset, String detail) {
      super(detail);
      this.incomplete = incomplete;
      this.offset = offset;
    }
  }
}
