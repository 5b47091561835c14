package dev.larder.codec;

import java.util.Arrays;

/**
 * A growable byte buffer that codecs append to. Multi-byte fixed-width values are written
 * little-endian; variable-length integers use LEB128 (7 bits a byte, high bit = more), and {@link
 * #writeZigZagLong} maps signed values to unsigned first so small negatives stay short.
 *
 * <p>Not thread-safe: one sink belongs to one encoding call at a time. Larder reuses sinks per
 * thread, so codecs must not keep references to a sink after {@code encode} returns.
 */
public final class ByteSink {

  private static final int MAX_CAPACITY = Integer.MAX_VALUE - 16;

  private byte[] buffer;
  private int size;

  /** Creates an empty sink with a small initial capacity. */
  public ByteSink() {
    this(64);
  }

  /**
   * @param initialCapacity starting capacity in bytes; must be positive
   * @throws IllegalArgumentException if {@code initialCapacity} is not positive
   */
  public ByteSink(int initialCapacity) {
    if (initialCapacity <= 0) {
      throw new IllegalArgumentException("initialCapacity must be positive: " + initialCapacity);
    }
    buffer = new byte[initialCapacity];
  }

  /** Discards the content, keeping the capacity. */
  public void reset() {
    size = 0;
  }

  /** Returns the number of bytes written since the last reset. */
  public int size() {
    return size;
  }

  /** Returns the internal array; only the first {@link #size()} bytes are meaningful. */
  public byte[] array() {
    return buffer;
  }

  /** Returns a copy of the bytes written. */
  public byte[] toByteArray() {
    return Arrays.copyOf(buffer, size);
  }

  /**
   * Appends one byte.
   *
   * @param b the byte to append (low 8 bits)
   */
  public void writeByte(int b) {
    ensure(1);
    buffer[size++] = (byte) b;
  }

  /**
   * Appends every byte of an array.
   *
   * @param bytes the bytes to append
   */
  public void writeBytes(byte[] bytes) {
    writeBytes(bytes, 0, bytes.length);
  }

  /**
   * Appends a range of an array.
   *
   * @param bytes source array
   * @param offset first byte to copy
   * @param length number of bytes
   */
  public void writeBytes(byte[] bytes, int offset, int length) {
    ensure(length);
    System.arraycopy(bytes, offset, buffer, size, length);
    size += length;
  }

  /**
   * Appends {@code s} one byte a char if every char is ASCII (below 0x80), without an intermediate
   * array; appends nothing otherwise.
   *
   * @param s the text
   * @return whether it was ASCII and appended
   */
  public boolean writeAsciiIfAscii(String s) {
    int n = s.length();
    ensure(n);
    byte[] b = buffer;
    int at = size;
    int seen = 0;
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      seen |= c;
      b[at + i] = (byte) c;
    }
    if (seen >= 0x80) {
      // the bytes past size are not part of the sink's content: nothing was appended
      return false;
    }
    size = at + n;
    return true;
  }

  /**
   * Appends a 16-bit value.
   *
   * @param v written as 2 bytes, little-endian
   */
  public void writeShort(int v) {
    ensure(2);
    buffer[size] = (byte) v;
    buffer[size + 1] = (byte) (v >>> 8);
    size += 2;
  }

  /**
   * Appends a 32-bit value.
   *
   * @param v written as 4 bytes, little-endian
   */
  public void writeInt(int v) {
    ensure(4);
    ByteOrderAccess.putInt(buffer, size, v);
    size += 4;
  }

  /**
   * Appends a 64-bit value.
   *
   * @param v written as 8 bytes, little-endian
   */
  public void writeLong(long v) {
    ensure(8);
    ByteOrderAccess.putLong(buffer, size, v);
    size += 8;
  }

  /**
   * Appends an unsigned long as a varint.
   *
   * @param v an unsigned value written as 1-10 bytes (LEB128)
   */
  public void writeVarLong(long v) {
    ensure(10);
    while ((v & ~0x7FL) != 0) {
      buffer[size++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buffer[size++] = (byte) v;
  }

  /**
   * Appends an unsigned int as a varint.
   *
   * @param v an unsigned value written as 1-5 bytes (LEB128)
   */
  public void writeVarInt(int v) {
    writeVarLong(v & 0xFFFFFFFFL);
  }

  /**
   * Appends a signed long as a zig-zag varint.
   *
   * @param v a signed value, zig-zag mapped then written as a varint
   */
  public void writeZigZagLong(long v) {
    writeVarLong((v << 1) ^ (v >> 63));
  }

  private void ensure(int extra) {
    int needed = size + extra;
    if (needed < 0 || needed > MAX_CAPACITY) {
      throw new CodecException("encoded value exceeds " + MAX_CAPACITY + " bytes");
    }
    if (needed > buffer.length) {
      int grown = (int) Math.min(MAX_CAPACITY, Math.max(needed, (long) buffer.length * 2));
      buffer = Arrays.copyOf(buffer, grown);
    }
  }
}
