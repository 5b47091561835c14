package dev.larder.wal;

import java.io.Serial;
import java.nio.file.Path;

/**
 * Thrown by recovery when files of the log are missing: a segment between two others, the newest
 * segments, the first segments, or the checkpoint that covered the log before the first segment
 * present. The message names the missing files and the sequences lost; {@link #file()} is the first
 * missing file. Opening with salvage recovers the rest and reports the same in {@link
 * RecoveryReport#problems()}.
 */
public final class LogGapException extends LogCorruptedException {

  @Serial private static final long serialVersionUID = 1L;

  /**
   * @param directory the log directory
   * @param file the first missing file's name
   * @param detail what is missing and which sequences are lost
   */
  public LogGapException(Path directory, String file, String detail) {
    super(
        "log incomplete in "
            + directory
            + ": "
            + detail
            + " (open with salvage to recover "
            + "the rest, reporting the loss)",
        file,
        0);
  }
}
