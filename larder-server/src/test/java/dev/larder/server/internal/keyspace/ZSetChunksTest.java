package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.keyspace.ZSetChunks.Ref;
import dev.larder.server.internal.keyspace.ZSetPayload.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The chunked sorted set's format: golden bytes of a head, an index page and a chunk (those of the
 * spec, docs/spec/server-value-layout.md), round trips, the walk over the numbers a head names, and
 * the malformed heads and pages a reader refuses.
 */
class ZSetChunksTest {
  private static final HexFormat HEX = HexFormat.of();

  private static Entry e(String member, double score) {
    return new Entry(member.getBytes(StandardCharsets.ISO_8859_1), score);
  }

  private static byte[] hex(String s) {
    return HEX.parseHex(s.replace(" ", ""));
  }

  private static ZSetChunks.Index head() {
    return new ZSetChunks.Index(
        0x0102030405060708L,
        5,
        new ArrayList<>(List.of(new Ref(4, 3, 40, e("a", 1.5)))),
        new ArrayList<>(List.of(new Ref(3, 3, 40, e("b", 2)))));
  }

  private static final String HEAD =
      "02 0102030405060708 05 01 04 03 28 3ff8000000000000 01 61 01 03 03 28 4000000000000000 01"
          + " 62";

  private static final String PAGE =
      "03 02 00 02 19 3ff8000000000000 01 61 01 01 0c 4008000000000000 01 63";

  private static final String CHUNK = "00 02 3ff8000000000000 01 61 4000000000000000 01 62";

  @Test
  void goldenBytes() {
    assertEquals(HEAD.replace(" ", ""), HEX.formatHex(head().encode()));
    List<Ref> chunks = List.of(new Ref(0, 2, 25, e("a", 1.5)), new Ref(1, 1, 12, e("c", 3)));
    assertEquals(PAGE.replace(" ", ""), HEX.formatHex(ZSetChunks.encodePage(chunks)));
    assertEquals(
        CHUNK.replace(" ", ""),
        HEX.formatHex(ZSetChunks.encodeChunk(List.of(e("a", 1.5), e("b", 2)))));
  }

  @Test
  void roundTrips() {
    ZSetChunks.Index decoded = ZSetChunks.Index.decode(hex(HEAD));
    assertEquals(0x0102030405060708L, decoded.id());
    assertEquals(5, decoded.nextNumber());
    assertEquals(3, decoded.size());
    assertEquals(4, decoded.byScore().getFirst().number());
    assertArrayEquals(
        "b".getBytes(StandardCharsets.ISO_8859_1), decoded.byMember().getFirst().low().member());
    assertArrayEquals(hex(HEAD), decoded.encode());
    List<Ref> page = ZSetChunks.decodePage(hex(PAGE), 5);
    assertEquals(2, page.size());
    assertEquals(3.0, page.get(1).low().score());
    List<Entry> chunk = ZSetChunks.decodeChunk(hex(CHUNK));
    assertEquals(2.0, chunk.get(1).score());
    assertTrue(ZSetChunks.isHead(hex(HEAD)));
    assertFalse(ZSetChunks.isHead(hex(CHUNK)));
  }

  @Test
  void aHeadNamesItsPagesAndTheirChunks() {
    byte[] scorePage =
        ZSetChunks.encodePage(
            List.of(new Ref(0, 2, 25, e("a", 1.5)), new Ref(1, 1, 12, e("c", 3))));
    byte[] memberPage = ZSetChunks.encodePage(List.of(new Ref(2, 3, 37, e("b", 2))));
    List<Integer> visited = new ArrayList<>();
    boolean whole =
        head().forEachNumber(n -> n == 4 ? scorePage : n == 3 ? memberPage : null, visited::add);
    assertTrue(whole);
    assertEquals(List.of(0, 1, 4, 2, 3), visited, "each page's chunks, then the page");
    visited.clear();
    assertFalse(head().forEachNumber(n -> n == 4 ? scorePage : null, visited::add));
    assertEquals(List.of(0, 1, 4, 3), visited, "a missing page's chunks are not named");
  }

