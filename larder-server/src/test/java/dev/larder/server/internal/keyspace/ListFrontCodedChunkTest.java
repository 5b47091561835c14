package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * List payload encoding 6, a chunk stored front-coded (docs/spec/server-value-layout.md): golden
 * bytes, the writer's choice (only when shorter), a round trip of random chunks whose elements
 * share prefixes or not, malformed payloads refused, and the reader fuzzed with mutated payloads.
 */
class ListFrontCodedChunkTest {
  private static final HexFormat HEX = HexFormat.of();

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  @Test
  void goldenBytes() {
    byte[] chunk = ListPayload.encode(List.of(b("element:1"), b("element:2"), b("other")), 3);
    // count 3; element:1 shares nothing (00, 9 bytes), element:2 shares 8 and adds "2",
    // other shares nothing (00, 5 bytes)
    assertEquals(
        "0603" + "0009" + "656c656d656e743a31" + "0801" + "32" + "0005" + "6f74686572",
        HEX.formatHex(ListPayload.storedChunk(chunk)));
    // [a, bc] is shorter in encoding 3 (7 bytes against 9): stored as it is
    byte[] small = HEX.parseHex("03020161026263");
    assertSame(small, ListPayload.storedChunk(small));
    // a packed list's payload is never front-coded
    byte[] packed = ListPayload.encode(List.of(b("element:1"), b("element:2")));
    assertSame(packed, ListPayload.storedChunk(packed));
    assertArrayEquals(
        chunk,
        ListPayload.loadedChunk(
            HEX.parseHex(
                "0603" + "0009" + "656c656d656e743a31" + "0801" + "32" + "0005" + "6f74686572")));
    // encoding 3 is read as it is
    assertSame(small, ListPayload.loadedChunk(small));
  }

  @Test
  void randomChunksRoundTrip() {
    SplittableRandom random = new SplittableRandom(37);
    int fronted = 0;
    for (int trial = 0; trial < 5_000; trial++) {
      List<byte[]> elements = randomElements(random);
      byte[] chunk = ListPayload.encode(elements, ListPayload.CHUNK);
      byte[] stored = ListPayload.storedChunk(chunk);
      assertTrue(stored.length <= chunk.length, "never longer");
      if (stored[0] == ListPayload.CHUNK_FRONT) {
        fronted++;
        assertTrue(stored.length < chunk.length, "front-coded only when shorter");
      } else {
        assertSame(chunk, stored);
      }
      assertArrayEquals(chunk, ListPayload.loadedChunk(stored), "trial " + trial);
    }
    assertTrue(fronted > 500 && fronted < 4_500, "both choices made: " + fronted);
  }

  private static List<byte[]> randomElements(SplittableRandom random) {
    List<byte[]> out = new ArrayList<>();
    boolean prefixed = random.nextBoolean();
    byte[] previous = new byte[0];
    for (int i = random.nextInt(1, 200); i > 0; i--) {
      byte[] e;
      if (prefixed && previous.length > 0 && random.nextInt(4) != 0) {
        int keep = random.nextInt(previous.length + 1);
        byte[] tail = new byte[random.nextInt(0, 6)];
        random.nextBytes(tail);
        e = Arrays.copyOf(previous, keep + tail.length);
        System.arraycopy(tail, 0, e, keep, tail.length);
      } else {
        e =
            new byte
                [random.nextInt(0, 300) < 280 ? random.nextInt(0, 20) : random.nextInt(128, 400)];
        random.nextBytes(e);
      }
      out.add(e);
      previous = e;
    }
    return out;
  }

  @Test
  void refusesMalformedPayloads() {
    for (String hex :
        new String[] {
          "06",
          "0600",
          "0601",
          "060100",
          "0601000161" + "00",
          "06010161",
          "0602000161" + "0200",
          "06010003" + "61",
          "06010080000161",
          "0601800001" + "61",
          "0601000261",
          "06ffffffffffffffffff7f"
        }) {
      assertThrows(
          IllegalArgumentException.class, () -> ListPayload.loadedChunk(HEX.parseHex(hex)), hex);
    }
  }

  /**
   * Mutated front-coded payloads: read into a chunk that is well formed, or refused; nothing else.
   */
  @Test
  void readerFuzzedWithMutatedPayloads() {
    SplittableRandom random = new SplittableRandom(2026);
    int read = 0;
    for (int i = 0; i < 50_000; i++) {
      List<byte[]> elements = new ArrayList<>();
      for (int k = random.nextInt(2, 12); k > 0; k--) {
        elements.add(b("element:" + random.nextInt(1000)));
      }
      byte[] stored = ListPayload.storedChunk(ListPayload.encode(elements, ListPayload.CHUNK));
      assertEquals(ListPayload.CHUNK_FRONT, stored[0]);
      byte[] b = stored.clone();
      switch (random.nextInt(3)) {
        case 0 -> b[random.nextInt(1, b.length)] ^= (byte) (1 << random.nextInt(8));
        case 1 -> b = Arrays.copyOf(b, random.nextInt(1, b.length));
        default -> {
          b = Arrays.copyOf(b, b.length + 1);
          b[b.length - 1] = (byte) random.nextInt(256);
        }
      }
      byte[] chunk;
      try {
        chunk = ListPayload.loadedChunk(b);
      } catch (IllegalArgumentException expected) {
        continue;
      }
      read++;
      List<byte[]> decoded = ListPayload.decode(chunk);
      assertEquals(ListPayload.count(chunk), decoded.size());
    }
    assertTrue(read > 1_000, "read " + read);
  }
}
