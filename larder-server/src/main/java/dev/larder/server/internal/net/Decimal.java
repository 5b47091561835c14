package dev.larder.server.internal.net;

import io.netty.buffer.ByteBuf;

/**
 * Writes numbers in ASCII decimal straight into a reply buffer, without building a {@code String}:
 * both protocols write a length or two per reply. Stateless and thread-safe.
 */
public final class Decimal {
  private Decimal() {}

  /**
   * Writes {@code n} as an unsigned decimal (so a negative {@code long} is written as the value it
   * has read unsigned, as memcached's 64-bit CAS uniques and counters are).
   *
   * @param out the buffer, which grows as needed
   * @param n the number
   */
  public static void writeUnsigned(ByteBuf out, long n) {
    if (n >= 0 && n < 10) {
      out.writeByte((int) ('0' + n));
      return;
    }
    if (n < 0) {
      // Above Long.MAX_VALUE read unsigned: its last digit first, then the rest, now signed.
      long rest = Long.divideUnsigned(n, 10);
      writeNonNegative(out, rest);
      out.writeByte((int) ('0' + (n - rest * 10)));
      return;
    }
    writeNonNegative(out, n);
  }

  /**
   * Writes {@code n} as a signed decimal, with a minus sign if negative.
   *
   * @param out the buffer, which grows as needed
   * @param n the number
   */
  public static void writeSigned(ByteBuf out, long n) {
    if (n >= 0) {
      writeNonNegative(out, n);
    } else if (n == Long.MIN_VALUE) {
      out.writeByte('-');
      writeUnsigned(out, n);
    } else {
      out.writeByte('-');
      writeNonNegative(out, -n);
    }
  }

  /**
   * Returns the ASCII decimal of {@code n}, signed: the bytes {@code Long.toString(n)} encodes,
   * without the {@code String} in between.
   *
   * @param n the number
   * @return a new array
   */
  public static byte[] ascii(long n) {
    boolean negative = n < 0;
    int digits = n == Long.MIN_VALUE ? 19 : digits(Math.abs(n));
    byte[] b = new byte[digits + (negative ? 1 : 0)];
    long rest = n;
    for (int i = b.length - 1; i >= (negative ? 1 : 0); i--) {
      // the remainder of a negative number is negative: its digit is its magnitude
      b[i] = (byte) ('0' + Math.abs(rest % 10));
      rest /= 10;
    }
    if (negative) {
      b[0] = '-';
    }
    return b;
  }

  /**
   * Puts a non-negative int's ASCII decimal into an array.
   *
   * @param a the array, with room for the digits (at most 10) from {@code at}
   * @param at where the first digit goes
   * @param n the number, at least 0
   * @return the index after the last digit
   */
  public static int put(byte[] a, int at, int n) {
    int end = at + digits(n);
    for (int i = end - 1; i >= at; i--) {
      a[i] = (byte) ('0' + n % 10);
      n /= 10;
    }
    return end;
  }

  private static void writeNonNegative(ByteBuf out, long n) {
    int digits = digits(n);
    out.ensureWritable(digits);
    int at = out.writerIndex() + digits;
    out.writerIndex(at);
    for (int i = at - 1; i >= at - digits; i--) {
      out.setByte(i, (int) ('0' + n % 10));
      n /= 10;
    }
  }

  /** The number of decimal digits of a non-negative n. */
  private static int digits(long n) {
    int digits = 1;
    for (long p = n / 10; p != 0; p /= 10) {
      digits++;
    }
    return digits;
  }
}
