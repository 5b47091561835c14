package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.server.internal.keyspace.ZSetPayload.Entry;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The DUMP payload's golden bytes (docs/spec/server-dump-payload.md) and its verdicts. */
class DumpPayloadTest {
  private static final HexFormat HEX = HexFormat.of();

  @Test
  void goldenBytesOfTheSpec() {
    StoredValue string = new StoredValue(ValueType.STRING, 5, 1000, 7, bytes("hi"));
    assertEquals("4c010068698eb8ad12", HEX.formatHex(DumpPayload.encode(string)));
    Map<String, byte[]> fields = new LinkedHashMap<>();
    fields.put("a", bytes("1"));
    StoredValue hash = new StoredValue(ValueType.HASH, 1, 0, 0, HashPayload.encode(fields));
    assertEquals("4c01010101610131c523c6bc", HEX.formatHex(DumpPayload.encode(hash)));
    StoredValue list =
        new StoredValue(
            ValueType.LIST, 1, 0, 0, ListPayload.encode(List.of(bytes("a"), bytes("b"))));
    assertEquals("4c010201020161010162014acd9295", HEX.formatHex(DumpPayload.encode(list)));
    StoredValue ints =
        new StoredValue(ValueType.SET, 1, 0, 0, SetPayload.encode(List.of(bytes("2"), bytes("1"))));
    assertEquals("4c010300020201000200c5b16f9c", HEX.formatHex(DumpPayload.encode(ints)));
    StoredValue set =
        new StoredValue(ValueType.SET, 1, 0, 0, SetPayload.encode(List.of(bytes("a"))));
    assertEquals("4c010301010161754c3ea8", HEX.formatHex(DumpPayload.encode(set)));
    StoredValue zset =
        new StoredValue(
            ValueType.ZSET, 1, 0, 0, ZSetPayload.encode(List.of(new Entry(bytes("a"), 1.0))));
    assertEquals("4c010400013ff00000000000000161ab79e097", HEX.formatHex(DumpPayload.encode(zset)));
  }

  @Test
  void everyGoldenPayloadDecodesToItsValue() {
    assertEquals(
        List.of("a", "b"),
        strings(ListPayload.decode(decode("4c010201020161010162014acd9295", ValueType.LIST))));
    assertEquals(
        List.of("1", "2"),
        strings(SetPayload.members(decode("4c010300020201000200c5b16f9c", ValueType.SET))));
    assertEquals(
        List.of("a"), strings(SetPayload.members(decode("4c010301010161754c3ea8", ValueType.SET))));
    List<Entry> z =
        ZSetPayload.entries(decode("4c010400013ff00000000000000161ab79e097", ValueType.ZSET));
    assertEquals(1, z.size());
    assertArrayEquals(bytes("a"), z.getFirst().member());
    assertEquals(1.0, z.getFirst().score());
  }

  /**
   * A stored set or sorted set may keep an encoding its history chose; its DUMP is the encoding a
   * writer would build from its contents, which RESTORE checks exactly.
   */
  @Test
  void aSetsDumpIsItsCanonicalEncodingWhateverItsStoredOne() {
    // an INTSET widened to 8 bytes by a member since removed keeps its width
    byte[] grown =
        SetPayload.add(SetPayload.encode(List.of(bytes("1"), bytes("2"))), bytes("5000000000"));
    byte[] stored = SetPayload.remove(grown, bytes("5000000000"));
    assertEquals(8, stored[1]);
    byte[] dumped = DumpPayload.encode(new StoredValue(ValueType.SET, 1, 0, 0, stored));
    assertEquals("4c010300020201000200c5b16f9c", HEX.formatHex(dumped));
    // a TABLE whose heap holds the members in insertion order
    List<byte[]> members = new ArrayList<>();
    byte[] table = null;
    for (int i = 0; i < 200; i++) {
      byte[] m = bytes("member-" + (199 - i));
      members.add(m);
      table = SetPayload.add(table, m);
    }
    byte[] dumpedTable = DumpPayload.encode(new StoredValue(ValueType.SET, 1, 0, 0, table));
    assertEquals(DumpPayload.Verdict.OK, DumpPayload.check(dumpedTable));
    assertArrayEquals(
        SetPayload.encode(members), DumpPayload.decode(dumpedTable).payload(), "canonical");
  }

