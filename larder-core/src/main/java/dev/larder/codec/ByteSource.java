package dev.larder.codec;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;

/**
 * A bounded reader over bytes that codecs decode from. Every read checks the bound and throws
 * {@link CodecException} on truncated input, so a decoder built only from these reads cannot read
 * past its input or loop on corrupted bytes. Formats mirror {@link ByteSink}.
 *
 * <p>Not thread-safe: one source belongs to one decoding call at a time.
 */
public final class ByteSource {

  private final byte[] bytes;
  private final int limit;
  private int position;

  /**
   * @param bytes the whole array is the input
   */
  public ByteSource(byte[] bytes) {
    this(bytes, 0, bytes.length);
  }

  /**
   * @param bytes the backing array
   * @param offset where the input starts
   * @param length how many bytes the input has
   * @throws IndexOutOfBoundsException if the range is outside the array
   */
  public ByteSource(byte[] bytes, int offset, int length) {
    java.util.Objects.checkFromIndexSize(offset, length, bytes.length);
    this.bytes = bytes;
    this.position = offset;
    this.limit = offset + length;
  }

  /** Returns bytes left to read. */
  public int remaining() {
    return limit - position;
  }

  /** Returns true if no bytes are left. */
  public boolean exhausted() {
    return position == limit;
  }

  /** Returns the next byte, unsigned (0-255). */
  public int readUnsignedByte() {
    require(1);
    return bytes[position++] & 0xFF;
  }

  /** Returns the next byte, unsigned, without consuming it. */
  public int peekUnsignedByte() {
    require(1);
    return bytes[position] & 0xFF;
  }

  /** Returns the next byte, signed. */
  public byte readByte() {
    require(1);
    return bytes[position++];
  }

  /**
   * Returns a new array holding them.
   *
   * @param length number of bytes; must not exceed {@link #remaining()}
   */
  public byte[] readBytes(int length) {
    require(length);
    byte[] out = java.util.Arrays.copyOfRange(bytes, position, position + length);
    position += length;
    return out;
  }

  /**
   * Copies bytes into a caller's array.
   *
   * @param target destination
   * @param offset first index written
   * @param length bytes to copy
   */
  public void readBytes(byte[] target, int offset, int length) {
    require(length);
    System.arraycopy(bytes, position, target, offset, length);
    position += length;
  }

  /**
   * Reads {@code length} bytes as Latin-1 text (one char a byte) without an intermediate copy.
   *
   * @param length number of bytes; must not exceed {@link #remaining()}
   * @return the string
   */
  public String readLatin1(int length) {
    require(length);
    String s = new String(bytes, position, length, StandardCharsets.ISO_8859_1);
    position += length;
    return s;
  }

  /**
   * Reads {@code length} bytes as UTF-8 text, rejecting malformed input.
   *
   * @param length number of bytes; must not exceed {@link #remaining()}
   * @return the string
   * @throws CodecException if the bytes are not well-formed UTF-8
   */
  public String readUtf8(int length) {
    require(length);
    String s = new String(bytes, position, length, StandardCharsets.UTF_8);
    // The fast decoder replaces malformed input with U+FFFD; only then pay for a strict check.
    if (s.indexOf('\uFFFD') >= 0) {
      checkUtf8(length);
    }
    position += length;
    return s;
  }

  private void checkUtf8(int length) {
    try {
      StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes, position, length));
    } catch (CharacterCodingException e) {
      throw new CodecException("invalid UTF-8 in string", e);
    }
  }

  /** Returns 2 bytes, little-endian, unsigned. */
  public int readUnsignedShort() {
    require(2);
    int v = (bytes[position] & 0xFF) | (bytes[position + 1] & 0xFF) << 8;
    position += 2;
    return v;
  }

  /** Returns 4 bytes, little-endian. */
  public int readInt() {
    require(4);
    int v = ByteOrderAccess.getInt(bytes, position);
    position += 4;
    return v;
  }

  /** Returns 8 bytes, little-endian. */
  public long readLong() {
    require(8);
    long v = ByteOrderAccess.getLong(bytes, position);
    position += 8;
    return v;
  }

  /** Returns an unsigned LEB128 value of at most 10 bytes. */
  public long readVarLong() {
    long result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      int b = readUnsignedByte();
      result |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return result;
      }
    }
    throw new CodecException("varint longer than 10 bytes");
  }

  /** Returns an unsigned LEB128 value that must fit 32 bits. */
  public int readVarInt() {
    long v = readVarLong();
    if ((v >>> 32) != 0) {
      throw new CodecException("varint out of int range: " + Long.toUnsignedString(v));
    }
    return (int) v;
  }

  /**
   * Reads a varint used as a length, and checks it against the bytes that remain, so that a
   * corrupted length can never make a decoder allocate more than the input holds.
   *
   * @param bytesPerUnit the minimum number of input bytes each unit of the length consumes
   * @return the length
   */
  public int readLength(int bytesPerUnit) {
    int length = readVarInt();
    if (length < 0 || (long) length * bytesPerUnit > remaining()) {
      throw new CodecException(
          "declared length "
              + Integer.toUnsignedString(length)
              + " exceeds the "
              + remaining()
              + " bytes remaining");
    }
    return length;
  }

  /** Returns a zig-zag varint as written by {@link ByteSink#writeZigZagLong}. */
  public long readZigZagLong() {
    long v = readVarLong();
    return (v >>> 1) ^ -(v & 1);
  }

  private void require(int n) {
    if (n < 0 || n > limit - position) {
      throw new CodecException("truncated input: need " + n + " bytes, " + remaining() + " left");
    }
  }
}
