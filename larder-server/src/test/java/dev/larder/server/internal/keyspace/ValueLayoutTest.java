package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Golden bytes of the value layout (docs/spec/server-value-layout.md), round trips, corruption. */
class ValueLayoutTest {
  private static final HexFormat HEX = HexFormat.of();

  @Test
  void goldenBytesOfVersionOne() {
    // A plain string: tag 0x20 (version 1, string), version 5, payload "hi".
    assertEquals(
        "20056869",
        HEX.formatHex(
            ValueLayout.encode(
                new StoredValue(
                    ValueType.STRING, 5, 0, 0, "hi".getBytes(StandardCharsets.US_ASCII)))));
    // Expiry and flags: tag 0x2C, version 300 (ac02), expiry 1000 (e807), flags 7, payload "x".
    assertEquals(
        "2cac02e8070778",
        HEX.formatHex(
            ValueLayout.encode(new StoredValue(ValueType.STRING, 300, 1000, 7, new byte[] {'x'}))));
    // A hash {a: 1}: tag 0x21, version 1, count 1, "a", "1".
    LinkedHashMap<String, byte[]> fields = new LinkedHashMap<>();
    fields.put("a", new byte[] {'1'});
    assertEquals(
        "2101010161" + "0131",
        HEX.formatHex(
            ValueLayout.encode(
                new StoredValue(ValueType.HASH, 1, 0, 0, HashPayload.encode(fields)))));
    // A set {1, 2}: tag 0x23 (type 3), version 1, INTSET, width 2, count 2, 1 and 2.
    assertEquals(
        "2301" + "0002020100" + "0200",
        HEX.formatHex(
            ValueLayout.encode(
                new StoredValue(
                    ValueType.SET,
                    1,
                    0,
                    0,
                    SetPayload.encode(java.util.List.of(new byte[] {'2'}, new byte[] {'1'}))))));
    // A set {a}: PACKED, count 1, "a".
    assertEquals(
        "2301" + "01010161",
        HEX.formatHex(
            ValueLayout.encode(
                new StoredValue(
                    ValueType.SET,
                    1,
                    0,
                    0,
                    SetPayload.encode(java.util.List.of(new byte[] {'a'}))))));
    // A sorted set {a: 1.5}: tag 0x30 (type 4: bit 4), version 1, PACKED, count 1, 1.5, "a".
    assertEquals(
        "3001" + "0001" + "3ff8000000000000" + "0161",
        HEX.formatHex(
            ValueLayout.encode(
                new StoredValue(
                    ValueType.ZSET,
                    1,
                    0,
                    0,
                    ZSetPayload.encode(
                        java.util.List.of(new ZSetPayload.Entry(new byte[] {'a'}, 1.5)))))));
  }

  @Test
  void goldenBytesOfVersionTwo() {
    // memcached item state 5 (stale, fetched): tag 0x40 (version 2, string), version 2, state 5.
    StoredValue v = new StoredValue(ValueType.STRING, 2, 0, 0, new byte[] {'x'}, 5);
    assertEquals("40020578", HEX.formatHex(ValueLayout.encode(v)));
    StoredValue back = ValueLayout.decode(HEX.parseHex("40020578"));
    assertEquals(5, back.itemState());
    assertArrayEquals(new byte[] {'x'}, back.payload());
    // With expiry and flags the state comes after them: tag 0x4C.
    assertEquals(
        "4c01e8070705" + "78",
        HEX.formatHex(
            ValueLayout.encode(
                new StoredValue(ValueType.STRING, 1, 1000, 7, new byte[] {'x'}, 5))));
    // No state: the same bytes as version 1 wrote.
    assertEquals("200278", HEX.formatHex(ValueLayout.encode(v.withItemState(0))));
    // A version-2 value whose state is 0 is corrupt: 0 is written as version 1.
    assertThrows(
        IllegalArgumentException.class, () -> ValueLayout.decode(HEX.parseHex("40020078")));
  }

