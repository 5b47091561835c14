package dev.larder.wal;

import java.io.IOException;

/**
 * One open file of the log, as the {@link FileLayer} presents it. The log writes each segment from
 * one thread at a time (its flusher), so implementations need not be thread-safe for writes, but
 * {@link #size()} may be called from another thread, and {@link #read} from several threads at once
 * (a checkpoint is read in pieces by one thread per core).
 */
public interface LogFile extends AutoCloseable {

  /**
   * Writes {@code length} bytes at {@code position}, extending the file if needed. The bytes may
   * sit in a volatile cache until {@link #force()}.
   *
   * @param position file offset
   * @param bytes source
   * @param offset start in {@code bytes}
   * @param length number of bytes
   * @throws IOException on failure
   */
  void write(long position, byte[] bytes, int offset, int length) throws IOException;

  /**
   * Makes every write so far durable (survives a power cut).
   *
   * @throws IOException on failure
   */
  void force() throws IOException;

  /**
   * Returns the current length.
   *
   * @throws IOException on failure
   */
  long size() throws IOException;

  /**
   * Cuts the file to {@code length} bytes and forces the change.
   *
   * @param length new length
   * @throws IOException on failure
   */
  void truncate(long length) throws IOException;

  /**
   * Reads up to {@code length} bytes at {@code position}.
   *
   * @param position file offset
   * @param target destination
   * @param offset start in {@code target}
   * @param length bytes wanted
   * @return bytes read, fewer at end of file
   * @throws IOException on failure
   */
  int read(long position, byte[] target, int offset, int length) throws IOException;

  @Override
  void close() throws IOException;
}
