package dev.larder.wal.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The CRC32C of two pieces joined is the CRC32C of the bytes end to end. */
class Crc32cCombineTest {

  private static int crc(byte[] b, int from, int to) {
    CRC32C c = new CRC32C();
    c.update(b, from, to - from);
    return (int) c.getValue();
  }

  @Test
  void joinedPiecesGiveTheWholeChecksum() {
    Random random = new Random(33);
    for (int trial = 0; trial < 2_000; trial++) {
      byte[] b = new byte[random.nextInt(5_000)];
      random.nextBytes(b);
      int cut = b.length == 0 ? 0 : random.nextInt(b.length + 1);
      assertEquals(
          crc(b, 0, b.length),
          Crc32cCombine.combine(crc(b, 0, cut), crc(b, cut, b.length), b.length - cut),
          "length " + b.length + " cut at " + cut);
    }
  }

  @Test
  void manyPiecesJoinedInOrder() {
    Random random = new Random(34);
    byte[] b = new byte[1 << 20];
    random.nextBytes(b);
    int sum = 0;
    for (int from = 0; from < b.length; ) {
      int to = Math.min(b.length, from + random.nextInt(70_000));
      sum = Crc32cCombine.combine(sum, crc(b, from, to), to - from);
      from = to;
    }
    assertEquals(crc(b, 0, b.length), sum);
  }

  @Test
  void anEmptyPieceChangesNothing() {
    byte[] b = {1, 2, 3};
    assertEquals(crc(b, 0, 3), Crc32cCombine.combine(crc(b, 0, 3), crc(b, 3, 3), 0));
    assertEquals(crc(b, 0, 3), Crc32cCombine.combine(0, crc(b, 0, 3), 3));
  }
}
