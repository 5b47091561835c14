package dev.larder.wal;

/**
 * A record's payload that writes itself into the log's buffer, so that an appender need not build a
 * byte array only for the log to copy it ({@link WriteAheadLog#append(long, int, RecordPayload)}).
 * Each method is called once, {@link #length()} first, and they must agree: {@link #writeTo} writes
 * exactly {@link #length()} bytes.
 */
public interface RecordPayload {

  /** Returns the payload's length in bytes. */
  int length();

  /**
   * Writes the payload's bytes.
   *
   * @param out the buffer, with at least {@link #length()} bytes from {@code offset}
   * @param offset where the payload starts
   */
  void writeTo(byte[] out, int offset);
}
