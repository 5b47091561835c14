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
 * The chunked list's head (its index of chunks), its index pages and its chunks: layout and checks.
 */
class ListChunksTest {
  private static byte[] hex(String s) {
    return HexFormat.of().parseHex(s.replace(" ", ""));
  }

  @Test
  void headGoldenBytes() {
    ListChunks.Index index = new ListChunks.Index(0x0102030405060708L, 0);
    index.add(index.takeNumber(), 3, 20);
    index.addPage(index.takeNumber() + 1, 300, 4000, 7);
    index.takeNumber();
    // encoding 4, id, next number 3, 2 entries, chunk (0 << 1, 3, 20), page (2 << 1 | 1,
    // 300 = ac02, 4000 = a01f, 7 chunks)
    byte[] expected = hex("04 0102030405060708 03 02 00 03 14 05 ac02 a01f 07");
    assertArrayEquals(expected, index.encode());
    ListChunks.Index back = ListChunks.Index.decode(expected);
    assertEquals(0x0102030405060708L, back.id());
    assertEquals(3, back.nextNumber());
    assertEquals(2, back.entries());
    assertEquals(303, back.total());
    assertFalse(back.isPage(0));
    assertTrue(back.isPage(1));
    assertEquals(2, back.number(1));
    assertEquals(300, back.count(1));
    assertEquals(4000, back.bytes(1));
    assertEquals(7, back.pageChunks(1));
  }

  @Test
  void theFirstChunkedEncodingIsStillRead() {
    // encoding 2, id, next number 2, 2 chunks, (0, 3, 20), (1, 300 = ac02, 4000 = a01f)
    ListChunks.Index back =
        ListChunks.Index.decode(hex("02 0102030405060708 02 02 00 03 14 01 ac02 a01f"));
    assertEquals(2, back.entries());
    assertFalse(back.isPage(1));
    assertEquals(1, back.number(1));
    assertEquals(300, back.count(1));
    assertArrayEquals(
        hex("04 0102030405060708 02 02 00 03 14 02 ac02 a01f"),
        back.encode(),
        "written again in encoding 4");
  }

  @Test
  void indexPageGoldenBytes() {
    ListChunks.Index chunks = new ListChunks.Index(0, 10);
    chunks.add(7, 40, 4000);
    chunks.add(8, 1, 5);
    // encoding 5, 2 chunks, (7, 40 = 28, 4000 = a01f), (8, 1, 5)
    byte[] expected = hex("05 02 07 28 a01f 08 01 05");
    assertArrayEquals(expected, chunks.encodePage(0, 2));
    ListChunks.Index back = ListChunks.Index.decodePage(expected, 10);
    assertEquals(2, back.entries());
    assertEquals(8, back.number(1));
    assertEquals(41, back.total());
    assertThrows(IllegalArgumentException.class, () -> ListChunks.Index.decodePage(expected, 8));
  }

  @Test
  void randomIndexesRoundTrip() {
    Random random = new Random(7);
    for (int trial = 0; trial < 200; trial++) {
      ListChunks.Index index = new ListChunks.Index(random.nextLong(), random.nextInt(50));
      int chunks = 1 + random.nextInt(300);
      for (int i = 0; i < chunks; i++) {
        if (random.nextInt(4) == 0) {
          index.addPage(
              index.takeNumber(),
              1 + random.nextInt(500_000),
              random.nextInt(2_000_000),
              1 + random.nextInt(512));
        } else {
          index.add(index.takeNumber(), 1 + random.nextInt(5000), random.nextInt(70_000));
        }
      }
      byte[] bytes = index.encode();
      assertArrayEquals(bytes, ListChunks.Index.decode(bytes).encode());
      assertTrue(ListChunks.isHead(bytes));
    }
  }

