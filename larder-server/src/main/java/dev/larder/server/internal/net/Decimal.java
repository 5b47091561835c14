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
    int digits = digits(n);
    out.ensureWritable(digits);
    int at = out.writerIndex() + digits;
    out.writerIndex(at);
    for (int i = at - 1; i >= at - digits; i--) {
      out.setByte(i, (int) ('0' + Long.remainderUnsigned(n, 10)));
      n = Long.divideUnsigned(n, 10);
    }
  }

  private static int digits(long n) {
    int digits = 1;
    for (long p = Long.divideUnsigned(n, 10); p != 0; p /= 10) {
      digits++;
    }
    return digits;
  }
}
