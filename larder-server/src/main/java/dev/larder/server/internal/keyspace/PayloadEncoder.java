package dev.larder.server.internal.keyspace;

/**
 * A chunk's or index page's payload not yet in an array: its length, and the writing of its bytes
 * at a position of an array with room for them. {@link ChunkStore#writeChunk(byte[], ValueType,
 * long, int, PayloadEncoder, ChangeSink)} writes it straight after the stored value's header, so
 * the payload is encoded once into the stored bytes instead of into an array of its own that is
 * then copied.
 */
interface PayloadEncoder {
  /** Returns the payload's length in bytes. */
  int length();

  /**
   * Writes the payload's {@link #length} bytes at {@code pos}.
   *
   * @param out an array with at least that many bytes from {@code pos}
   * @param pos where the payload starts
   */
  void encodeAt(byte[] out, int pos);
}
