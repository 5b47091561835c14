package dev.larder.wal;

import java.io.Serial;

/**
 * Thrown by recovery when a record before the tail of the log fails its checksum (or a checkpoint
 * file is damaged) and salvage was not asked for. Names the file and the byte offset.
 */
public final class LogCorruptedException extends RuntimeException {

  @Serial private static final long serialVersionUID = 1L;

  private final String file;
  private final long offset;

  /**
   * @param file the damaged file's name
   * @param offset byte offset of the damaged record
   * @param detail what is wrong
   */
  public LogCorruptedException(String file, long offset, String detail) {
    super("log corrupted in " + file + " at offset " + offset + ": " + detail
        + " (open with salvage to recover what precedes and follows it, reporting the loss)");
    this.file = file;
    this.offset = offset;
  }

  /** @return the damaged file's name */
  public String file() {
    return file;
  }

  /** @return the byte offset of the damaged record */
  public long offset() {
    return offset;
  }
}