  @Test
  void roundTripsKeepEveryField() {
    SplittableRandom r = new SplittableRandom(7);
    for (int i = 0; i < 2_000; i++) {
      byte[] payload = new byte[r.nextInt(40)];
      r.nextBytes(payload);
      StoredValue v =
          new StoredValue(
              r.nextBoolean() ? ValueType.STRING : ValueType.HASH,
              1 + r.nextLong(Long.MAX_VALUE - 1),
              r.nextBoolean() ? 0 : r.nextLong(1L << 50),
              r.nextInt(),
              payload,
              r.nextBoolean() ? 0 : r.nextLong(1L << 40));
      StoredValue back = ValueLayout.decode(ValueLayout.encode(v));
      assertEquals(v.itemState(), back.itemState());
      assertEquals(v.type(), back.type());
      assertEquals(v.version(), back.version());
      assertEquals(v.expiresAtMillis(), back.expiresAtMillis());
      assertEquals(v.clientFlags(), back.clientFlags());
      assertArrayEquals(v.payload(), back.payload());
      assertEquals(v.expiresAtMillis(), ValueLayout.expiryOf(ValueLayout.encode(v)));
    }
  }

  @Test
  void theChunkPathAgreesWithTheFullCodecOnAnyPartOfAnArray() {
    SplittableRandom r = new SplittableRandom(12);
    ValueType[] types = {ValueType.LIST, ValueType.SET, ValueType.HASH, ValueType.ZSET};
    for (int i = 0; i < 2_000; i++) {
      byte[] around = new byte[r.nextInt(3_000)];
      r.nextBytes(around);
      int offset = r.nextInt(around.length + 1);
      int length = r.nextInt(around.length - offset + 1);
      byte[] payload = Arrays.copyOfRange(around, offset, offset + length);
      long version = 1 + r.nextLong(Long.MAX_VALUE - 1);
      ValueType type = types[r.nextInt(types.length)];
      assertArrayEquals(
          ValueLayout.encode(new StoredValue(type, version, 0, 0, payload)),
          ValueLayout.encodeChunk(type, version, around, offset, length));
    }
  }

  @Test
  void thePlainStringPathAndTheHeaderAgreeWithTheFullCodec() {
    SplittableRandom r = new SplittableRandom(11);
    for (int i = 0; i < 2_000; i++) {
      byte[] payload = new byte[r.nextInt(2_000)];
      r.nextBytes(payload);
      long version = 1 + r.nextLong(Long.MAX_VALUE - 1);
      assertArrayEquals(
          ValueLayout.encode(new StoredValue(ValueType.STRING, version, 0, 0, payload)),
          ValueLayout.encodeString(version, payload));
      StoredValue v =
          new StoredValue(
              ValueType.STRING,
              version,
              r.nextBoolean() ? 0 : r.nextLong(1L << 50),
              r.nextBoolean() ? 0 : r.nextInt(),
              payload);
      byte[] stored = ValueLayout.encode(v);
      ValueLayout.Header h = ValueLayout.header(stored);
      assertEquals(stored.length - payload.length, h.payloadOffset());
      assertEquals(
          new ValueLayout.Header(
              v.type(),
              v.version(),
              v.expiresAtMillis(),
              v.clientFlags(),
              stored.length - payload.length),
          h);
    }
    assertThrows(
        IllegalArgumentException.class,
        () -> ValueLayout.header(new byte[] {0x24, 1, (byte) 0x80}));
  }

  @Test
  void corruptValuesAreRefused() {
    byte[][] bad = {{}, {0x40, 1}, {0x31, 1}, {0x37, 1}, {0x20}, {0x20, (byte) 0x80}, {0x20, 0}};
    for (byte[] b : bad) {
      assertThrows(IllegalArgumentException.class, () -> ValueLayout.decode(b), HEX.formatHex(b));
    }
    assertThrows(IllegalArgumentException.class, () -> HashPayload.decode(new byte[] {5, 1}));
    SplittableRandom r = new SplittableRandom(3);
    for (int i = 0; i < 20_000; i++) {
      byte[] b = new byte[r.nextInt(12)];
      r.nextBytes(b);
      try {
        HashPayload.decode(b);
      } catch (IllegalArgumentException expected) {
        // the only failure allowed
      }
    }
  }
}