  @Test
  void malformedHeadsAndPagesAreRefused() {
    // Another encoding, no chunks, an empty chunk, a number not below the next, a repeated
    // number, bytes after the last chunk, a truncated head; in encoding 4 also a page of no
    // chunks and a page repeating a chunk's number.
    for (String bad :
        new String[] {
          "01 0102030405060708 01 01 00 01 01",
          "02 0102030405060708 01 00",
          "02 0102030405060708 01 01 00 00 01",
          "02 0102030405060708 01 01 01 01 01",
          "02 0102030405060708 05 02 01 01 01 01 01 01",
          "02 0102030405060708 01 01 00 01 01 00",
          "02 0102030405060708 01 01 00 01",
          "04 0102030405060708 01 01 02 01 01",
          "04 0102030405060708 02 01 03 01 01 00",
          "04 0102030405060708 02 02 02 01 01 03 01 01 01",
          "04 0102030405060708 02 01 03 01 01",
        }) {
      assertThrows(IllegalArgumentException.class, () -> ListChunks.Index.decode(hex(bad)), bad);
    }
    for (String bad :
        new String[] {
          "03 01 01 01 01", "05 00", "05 01 01 00 01", "05 02 01 01 01 01 01 01", "05 01 01 01"
        }) {
      assertThrows(
          IllegalArgumentException.class, () -> ListChunks.Index.decodePage(hex(bad), 5), bad);
    }
  }

  @Test
  void chunkPayloadsArePackedWithoutBacklens() {
    List<byte[]> two = List.of(new byte[] {'a'}, new byte[] {'b', 'c'});
    byte[] chunk = ListPayload.encode(two, ListPayload.CHUNK);
    assertArrayEquals(hex("03 02 01 61 02 62 63"), chunk);
    assertEquals(2, ListPayload.decode(chunk).size());
    byte[] big = new byte[300];
    List<byte[]> elements = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      elements.add(i % 7 == 0 ? big : ("e" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    byte[] packed = ListPayload.encode(elements);
    byte[] asChunk = ListPayload.reencode(packed, ListPayload.CHUNK);
    assertArrayEquals(packed, ListPayload.reencode(asChunk, ListPayload.PACKED));
    // Every operation gives the same elements in both encodings, and keeps the encoding.
    for (int n = 1; n <= 51; n += 5) {
      assertEquals(
          render(ListPayload.popTail(packed, n).elements()),
          render(ListPayload.popTail(asChunk, n).elements()));
      byte[] rest = ListPayload.popTail(asChunk, n).rest();
      if (rest != null) {
        assertEquals(ListPayload.CHUNK, rest[0]);
        assertEquals(
            render(ListPayload.decode(ListPayload.popTail(packed, n).rest())),
            render(ListPayload.decode(rest)));
      }
      assertEquals(
          render(ListPayload.popHead(packed, n).elements()),
          render(ListPayload.popHead(asChunk, n).elements()));
    }
    for (int start = 0; start < 50; start += 7) {
      for (int stop = start; stop < 50; stop += 11) {
        assertEquals(
            render(ListPayload.range(packed, start, stop)),
            render(ListPayload.range(asChunk, start, stop)));
      }
    }
    byte[] pushed = ListPayload.pushTail(ListPayload.pushHead(asChunk, two), two);
    assertEquals(ListPayload.CHUNK, pushed[0]);
    assertEquals(
        render(ListPayload.decode(ListPayload.pushTail(ListPayload.pushHead(packed, two), two))),
        render(ListPayload.decode(pushed)));
  }

  private static List<String> render(List<byte[]> elements) {
    return elements.stream().map(HexFormat.of()::formatHex).toList();
  }

  @Test
  void aHeadValueIsToldFromOtherValuesByItsHeaderAlone() {
    ListChunks.Index index = new ListChunks.Index(1, 0);
    index.add(index.takeNumber(), 1, 3);
    byte[] head = ValueLayout.encode(new StoredValue(ValueType.LIST, 9, 0, 0, index.encode()));
    byte[] packed =
        ValueLayout.encode(
            new StoredValue(ValueType.LIST, 9, 0, 0, ListPayload.encode(List.of(new byte[] {2}))));
    byte[] string = ValueLayout.encode(StoredValue.string(new byte[] {2}).withExpiry(5));
    assertTrue(ListChunks.isHeadValue(head));
    assertFalse(ListChunks.isHeadValue(packed));
    assertFalse(ListChunks.isHeadValue(string));
  }
}
