package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HexFormat;
import java.util.LinkedHashMap;
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