  @Test
  void collectionsThatAreNotCanonicalAreABadFormat() {
    // a list that is empty, a list chunk's encoding (3), and a list with a byte after its last
    // entry
    assertBad(ValueType.LIST, "0100");
    assertBad(ValueType.LIST, "03020161016201");
    assertBad(ValueType.LIST, "010101610100");
    // a PACKED set out of order, with a duplicate, and an INTSET wider than it needs
    assertBad(ValueType.SET, "0102016201" + "61");
    assertBad(ValueType.SET, "010201610161");
    assertBad(ValueType.SET, "000401" + "01000000");
    // a PACKED set holding only integers (an INTSET's), and an unknown encoding (a chunked head)
    assertBad(ValueType.SET, "0101" + "0131");
    assertBad(ValueType.SET, "04");
    // sorted sets: the same member twice, out of order, a NaN score, and a chunked head (2)
    String a1 = "3ff0000000000000" + "0161";
    String a2 = "4000000000000000" + "0161";
    String b1 = "3ff0000000000000" + "0162";
    assertBad(ValueType.ZSET, "0002" + a1 + a2);
    assertBad(ValueType.ZSET, "0002" + b1 + a1);
    assertBad(ValueType.ZSET, "0001" + "7ff8000000000000" + "0161");
    assertBad(ValueType.ZSET, "02");
    assertBad(ValueType.ZSET, "0000");
    assertEquals(
        DumpPayload.Verdict.OK, DumpPayload.check(frame(ValueType.ZSET, "0002" + a1 + b1)));
  }

  private static void assertBad(ValueType type, String payloadHex) {
    assertEquals(
        DumpPayload.Verdict.BAD_FORMAT, DumpPayload.check(frame(type, payloadHex)), payloadHex);
  }

  /** A frame of a payload of a type, its checksum right. */
  private static byte[] frame(ValueType type, String payloadHex) {
    return withCrc(
        HEX.parseHex("4c01" + HEX.toHexDigits((byte) type.code()) + payloadHex + "00000000"));
  }

  private static byte[] decode(String hex, ValueType type) {
    StoredValue v = DumpPayload.decode(HEX.parseHex(hex));
    assertEquals(type, v.type());
    return v.payload();
  }

  private static List<String> strings(List<byte[]> bs) {
    List<String> out = new ArrayList<>();
    for (byte[] b : bs) {
      out.add(new String(b, java.nio.charset.StandardCharsets.ISO_8859_1));
    }
    return out;
  }

  @Test
  void decodeGivesTheTypeAndPayloadWithoutExpiryFlagsOrVersion() {
    StoredValue v = DumpPayload.decode(HEX.parseHex("4c010068698eb8ad12"));
    assertEquals(ValueType.STRING, v.type());
    assertArrayEquals(bytes("hi"), v.payload());
    assertEquals(0, v.expiresAtMillis());
    assertEquals(0, v.clientFlags());
    assertEquals(0, v.version());
  }

  @Test
  void verdicts() {
    assertEquals(DumpPayload.Verdict.CORRUPT, DumpPayload.check(new byte[0]));
    assertEquals(
        DumpPayload.Verdict.CORRUPT, DumpPayload.check(HEX.parseHex("4c010068698eb8ad13")));
    assertEquals(
        DumpPayload.Verdict.CORRUPT, DumpPayload.check(HEX.parseHex("4c020068698eb8ad12")));
    assertEquals(
        DumpPayload.Verdict.CORRUPT,
        DumpPayload.check(HEX.parseHex("000a0000000000")),
        "a Redis 7.0 payload of the empty string with a wrong checksum");
    // A hash whose count says two fields but holds one, with a right checksum.
    byte[] bad = withCrc(HEX.parseHex("4c0101020161013100000000"));
    assertEquals(DumpPayload.Verdict.BAD_FORMAT, DumpPayload.check(bad));
    byte[] unknownType = withCrc(HEX.parseHex("4c01076800000000"));
    assertEquals(DumpPayload.Verdict.BAD_FORMAT, DumpPayload.check(unknownType));
    byte[] emptyHash = withCrc(HEX.parseHex("4c01010000000000"));
    assertEquals(DumpPayload.Verdict.BAD_FORMAT, DumpPayload.check(emptyHash));
  }

  /** Fixes the last four bytes up to the CRC-32C of the rest, as an encoder would. */
  static byte[] withCrc(byte[] payload) {
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(payload, 0, payload.length - 4);
    int v = (int) crc.getValue();
    int at = payload.length - 4;
    payload[at] = (byte) (v >>> 24);
    payload[at + 1] = (byte) (v >>> 16);
    payload[at + 2] = (byte) (v >>> 8);
    payload[at + 3] = (byte) v;
    return payload;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
  }
}
