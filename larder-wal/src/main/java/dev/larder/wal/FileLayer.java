package dev.larder.wal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The file operations the log needs, so that tests can put a simulated disk underneath (one that
 * drops, reorders or tears the writes not yet forced when the "power" is cut). {@link #standard()}
 * is the real file system.
 *
 * <p>Contract the log relies on: {@link #writeAtomically} and {@link #delete} are durable when they
 * return; writes through a {@link LogFile} are durable only after its {@code force}.
 */
public interface FileLayer {

  /**
   * Returns the real file system; files are written through {@code RandomAccessFile}, whose I/O
   * ignores interrupts, and read at positions through a read-only channel, from any number of
   * threads at once; an interrupt fails no read (the channel it closes is opened again).
   */
  static FileLayer standard() {
    return new dev.larder.wal.internal.NioFileLayer();
  }

  /**
   * Opens (creating if absent) a file for reading and writing. A file created here has a durable
   * directory entry when this returns.
   *
   * @param file the path
   * @return the open file
   * @throws IOException on failure
   */
  LogFile open(Path file) throws IOException;

  /**
   * Returns the names of the regular files in it, sorted.
   *
   * @param directory a directory, created if absent
   * @throws IOException on failure
   */
  List<String> list(Path directory) throws IOException;

  /**
   * Renames {@code from} to {@code to} (replacing it) atomically and durably: after a crash the
   * target holds either its old content or all of {@code from}'s forced content.
   *
   * @param from the source
   * @param to the target
   * @throws IOException on failure
   */
  void rename(Path from, Path to) throws IOException;

  /**
   * Replaces {@code file} with {@code content} so that after a crash it holds either the old or the
   * new content, never a mix: writes a temporary file beside it, forces it, renames it.
   *
   * @param file the target
   * @param content the new content
   * @throws IOException on failure
   */
  default void writeAtomically(Path file, byte[] content) throws IOException {
    Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
    delete(temporary);
    try (LogFile out = open(temporary)) {
      out.write(0, content, 0, content.length);
      out.force();
    }
    rename(temporary, file);
  }

  /**
   * Deletes a file durably; absent files are ignored.
   *
   * @param file the path
   * @throws IOException on failure
   */
  void delete(Path file) throws IOException;

  /**
   * Takes the exclusive lock of a directory for this process.
   *
   * @param directory the log directory
   * @return a handle that releases the lock when closed
   * @throws LogDirectoryLockedException if another process, or another log in this process, holds
   *     it
   * @throws IOException on failure
   */
  AutoCloseable lock(Path directory) throws IOException;
}
