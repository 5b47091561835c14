package dev.larder.wal;

import java.io.Serial;

/**
 * Thrown by recovery when a record before the tail of the log fails its checksum (or a checkpoint
 * file is damaged) and salvage was not asked for. Names the file and the byte offset. Its one
 * subclass, {@link LogGapException}, is thrown when files of the log are missing.
 */
public sealed class LogCorruptedException extends RuntimeException permits LogGapException {

  @Serial private static final long serialVersionUID = 1L;

  private final String file;
  private final long offset;

  /**
   * @param file the damaged file's name
   * @param offset byte offset of the damaged record
   * @param detail what is wrong
   */
  public LogCorruptedException(String file, long offset, String detail) {
    this(
        "log corrupted in "
            + file
            + " at offset "
            + offset
            + ": "
            + detail
            + " (open with salvage to recover what precedes and follows it, reporting the loss)",
        file,
        offset);
  }

  LogCorruptedException(String message, String file, long offset) {
    super(message);
    this.file = file;
    this.offset = offset;
  }

  /** Returns the damaged (or, for {@link LogGapException}, the first missing) file's name. */
  public String file() {
    return file;
  }

  /** Returns the byte offset of the damaged record; 0 for {@link LogGapException}. */
  public long offset() {
    return offset;
  }
}
