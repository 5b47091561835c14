package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link ScanCursor}'s member hash: a range of an array hashes as the same bytes alone. */
class ScanCursorTest {
  @Test
  void aRangeHashesAsItsBytesCopiedOut() {
    Random random = new Random(2026_12_01L);
    for (int round = 0; round < 2_000; round++) {
      byte[] array = new byte[random.nextInt(80)];
      random.nextBytes(array); // negative bytes too: hashed signed, as Arrays.hashCode does
      int from = array.length == 0 ? 0 : random.nextInt(array.length + 1);
      int to = from + random.nextInt(array.length - from + 1);
      assertEquals(
          ScanCursor.hash(Arrays.copyOfRange(array, from, to)),
          ScanCursor.hash(array, from, to),
          "bytes " + from + " to " + to + " of " + array.length);
    }
  }
}
