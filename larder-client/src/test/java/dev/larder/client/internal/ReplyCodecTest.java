package dev.larder.client.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ReplyCodecTest {

  private static byte[] encode(Object reply) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ReplyCodec.write(reply, out);
    return out.toByteArray();
  }

  private static Object roundTrip(Object reply) {
    ByteBuffer in = ByteBuffer.wrap(encode(reply));
    Object back = ReplyCodec.read(in);
    assertFalse(in.hasRemaining(), "the whole encoding was read");
    return back;
  }

  @Test
  void scalarsComeBackEqualAndCompact() {
    assertEquals(null, roundTrip(null));
    assertEquals("héllo \uD83D\uDE00", roundTrip("héllo \uD83D\uDE00"));
    assertEquals(-5L, roundTrip(-5L));
    assertEquals(Long.MIN_VALUE, roundTrip(Long.MIN_VALUE));
    assertEquals(3.25, roundTrip(3.25));
    assertEquals(true, roundTrip(true));
    assertEquals(false, roundTrip(false));
    assertArrayEquals(new byte[] {1, 2, 3}, (byte[]) roundTrip(new byte[] {1, 2, 3}));
    assertEquals(1 + 1 + 5, encode("hello").length, "tag, length, UTF-8 bytes");
    assertEquals(1 + 1 + 100, encode(new byte[100]).length);
  }

  @Test
  void collectionsComeBackAsTheSameClass() {
    List<Object> list = new ArrayList<>(List.of("a", 1L, new ArrayList<>(List.of(2.5))));
    assertEquals(list, roundTrip(list));
    Object set = roundTrip(new HashSet<>(List.of("x", "y")));
    assertEquals(HashSet.class, set.getClass());
    assertEquals(new HashSet<>(List.of("x", "y")), set);
    LinkedHashSet<String> ordered = new LinkedHashSet<>(List.of("z", "a", "m"));
    Object orderedBack = roundTrip(ordered);
    assertEquals(LinkedHashSet.class, orderedBack.getClass());
    assertEquals(List.copyOf(ordered), List.copyOf((LinkedHashSet<?>) orderedBack));
    HashMap<String, String> map = new HashMap<>();
    map.put("f", "v");
    map.put("g", null);
    assertEquals(map, roundTrip(map));
    LinkedHashMap<String, Long> lmap = new LinkedHashMap<>();
    lmap.put("b", 2L);
    lmap.put("a", 1L);
    Object lmapBack = roundTrip(lmap);
    assertEquals(LinkedHashMap.class, lmapBack.getClass());
    assertEquals(
        List.copyOf(lmap.keySet()), List.copyOf(((LinkedHashMap<?, ?>) lmapBack).keySet()));
  }

  @Test
  void otherRepliesTravelSerializedAndComeBackEqual() {
    TreeMap<String, Long> sorted = new TreeMap<>(java.util.Map.of("b", 2L, "a", 1L));
    assertEquals(TreeMap.class, roundTrip(sorted).getClass());
    assertEquals(sorted, roundTrip(sorted));
    List<Object> holdingSorted = new ArrayList<>(List.of("x", sorted));
    assertEquals(holdingSorted, roundTrip(holdingSorted));
    List<String> unmodifiable = List.of("a", "b");
    Object back = roundTrip(unmodifiable);
    assertEquals(unmodifiable, back);
    assertEquals(unmodifiable.getClass(), back.getClass());
    String loneSurrogate = "a\uD800b";
    assertEquals(loneSurrogate, roundTrip(loneSurrogate));
  }

  @Test
  void aReplyThatCannotBeSerializedIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> encode(new Object()));
  }

  /** Damaged bytes fail with the decoder's own exceptions, never by allocating without bound. */
  @Test
  void randomBytesFailCleanly() {
    SplittableRandom random = new SplittableRandom(7);
    byte[] valid = encode(new ArrayList<>(List.of("abc", 12L, new HashMap<>(), new byte[] {9})));
    for (int i = 0; i < 20_000; i++) {
      byte[] bytes =
          i % 2 == 0 ? new byte[random.nextInt(1, 24)] : Arrays.copyOf(valid, valid.length);
      if (i % 2 == 0) {
        random.nextBytes(bytes);
        bytes[0] = (byte) random.nextInt(14);
      } else {
        bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
      }
      try {
        ReplyCodec.read(ByteBuffer.wrap(bytes));
      } catch (IllegalArgumentException | BufferUnderflowException expected) {
        // the decoder's way of refusing bytes that are not a reply
      }
    }
  }
}
