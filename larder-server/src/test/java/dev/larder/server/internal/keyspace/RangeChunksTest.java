package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The chunked set's and hash's head (set encodings 3 and 4, hash markers {@code 80 00} and {@code
 * 80 80 00}) and their index pages: golden bytes, the older chunked form still read, round trips
 * and refusals.
 */
class RangeChunksTest {
  private static byte[] hex(String s) {
    return HexFormat.of().parseHex(s.replace(" ", ""));
  }

  /** Chunk 0 (hashes from 0: 3 entries, 20 bytes) and page 2 (from 2^31: 300, 4000, 7 chunks). */
  private static RangeChunks.Index sample() {
    RangeChunks.Index index = new RangeChunks.Index(0x0102030405060708L, 0);
    index.add(index.takeNumber(), 0, 3, 20);
    index.takeNumber();
    index.addPage(index.takeNumber(), 0x8000_0000L, 300, 4000, 7);
    return index;
  }

  // id, next number 3, 2 entries, chunk (0 << 1, low 0, 3, 20), page (2 << 1 | 1, low 2^31,
  // 300 = ac02, 4000 = a01f, 7 chunks)
  private static final String SAMPLE =
      "0102030405060708 03 02 00 00000000 03 14 05 80000000 ac02 a01f 07";

  @Test
  void setHeadGoldenBytes() {
    byte[] expected = hex("04 " + SAMPLE);
    assertArrayEquals(expected, sample().encode(ValueType.SET));
    assertTrue(RangeChunks.isHead(ValueType.SET, expected));
    RangeChunks.Index back = RangeChunks.Index.decode(ValueType.SET, expected);
    assertEquals(0x0102030405060708L, back.id());
    assertEquals(3, back.nextNumber());
    assertEquals(2, back.entries());
    assertEquals(303, back.total());
    assertEquals(0, back.pageChunks(0));
    assertEquals(7, back.pageChunks(1));
    assertEquals(2, back.number(1));
    assertEquals(0x8000_0000L, back.low(1));
    assertEquals(300, back.count(1));
    assertEquals(4000, back.bytes(1));
  }

  @Test
  void hashHeadGoldenBytes() {
    byte[] expected = hex("80 80 00 " + SAMPLE);
    assertArrayEquals(expected, sample().encode(ValueType.HASH));
    assertTrue(RangeChunks.isHead(ValueType.HASH, expected));
    assertFalse(RangeChunks.isHead(ValueType.SET, expected));
    assertArrayEquals(
        expected, RangeChunks.Index.decode(ValueType.HASH, expected).encode(ValueType.HASH));
  }

  @Test
  void theChunkedFormIsStillReadAndWrittenAgainPaged() {
    // every chunk in the head, no P bit: (0, low 0, 3, 20), (1, low 2^31, 300, 4000)
    String chunks = "0102030405060708 02 02 00 00000000 03 14 01 80000000 ac02 a01f";
    String paged = "0102030405060708 02 02 00 00000000 03 14 02 80000000 ac02 a01f";
    for (ValueType type : List.of(ValueType.SET, ValueType.HASH)) {
      String oldMarker = type == ValueType.SET ? "03 " : "80 00 ";
      String newMarker = type == ValueType.SET ? "04 " : "80 80 00 ";
      byte[] old = hex(oldMarker + chunks);
      assertTrue(RangeChunks.isHead(type, old));
      RangeChunks.Index back = RangeChunks.Index.decode(type, old);
      assertEquals(2, back.entries());
      assertEquals(1, back.number(1));
      assertEquals(0, back.pageChunks(1));
      assertArrayEquals(hex(newMarker + paged), back.encode(type), "written again paged");
    }
  }

  @Test
  void indexPageGoldenBytes() {
    RangeChunks.Index page = new RangeChunks.Index(0, 10);
    page.add(7, 0x1000, 40, 4000);
    page.add(8, 0x2000, 1, 5);
    // 05, 2 chunks, (7, low 0x1000, 40 = 28, 4000 = a01f), (8, low 0x2000, 1, 5)
    byte[] expected = hex("05 02 07 00001000 28 a01f 08 00002000 01 05");
    assertArrayEquals(expected, page.encodePage());
    RangeChunks.Index back = RangeChunks.Index.decodePage(expected, 10);
    assertEquals(2, back.entries());
    assertEquals(8, back.number(1));
    assertEquals(0x2000, back.low(1));
    assertEquals(41, back.total());
    assertThrows(IllegalArgumentException.class, () -> RangeChunks.Index.decodePage(expected, 8));
  }

