package dev.larder.server.internal.net;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DecimalTest {
  private static String written(long n) {
    ByteBuf out = Unpooled.buffer(1); // too small on purpose: the writer must grow it
    out.writeByte('>');
    Decimal.writeUnsigned(out, n);
    return out.toString(StandardCharsets.US_ASCII);
  }

  @Test
  void writesWhatLongToUnsignedStringWrites() {
    long[] edges = {
      0, 9, 10, 99, 100, Integer.MAX_VALUE, 0xFFFF_FFFFL, Long.MAX_VALUE, Long.MIN_VALUE, -1, -10
    };
    for (long n : edges) {
      assertEquals(">" + Long.toUnsignedString(n), written(n));
    }
    SplittableRandom r = new SplittableRandom(3);
    for (int i = 0; i < 10_000; i++) {
      long n = r.nextLong() >>> r.nextInt(64);
      assertEquals(">" + Long.toUnsignedString(n), written(n));
    }
  }

  private static String signed(long n) {
    ByteBuf out = Unpooled.buffer(1);
    out.writeByte('>');
    Decimal.writeSigned(out, n);
    return out.toString(StandardCharsets.US_ASCII);
  }

  @Test
  void signedFormsAreWhatLongToStringWrites() {
    long[] edges = {
      0,
      9,
      10,
      -1,
      -9,
      -10,
      -11,
      99,
      -100,
      Integer.MIN_VALUE,
      Long.MAX_VALUE,
      Long.MIN_VALUE,
      Long.MIN_VALUE + 1
    };
    for (long n : edges) {
      assertEquals(">" + n, signed(n));
      assertEquals(Long.toString(n), new String(Decimal.ascii(n), StandardCharsets.US_ASCII));
    }
    SplittableRandom r = new SplittableRandom(5);
    for (int i = 0; i < 10_000; i++) {
      long n = r.nextLong() >> r.nextInt(64);
      assertEquals(">" + n, signed(n));
      assertEquals(Long.toString(n), new String(Decimal.ascii(n), StandardCharsets.US_ASCII));
    }
  }

  @Test
  void putsAnIntsDigitsInPlace() {
    byte[] a = new byte[14];
    SplittableRandom r = new SplittableRandom(11);
    for (int i = 0; i < 10_000; i++) {
      int n =
          i < 3
              ? new int[] {0, 9, Integer.MAX_VALUE}[i]
              : (r.nextInt() & Integer.MAX_VALUE) >>> r.nextInt(31);
      int end = Decimal.put(a, 2, n);
      assertEquals(Integer.toString(n), new String(a, 2, end - 2, StandardCharsets.US_ASCII));
    }
  }
}
