package dev.larder.wal.internal;

import dev.larder.wal.LogFile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * The byte layout of a checkpoint file (format version 1; docs/spec/checkpoint.md).
 *
 * <pre>
 * checkpoint file  checkpoint-&lt;16 hex digits: sequence&gt;.ckp
 *  0   8 bytes  magic "LRDRCKP\0"
 *  8   u32      version (1)
 * 12   u32      reserved (0)
 * 16   u64      sequence: the state of every commit with a sequence up to this one, no later one
 * 24   entries, each: u32 length n (0 .. 2^31-2), then n bytes (opaque to the log)
 *      trailer: u32 0xFFFFFFFF, u64 entry count, u32 CRC32C of every byte before this field
 * </pre>
 *
 * All integers big-endian. A file is complete only if its trailer is present, its count matches and
 * its checksum holds; it is written as {@code .tmp}, forced, then renamed, so a complete name with
 * an incomplete body means damage, not a crash.
 */
public final class CheckpointLayout {

  /** Checkpoint magic. */
  private static final byte[] MAGIC = {'L', 'R', 'D', 'R', 'C', 'K', 'P', 0};

  /** Format version. */
  public static final int VERSION = 1;

  /** Header size. */
  public static final int HEADER_BYTES = 24;

  private static final int END_MARK = 0xFFFFFFFF;

  private CheckpointLayout() {}

  /** Streams a checkpoint into a file, buffering and checksumming as it goes. Single-threaded. */
  public static final class Writer {
    private final LogFile file;
    private final CRC32C crc = new CRC32C();
    private final byte[] buffer = new byte[1 << 16];
    private int buffered;
    private long position;
    private long count;

    /**
     * @param file an empty file
     * @param sequence the checkpoint's sequence
     * @throws IOException on failure
     */
    public Writer(LogFile file, long sequence) throws IOException {
      this.file = file;
      byte[] header = new byte[HEADER_BYTES];
      System.arraycopy(MAGIC, 0, header, 0, MAGIC.length);
      RecordLayout.putInt(header, 8, VERSION);
      RecordLayout.putLong(header, 16, sequence);
      put(header, 0, header.length);
    }

    /**
     * Writes one entry.
     *
     * @param entry one entry's bytes
     * @throws IOException on failure
     */
    public void add(byte[] entry) throws IOException {
      byte[] length = new byte[4];
      RecordLayout.putInt(length, 0, entry.length);
      put(length, 0, 4);
      put(entry, 0, entry.length);
      count++;
    }

    /**
     * Writes the trailer and forces the file.
     *
     * @return the entry count
     * @throws IOException on failure
     */
    public long finish() throws IOException {
      byte[] trailer = new byte[12];
      RecordLayout.putInt(trailer, 0, END_MARK);
      RecordLayout.putLong(trailer, 4, count);
      put(trailer, 0, trailer.length);
      byte[] sum = new byte[4];
      RecordLayout.putInt(sum, 0, (int) crc.getValue());
      flush();
      file.write(position, sum, 0, 4);
      file.force();
      return count;
    }

    private void put(byte[] bytes, int offset, int length) throws IOException {
      crc.update(bytes, offset, length);
      int at = offset;
      int left = length;
      while (left > 0) {
        if (buffered == buffer.length) {
          flush();
        }
        int n = Math.min(left, buffer.length - buffered);
        System.arraycopy(bytes, at, buffer, buffered, n);
        buffered += n;
        at += n;
        left -= n;
      }
    }

    private void flush() throws IOException {
      file.write(position, buffer, 0, buffered);
      position += buffered;
      buffered = 0;
    }
  }

  /**
   * Reads a checkpoint, checking it whole before handing out any entry.
   *
   * @param file the file
   * @param name its name, for messages
   * @param entries receives each entry, in order, only if the file is complete and intact
   * @return the checkpoint's sequence and entry count
   * @throws CheckpointDamage if the file is incomplete or fails its checksum
   * @throws IOException on failure
   */
  public static long[] read(LogFile file, String name, Consumer<byte[]> entries)
      throws IOException {
    // One pass: the entries are held until the trailer has been checked, rather than the file
    // read twice (once to check, once to hand out), which a restart of a large checkpoint pays.
    List<byte[]> held = new ArrayList<>();
    long[] result = scan(file, name, file.size(), held::add);
    held.forEach(entries);
    return result;
  }

  private static long[] scan(LogFile file, String name, long size, Consumer<byte[]> entries)
      throws IOException {
    CRC32C crc = new CRC32C();
    byte[] header = readExactly(file, 0, HEADER_BYTES, size, name);
    for (int i = 0; i < MAGIC.length; i++) {
      if (header[i] != MAGIC[i]) {
        throw new CheckpointDamage(name, 0, "not a Larder checkpoint (bad magic)");
      }
    }
    if (RecordLayout.getInt(header, 8) != VERSION) {
      throw new CheckpointDamage(
          name, 8, "unsupported checkpoint version " + RecordLayout.getInt(header, 8));
    }
    crc.update(header);
    long sequence = RecordLayout.getLong(header, 16);
    long position = HEADER_BYTES;
    long count = 0;
    while (true) {
      byte[] length = readExactly(file, position, 4, size, name);
      crc.update(length);
      int n = RecordLayout.getInt(length, 0);
      if (n == END_MARK) {
        byte[] tail = readExactly(file, position + 4, 12, size, name);
        crc.update(tail, 0, 8);
        long declared = RecordLayout.getLong(tail, 0);
        if (declared != count || (int) crc.getValue() != RecordLayout.getInt(tail, 8)) {
          throw new CheckpointDamage(name, position, "checksum or entry count mismatch");
        }
        if (position + 16 != size) {
          throw new CheckpointDamage(name, position + 16, "bytes after the trailer");
        }
        return new long[] {sequence, count};
      }
      if (n < 0 || n > size - position - 4) {
        throw new CheckpointDamage(name, position, "entry length " + n + " out of range");
      }
      byte[] entry = readExactly(file, position + 4, n, size, name);
      crc.update(entry);
      if (entries != null) {
        entries.accept(entry);
      }
      position += 4 + n;
      count++;
    }
  }

  private static byte[] readExactly(LogFile file, long position, int length, long size, String name)
      throws IOException {
    if (position + length > size) {
      throw new CheckpointDamage(name, position, "file ends early");
    }
    byte[] bytes = new byte[length];
    if (file.read(position, bytes, 0, length) != length) {
      throw new CheckpointDamage(name, position, "file ends early");
    }
    return bytes;
  }

  /** A damaged checkpoint file: names the file and the offset. */
  public static final class CheckpointDamage extends IOException {
    @java.io.Serial private static final long serialVersionUID = 1L;

    /** File name. */
    public final String file;

    /** Byte offset. */
    public final long offset;

    CheckpointDamage(String file, long offset, String detail) {
      super(detail);
      this.file = file;
      this.offset = offset;
    }
  }
}
