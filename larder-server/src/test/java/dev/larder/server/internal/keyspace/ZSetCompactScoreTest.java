package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.larder.server.internal.keyspace.ZSetPayload.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Sorted-set payload encoding 4 (PACKED_COMPACT): its golden bytes, the writer's choice between it
 * and PACKED (the smaller), a round trip of random scores of every kind (bit for bit, -0 and the
 * infinities included), the PACKED bytes earlier servers wrote still read, and malformed compact
 * scores refused.
 */
class ZSetCompactScoreTest {
  private static final HexFormat HEX = HexFormat.of();

  private static Entry e(String member, double score) {
    return new Entry(member.getBytes(StandardCharsets.ISO_8859_1), score);
  }

  @Test
  void goldenBytes() {
    // {a: 1}: encoding 4, count 1, score varint zigzag(1) << 1 = 4, member "a"
    assertEquals("04010401" + "61", HEX.formatHex(ZSetPayload.encode(List.of(e("a", 1)))));
    // {a: -1}: zigzag(-1) << 1 = 2
    assertEquals("04010201" + "61", HEX.formatHex(ZSetPayload.encode(List.of(e("a", -1)))));
    // {a: 1.5, b: 2}: 1.5 escaped (varint 1, then its 8 bytes), 2 compact (8)
    assertEquals(
        "0402" + "01" + "3ff8000000000000" + "0161" + "08" + "0162",
        HEX.formatHex(ZSetPayload.encode(List.of(e("b", 2), e("a", 1.5)))));
    // {a: 1000}: zigzag 2000, << 1 = 4000 = 0xfa0: varint a0 1f
    assertEquals("0401a01f0161", HEX.formatHex(ZSetPayload.encode(List.of(e("a", 1000)))));
    // {a: 1.5} alone stays PACKED (9 bytes compact against 8), as ValueLayoutTest's example
    assertEquals(
        "0001" + "3ff8000000000000" + "0161",
        HEX.formatHex(ZSetPayload.encode(List.of(e("a", 1.5)))));
    // a DUMP carries PACKED whatever the scores
    assertEquals(
        "0001" + "3ff0000000000000" + "0161",
        HEX.formatHex(ZSetPayload.encodeWide(List.of(e("a", 1)))));
  }

  @Test
  void packedWrittenByEarlierServersIsStillRead() {
    byte[] old = HEX.parseHex("0002" + "3ff0000000000000" + "0161" + "4000000000000000" + "0162");
    ZSetPayload.View v = ZSetPayload.view(old);
    assertEquals(2, v.size());
    assertEquals(1.0, v.score(0));
    assertEquals(2.0, v.score(1));
    assertEquals(1, v.rank(new byte[] {'b'}));
    byte[] next = ZSetPayload.put(old, new byte[] {'c'}, 3);
    assertEquals(ZSetPayload.PACKED_COMPACT, next[0], "the next change writes it compact");
    assertEquals(List.of(1.0, 2.0, 3.0), scores(next));
  }

  @Test
  void randomScoresRoundTripBitForBit() {
    Random r = new Random(37);
    for (int trial = 0; trial < 2_000; trial++) {
      List<Entry> entries = new ArrayList<>();
      int n = 1 + r.nextInt(ZSetPayload.PACKED_MAX);
      for (int i = 0; i < n; i++) {
        entries.add(e("m" + i, score(r)));
      }
      byte[] p = ZSetPayload.encode(entries);
      byte[] wide = ZSetPayload.encodeWide(entries);
      int compactSize = 1 + Varint.size(n);
      for (Entry x : entries) {
        compactSize += ZSetPayload.compactScoreSize(x.score()) + 1 + x.member().length;
      }
      assertEquals(
          compactSize < wide.length ? ZSetPayload.PACKED_COMPACT : ZSetPayload.PACKED, p[0]);
      assertEquals(Math.min(compactSize, wide.length), p.length, "the smaller encoding");
      List<Entry> read = ZSetPayload.entries(p);
      List<Entry> readWide = ZSetPayload.entries(wide);
      assertEquals(n, read.size());
      for (int i = 0; i < n; i++) {
        assertArrayEquals(readWide.get(i).member(), read.get(i).member());
        assertEquals(
            Double.doubleToRawLongBits(readWide.get(i).score()),
            Double.doubleToRawLongBits(read.get(i).score()),
            "score of " + new String(read.get(i).member(), StandardCharsets.ISO_8859_1));
        ZSetPayload.View v = ZSetPayload.view(p);
        assertEquals(i, v.rank(read.get(i).member()));
      }
      assertArrayEquals(wide, ZSetPayload.encodeWide(read), "the same set either way");
    }
  }

  private static double score(Random r) {
    return switch (r.nextInt(10)) {
      case 0 -> r.nextInt(32) - 16;
      case 1 -> r.nextLong() >> r.nextInt(64);
      case 2 -> (r.nextBoolean() ? 1 : -1) * (double) ((1L << 53) - r.nextInt(3));
      case 3 -> (r.nextBoolean() ? 1 : -1) * (double) ((1L << 53) + 2L * r.nextInt(3));
      case 4 -> r.nextBoolean() ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY;
      case 5 -> r.nextBoolean() ? -0.0 : 0.0;
      case 6 -> r.nextGaussian() * 1e6;
      case 7 ->
          Double.longBitsToDouble(r.nextLong() & 0x7fefffffffffffffL) * (r.nextBoolean() ? 1 : -1);
      default -> r.nextInt(1_000_000);
    };
  }

  @Test
  void negativeZeroKeepsItsSign() {
    byte[] p = ZSetPayload.encode(List.of(e("a", -0.0), e("b", 1), e("c", 2)));
    assertEquals(ZSetPayload.PACKED_COMPACT, p[0]);
    assertEquals(
        Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(ZSetPayload.view(p).score(0)));
  }

  @Test
  void malformedCompactScoresAreRefused() {
    // odd varint other than 1
    assertThrows(
        IllegalArgumentException.class, () -> ZSetPayload.view(HEX.parseHex("0401030161")));
    // an integer of magnitude 2^53: zigzag 2^54, << 1 = 2^55
    byte[] big = new byte[1 + 1 + 9 + 2];
    big[0] = 4;
    big[1] = 1;
    int pos = Varint.write(big, 2, 1L << 55);
    big = java.util.Arrays.copyOf(big, pos + 2);
    big[pos] = 1;
    big[pos + 1] = 'a';
    byte[] tooBig = big;
    assertThrows(IllegalArgumentException.class, () -> ZSetPayload.view(tooBig));
    // an escaped score cut short
    assertThrows(
        IllegalArgumentException.class, () -> ZSetPayload.view(HEX.parseHex("0401013ff0")));
    // a NaN escaped
    assertThrows(
        IllegalArgumentException.class,
        () -> ZSetPayload.view(HEX.parseHex("0401017ff80000000000000161")));
    // bytes after the last entry
    assertThrows(
        IllegalArgumentException.class, () -> ZSetPayload.view(HEX.parseHex("040104016100")));
  }

  private static List<Double> scores(byte[] p) {
    return ZSetPayload.entries(p).stream().map(Entry::score).toList();
  }
}
