package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The packed list payload (docs/spec/server-value-layout.md): golden bytes, every operation against
 * a plain list as the model, and the decoder fuzzed with random and mutated bytes.
 */
class ListPayloadTest {
  private static final HexFormat HEX = HexFormat.of();

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  @Test
  void goldenBytes() {
    // A list [a, bc], version 1: tag 0x22 (version 1, type 2), version 1, encoding 1, count 2,
    // then each entry as length, bytes, length backwards.
    byte[] payload = ListPayload.encode(List.of(b("a"), b("bc")));
    assertEquals(
        "2201" + "0102" + "016101" + "02626302",
        HEX.formatHex(ValueLayout.encode(new StoredValue(ValueType.LIST, 1, 0, 0, payload))));
    // An element of 300 bytes: its length is ac02 forwards and 02ac backwards.
    byte[] long300 = new byte[300];
    byte[] one = ListPayload.encode(List.of(long300));
    assertEquals("0101ac02", HEX.formatHex(one, 0, 4));
    assertEquals("02ac", HEX.formatHex(one, one.length - 2, one.length));
    assertEquals(
        ValueType.LIST, ValueLayout.decode(HEX.parseHex("22010102016101026263" + "02")).type());
  }

  @Test
  void everyOperationAgreesWithAPlainList() {
    SplittableRandom random = new SplittableRandom(7);
    for (int trial = 0; trial < 300; trial++) {
      List<byte[]> model = new ArrayList<>();
      byte[] payload = null;
      for (int step = 0; step < 40; step++) {
        int op = random.nextInt(4);
        if (op < 2 || model.isEmpty()) {
          List<byte[]> elems = new ArrayList<>();
          for (int i = random.nextInt(1, 4); i > 0; i--) {
            elems.add(randomElement(random));
          }
          if (op == 0) {
            payload = ListPayload.pushHead(payload, elems);
            elems.forEach(e -> model.addFirst(e));
          } else {
            payload = ListPayload.pushTail(payload, elems);
            model.addAll(elems);
          }
        } else {
          int n = random.nextInt(1, 4);
          ListPayload.Popped p =
              op == 2 ? ListPayload.popHead(payload, n) : ListPayload.popTail(payload, n);
          for (byte[] e : p.elements()) {
            assertArrayEquals(op == 2 ? model.removeFirst() : model.removeLast(), e);
          }
          assertEquals(Math.min(n, p.elements().size() + model.size()), p.elements().size());
          payload = p.rest();
          if (model.isEmpty()) {
            assertNull(payload);
          }
        }
        if (payload != null) {
          assertEquals(model.size(), ListPayload.count(payload));
          assertSame(model, ListPayload.decode(payload));
          int start = random.nextInt(model.size());
          int stop = random.nextInt(start, model.size());
          assertSame(model.subList(start, stop + 1), ListPayload.range(payload, start, stop));
          assertArrayEquals(payload, ListPayload.encode(model));
        }
      }
    }
  }

  private static byte[] randomElement(SplittableRandom random) {
    int length = random.nextInt(8) == 0 ? random.nextInt(120, 400) : random.nextInt(0, 12);
    byte[] e = new byte[length];
    random.nextBytes(e);
    return e;
  }

  private static void assertSame(List<byte[]> expected, List<byte[]> actual) {
    assertEquals(expected.size(), actual.size());
    for (int i = 0; i < expected.size(); i++) {
      assertArrayEquals(expected.get(i), actual.get(i), "element " + i);
    }
  }

  @Test
  void refusesMalformedPayloads() {
    assertThrows(IllegalArgumentException.class, () -> ListPayload.encode(List.of()));
    for (String hex :
        new String[] {
          "",
          "01",
          "0200",
          "0100",
          "0101",
          "010101",
          "01010161",
          "0101016102",
          "010101610100",
          "0102016101",
          "01018001610180",
          "01ffffffffffffffffff7f"
        }) {
      assertThrows(
          IllegalArgumentException.class, () -> ListPayload.decode(HEX.parseHex(hex)), hex);
    }
  }

  /**
   * Random bytes, and valid payloads with bytes flipped, cut or inserted: the decoder returns a
   * list that encodes back to the same bytes, or throws IllegalArgumentException; nothing else.
   */
  @Test
  void decoderFuzzedWithRandomAndMutatedBytes() {
    SplittableRandom random = new SplittableRandom(2026);
    int decoded = 0;
    for (int i = 0; i < 200_000; i++) {
      byte[] input = i % 4 == 0 ? randomBytes(random) : mutated(random, validPayload(random));
      List<byte[]> elements;
      try {
        elements = ListPayload.decode(input);
      } catch (IllegalArgumentException expected) {
        continue;
      }
      decoded++;
      assertArrayEquals(input, ListPayload.encode(elements, input[0]));
      assertEquals(elements.size(), ListPayload.count(input));
      assertSame(elements.reversed(), ListPayload.popTail(input, elements.size()).elements());
    }
    // The mutations leave some payloads valid (a flipped element byte): the check above ran.
    assertEquals(true, decoded > 1000, "decoded " + decoded);
  }

  private static byte[] randomBytes(SplittableRandom random) {
    byte[] b = new byte[random.nextInt(0, 24)];
    random.nextBytes(b);
    if (b.length > 0 && random.nextBoolean()) {
      b[0] = ListPayload.PACKED;
    }
    return b;
  }

  private static byte[] validPayload(SplittableRandom random) {
    List<byte[]> elements = new ArrayList<>();
    for (int i = random.nextInt(1, 6); i > 0; i--) {
      elements.add(randomElement(random));
    }
    return ListPayload.encode(elements);
  }

  private static byte[] mutated(SplittableRandom random, byte[] valid) {
    byte[] b = valid.clone();
    switch (random.nextInt(3)) {
      case 0 -> b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
      case 1 -> b = java.util.Arrays.copyOf(b, random.nextInt(b.length));
      default -> {
        int at = random.nextInt(b.length + 1);
        byte[] grown = new byte[b.length + 1];
        System.arraycopy(b, 0, grown, 0, at);
        grown[at] = (byte) random.nextInt(256);
        System.arraycopy(b, at, grown, at + 1, b.length - at);
        b = grown;
      }
    }
    return b;
  }
}
