package dev.larder.wal;

import java.io.Serial;
import java.nio.file.Path;

/** Thrown when a log directory is already open in this or another process. */
public final class LogDirectoryLockedException extends IllegalStateException {

  @Serial private static final long serialVersionUID = 1L;

  /**
   * @param directory the directory whose lock file is held
   */
  public LogDirectoryLockedException(Path directory) {
    super(
        "log directory "
            + directory
            + " is in use: its lock file "
            + directory.resolve("lock")
            + " is held by another process (or another open log in this one)");
  }
}