  @Test
  void aStoredHeadIsToldByItsHeaderAlone() {
    for (ValueType type : List.of(ValueType.SET, ValueType.HASH)) {
      byte[] head = ValueLayout.encode(new StoredValue(type, 9, 0, 0, sample().encode(type)));
      assertTrue(RangeChunks.isHeadValue(head));
      assertTrue(ChunkStore.isHeadValue(head));
    }
    byte[] set =
        ValueLayout.encode(
            new StoredValue(ValueType.SET, 9, 0, 0, SetPayload.encode(List.of(new byte[] {'a'}))));
    byte[] hash =
        ValueLayout.encode(
            new StoredValue(
                ValueType.HASH,
                9,
                0,
                0,
                HashPayload.encodeEntries(List.<byte[][]>of(new byte[][] {{'a'}, {'b'}}))));
    assertFalse(RangeChunks.isHeadValue(set));
    assertFalse(RangeChunks.isHeadValue(hash));
  }

  @Test
  void randomIndexesRoundTrip() {
    Random random = new Random(7);
    for (int trial = 0; trial < 200; trial++) {
      RangeChunks.Index index = new RangeChunks.Index(random.nextLong(), random.nextInt(50));
      int entries = 1 + random.nextInt(300);
      long low = 0;
      for (int i = 0; i < entries && low < 1L << 32; i++) {
        if (random.nextInt(4) == 0) {
          index.addPage(
              index.takeNumber(),
              low,
              1 + random.nextInt(500_000),
              random.nextInt(2_000_000),
              1 + random.nextInt(128));
        } else {
          index.add(index.takeNumber(), low, 1 + random.nextInt(5000), random.nextInt(70_000));
        }
        low += 1 + random.nextInt(1 << 24);
      }
      for (ValueType type : List.of(ValueType.SET, ValueType.HASH)) {
        byte[] bytes = index.encode(type);
        assertArrayEquals(bytes, RangeChunks.Index.decode(type, bytes).encode(type));
      }
    }
  }

  @Test
  void malformedHeadsAndPagesAreRefused() {
    String id = " 0102030405060708 ";
    // no entries; an empty chunk; a number not below the next; a first low other than 0; lows
    // not ascending; a repeated number; bytes after the last entry; cut short; a page of no chunk
    List<String> bad = new ArrayList<>();
    for (String body :
        new String[] {
          "01 00",
          "01 01 00 00000000 00 01",
          "01 01 02 00000000 01 01",
          "01 01 00 00000001 01 01",
          "03 02 00 00000000 01 01 02 00000000 01 01",
          "03 02 00 00000000 01 01 00 00000005 01 01",
          "01 01 00 00000000 01 01 00",
          "01 01 00 000000",
          "03 01 03 00000000 01 01 00",
        }) {
      bad.add("04" + id + body);
      bad.add("80 80 00" + id + body);
    }
    bad.add("02" + id + "01 01 00 00000000 01 01");
    for (String b : bad) {
      ValueType type = b.startsWith("80") ? ValueType.HASH : ValueType.SET;
      assertThrows(IllegalArgumentException.class, () -> RangeChunks.Index.decode(type, hex(b)), b);
    }
    for (String b :
        new String[] {
          "04 01 01 00000000 01 01",
          "05 00",
          "05 01 01 00000000 00 01",
          "05 02 01 00000005 01 01 02 00000001 01 01",
          "05 02 01 00000000 01 01 01 00000009 01 01",
          "05 01 01 00000000 01 01 00",
          "05 01 01 0000",
        }) {
      assertThrows(
          IllegalArgumentException.class, () -> RangeChunks.Index.decodePage(hex(b), 5), b);
    }
  }

  @Test
  void damagedHeadsAndPagesAreRefusedOrReadNeverCrash() {
    Random random = new Random(11);
    RangeChunks.Index page = new RangeChunks.Index(0, 10);
    page.add(7, 0x1000, 40, 4000);
    page.add(8, 0x2000, 1, 5);
    List<byte[]> valid =
        List.of(
            sample().encode(ValueType.SET),
            sample().encode(ValueType.HASH),
            page.encodePage(),
            hex("03 0102030405060708 02 02 00 00000000 03 14 01 80000000 ac02 a01f"));
    for (int trial = 0; trial < 20_000; trial++) {
      byte[] b = valid.get(random.nextInt(valid.size())).clone();
      int flips = 1 + random.nextInt(3);
      for (int f = 0; f < flips; f++) {
        b[random.nextInt(b.length)] = (byte) random.nextInt(256);
      }
      byte[] damaged =
          random.nextInt(4) == 0 ? java.util.Arrays.copyOf(b, random.nextInt(b.length)) : b;
      for (ValueType type : List.of(ValueType.SET, ValueType.HASH)) {
        try {
          RangeChunks.Index.decode(type, damaged);
        } catch (IllegalArgumentException refused) {
          // refused: what a damaged head must come to if it is not read
        }
      }
      try {
        RangeChunks.Index.decodePage(damaged, 10);
      } catch (IllegalArgumentException refused) {
        // likewise
      }
    }
  }
}