  @Test
  void malformedHeadsAndPagesAreRefused() {
    // a number at or above the next number
    assertThrows(
        IllegalArgumentException.class,
        () ->
            ZSetChunks.Index.decode(
                hex(HEAD.replaceFirst("^02 0102030405060708 05", "02 0102030405060708 04"))));
    // a number listed twice (the member side's page is 4 too)
    assertThrows(
        IllegalArgumentException.class,
        () -> ZSetChunks.Index.decode(hex(HEAD.replace("01 03 03 28 4000", "01 04 03 28 4000"))));
    // sides of different sizes
    assertThrows(
        IllegalArgumentException.class,
        () -> ZSetChunks.Index.decode(hex(HEAD.replace("01 03 03 28 4000", "01 03 02 28 4000"))));
    // a side with no page
    assertThrows(
        IllegalArgumentException.class,
        () -> ZSetChunks.Index.decode(hex("02 0102030405060708 05 00 00")));
    // bytes after the last page
    assertThrows(IllegalArgumentException.class, () -> ZSetChunks.Index.decode(hex(HEAD + "00")));
    assertThrows(IllegalArgumentException.class, () -> ZSetChunks.decodePage(hex(PAGE + "00"), 5));
    assertThrows(IllegalArgumentException.class, () -> ZSetChunks.decodePage(hex(PAGE), 1));
    // an empty chunk, in a page and as a payload
    assertThrows(
        IllegalArgumentException.class,
        () -> ZSetChunks.decodePage(hex(PAGE.replace("03 02 00 02", "03 02 00 00")), 5));
    assertThrows(IllegalArgumentException.class, () -> ZSetChunks.decodeChunk(hex("00 00")));
    assertThrows(IllegalArgumentException.class, () -> ZSetChunks.decodeChunk(hex(PAGE)));
  }

  @Test
  void aChunkedHeadIsRecognizedFromItsStoredBytes() {
    byte[] stored = ValueLayout.encode(new StoredValue(ValueType.ZSET, 7, 0, 0, head().encode()));
    assertTrue(ZSetChunks.isHeadValue(stored));
    assertTrue(ChunkStore.isHeadValue(stored));
    assertEquals(0x0102030405060708L, ChunkStore.indexOf(stored).id());
    byte[] packed =
        ValueLayout.encode(
            new StoredValue(ValueType.ZSET, 7, 0, 0, ZSetPayload.encode(List.of(e("a", 1)))));
    assertFalse(ZSetChunks.isHeadValue(packed));
    byte[] list = ValueLayout.encode(new StoredValue(ValueType.LIST, 7, 0, 0, hex("02 00")));
    assertFalse(ZSetChunks.isHeadValue(list));
  }

  /**
   * The one-pass chunk decoder gives exactly what the PACKED payload reader gives (members and
   * score bits, in order), and refuses every cut-short chunk.
   */
  @Test
  void aChunkDecodesAsThePackedReaderReadsItAndACutOneIsRefused() {
    Random r = new Random(20261130L);
    for (int trial = 0; trial < 500; trial++) {
      List<Entry> entries = new ArrayList<>();
      for (int n = 1 + r.nextInt(60); n > 0; n--) {
        byte[] member = new byte[r.nextInt(r.nextInt(8) == 0 ? 300 : 20)];
        r.nextBytes(member);
        double score = r.nextInt(6) == 0 ? -0.0 : r.nextGaussian() * 1e6;
        entries.add(new Entry(member, r.nextInt(20) == 0 ? Double.NEGATIVE_INFINITY : score));
      }
      byte[] chunk = ZSetChunks.encodeChunk(entries);
      List<Entry> decoded = ZSetChunks.decodeChunk(chunk);
      List<Entry> read = ZSetPayload.entries(chunk);
      assertEquals(read.size(), decoded.size());
      for (int i = 0; i < read.size(); i++) {
        assertArrayEquals(read.get(i).member(), decoded.get(i).member());
        assertEquals(
            Double.doubleToRawLongBits(read.get(i).score()),
            Double.doubleToRawLongBits(decoded.get(i).score()));
      }
      int[] starts = ZSetChunks.entryStarts(chunk, entries.size());
      for (int i = 0; i < read.size(); i++) {
        Entry at = ZSetChunks.entryAt(chunk, starts[i]);
        assertArrayEquals(read.get(i).member(), at.member());
        assertEquals(
            Double.doubleToRawLongBits(read.get(i).score()),
            Double.doubleToRawLongBits(at.score()));
        int from = starts[i] + 8 + Varint.size(at.member().length);
        assertEquals(
            ScanCursor.hash(at.member()),
            ScanCursor.hash(chunk, from, from + at.member().length),
            "the hash of a member in place");
      }
      assertThrows(
          IllegalArgumentException.class,
          () -> ZSetChunks.entryStarts(chunk, entries.size() + 1),
          "another count than the ref's");
      int cut = 1 + r.nextInt(chunk.length - 1);
      byte[] shorter = Arrays.copyOf(chunk, cut);
      assertThrows(IllegalArgumentException.class, () -> ZSetChunks.decodeChunk(shorter));
      if (cut < starts[starts.length - 1] + 8) {
        assertThrows(
            IllegalArgumentException.class, () -> ZSetChunks.entryStarts(shorter, entries.size()));
      }
    }
  }
}
