package dev.larder.client.internal;

import java.io.ByteArrayOutputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * Unsigned LEB128 varints (7 bits a byte, low bits first, high bit set on every byte but the last),
 * and zigzag for signed values: the lengths, counts, stamps and integers of the near cache's keys
 * and values.
 */
public final class Varint {
  private Varint() {}

  /** Appends {@code value}, taken as unsigned. */
  public static void write(ByteArrayOutputStream out, long value) {
    long v = value;
    while ((v & ~0x7FL) != 0) {
      out.write((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }

  /** Appends a signed value, zigzag-encoded so that small negative numbers stay short. */
  public static void writeSigned(ByteArrayOutputStream out, long value) {
    write(out, (value << 1) ^ (value >> 63));
  }

  /**
   * Reads an unsigned varint.
   *
   * @throws IllegalArgumentException if it runs past ten bytes
   * @throws BufferUnderflowException if the buffer ends inside it
   */
  public static long read(ByteBuffer in) {
    long result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      byte b = in.get();
      result |= (long) (b & 0x7F) << shift;
      if (b >= 0) {
        return result;
      }
    }
    throw new IllegalArgumentException("a varint longer than ten bytes");
  }

  /** Reads a zigzag-encoded signed varint. */
  public static long readSigned(ByteBuffer in) {
    long v = read(in);
    return (v >>> 1) ^ -(v & 1);
  }

  /**
   * Reads a length or count that must fit in what remains of {@code in}, each unit taking at least
   * {@code minBytesEach} bytes: so that damaged bytes can never make the decoder allocate more than
   * the value it decodes.
   *
   * @throws IllegalArgumentException if the count cannot fit
   */
  public static int readCount(ByteBuffer in, int minBytesEach) {
    long n = read(in);
    if (n < 0 || n > in.remaining() / minBytesEach) {
      throw new IllegalArgumentException(
          "a count of " + n + " with " + in.remaining() + " bytes left");
    }
    return (int) n;
  }
}
