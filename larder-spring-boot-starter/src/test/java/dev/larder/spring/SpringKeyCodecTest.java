package dev.larder.spring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.CodecException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.Month;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.cache.interceptor.SimpleKey;

/**
 * The canonical encoding of Spring keys: keys Java calls equal encode alike, keys it calls unequal
 * encode differently, every key decodes to one equal to it, and the wire form is the one
 * docs/spec/codecs.md draws.
 */
class SpringKeyCodecTest {

  private final SpringKeyCodec codec =
      new SpringKeyCodec("test", "larder.caches.test.key-type", getClass().getClassLoader());

  /** A record key, as an application's. */
  record Isbn(String prefix, long number) {}

  /** A record whose equality compares an array by identity. */
  @SuppressWarnings("ArrayRecordComponent") // the key the codec must reject
  record Tagged(String name, int[] tags) {}

  /** An enum key with a constant body (its class is not the enum's). */
  enum Shelf {
    TOP,
    BOTTOM {
      @Override
      public String toString() {
        return "bottom";
      }
    }
  }

  private byte[] bytes(Object key) {
    ByteSink sink = new ByteSink();
    codec.encodeLast(key, sink);
    return sink.toByteArray();
  }

  private Object decode(byte[] bytes) {
    return codec.decodeLast(new ByteSource(bytes));
  }

  private void assertSameKey(Object a, Object b) {
    assertEquals(a, b, "the test's premise: Java calls them equal");
    assertArrayEquals(bytes(a), bytes(b), a + " and " + b);
  }

  private void assertDifferentKeys(Object a, Object b) {
    assertFalse(a.equals(b), "the test's premise: Java calls them unequal");
    assertFalse(Arrays.equals(bytes(a), bytes(b)), a + " and " + b);
  }

  @Test
  @SuppressWarnings("JdkObsolete") // a LinkedList on purpose: equal lists of any class are one key
  void equalKeysEncodeAlike() {
    assertSameKey(List.of(1L, 2L), new ArrayList<>(List.of(1L, 2L)));
    assertSameKey(List.of("a"), new LinkedList<>(List.of("a")));
    assertSameKey(
        new LinkedHashSet<>(List.of("b", "a", "c")), new LinkedHashSet<>(List.of("c", "a", "b")));
    assertSameKey(Set.of(3, 1, 2), new TreeSet<>(List.of(1, 2, 3)));
    assertSameKey(new HashMap<>(Map.of("x", 1, "y", 2)), new TreeMap<>(Map.of("y", 2, "x", 1)));
    assertSameKey(Double.NaN, Double.longBitsToDouble(0x7ff8000000000001L));
    assertSameKey(new SimpleKey("a", 1), new SimpleKey("a", 1));
    // SimpleKey compares its parameters with Arrays.deepEquals: arrays by content, and a
    // String[] equals an Object[] of the same elements.
    assertSameKey(
        new SimpleKey(new String[] {"a"}, new int[] {1}),
        new SimpleKey(new Object[] {"a"}, new int[] {1}));
    assertSameKey(new Isbn("978", 3), new Isbn("978", 3));
    assertSameKey(SimpleKey.EMPTY, new SimpleKey());
    assertSameKey(new BigDecimal("1.50"), new BigDecimal("1.50"));
  }

  @Test
  void unequalKeysEncodeDifferently() {
    assertDifferentKeys(1, 1L);
    assertDifferentKeys((short) 1, 1);
    assertDifferentKeys(0.0, -0.0);
    assertDifferentKeys(1.0f, 1.0);
    assertDifferentKeys("1", 1);
    assertDifferentKeys(new BigDecimal("1.5"), new BigDecimal("1.50"));
    assertDifferentKeys(List.of(1, 2), List.of(2, 1));
    assertDifferentKeys(List.of(1), Set.of(1));
    assertDifferentKeys(new SimpleKey("a", 1), new SimpleKey("a", 1L));
    assertDifferentKeys(new SimpleKey("a"), "a");
    assertDifferentKeys(new SimpleKey(new int[] {1}), new SimpleKey(new long[] {1}));
    assertDifferentKeys(Shelf.TOP, Shelf.BOTTOM);
    assertDifferentKeys(new Isbn("978", 3), new Isbn("978", 4));
    assertDifferentKeys(Map.of("x", 1), Map.of("x", 2));
    assertDifferentKeys('a', "a");
    assertDifferentKeys(true, (byte) 1);
  }

  @Test
  void everyKindDecodesToAnEqualKey() {
    List<Object> keys =
        List.of(
            "",
            "café",
            "\ud800",
            true,
            (byte) -3,
            (short) 300,
            -7,
            1L << 40,
            1.5f,
            -2.25,
            'x',
            new BigInteger("123456789012345678901234567890"),
            new BigDecimal("-3.14"),
            UUID.randomUUID(),
            Instant.ofEpochSecond(1_700_000_000, 5),
            LocalDate.of(2026, Month.NOVEMBER, 29),
            LocalDateTime.of(2026, 11, 29, 9, 30),
            Shelf.TOP,
            Shelf.BOTTOM,
            new Isbn("978", 1),
            List.of(1, "two", 3.0),
            Set.of("a", "b"),
            Map.of("k", List.of(1)),
            SimpleKey.EMPTY,
            new SimpleKey("shelf", 3),
            new SimpleKey(null, "x"));
    for (Object key : keys) {
      assertEquals(key, decode(bytes(key)), String.valueOf(key));
    }
    Object[] arrays = {
      new byte[] {1, -1},
      new short[] {-1, 2},
      new int[] {3},
      new long[] {-4},
      new char[] {'a'},
      new boolean[] {true, false},
      new float[] {0.5f},
      new double[] {-0.0},
      new Object[] {"a", new int[] {1}, null}
    };
    for (Object array : arrays) {
      assertTrue(
          Arrays.deepEquals(new Object[] {array}, new Object[] {decode(bytes(array))}),
          array.getClass().getSimpleName());
    }
  }

  @Test
  void theWireFormIsTheSpecsExamples() {
    // docs/spec/codecs.md, "Spring cache keys": the examples there.
    assertEquals("01 00", hex(SimpleKey.EMPTY));
    assertEquals("01 02 02 02 61 06 0e", hex(new SimpleKey("a", 7)));
    assertEquals("07 54", hex(42L));
    assertEquals("13 02 06 02 06 04", hex(List.of(1, 2)));
    assertEquals("14 02 02 02 61 02 02 62", hex(Set.of("b", "a")));
  }

  private String hex(Object key) {
    StringBuilder s = new StringBuilder();
    for (byte b : bytes(key)) {
      s.append(s.isEmpty() ? "" : " ").append(String.format("%02x", b));
    }
    return s.toString();
  }

  @Test
  void keysWhoseEqualityIsIdentityAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> bytes(List.of(new int[] {1})));
    assertThrows(IllegalArgumentException.class, () -> bytes(Set.of((Object) new Object[] {"a"})));
    assertThrows(IllegalArgumentException.class, () -> bytes(new Tagged("t", new int[] {1})));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> bytes(new Object()));
    assertTrue(
        e.getMessage().contains("cache 'test'")
            && e.getMessage().contains("larder.caches.test.key-type"),
        e.getMessage());
  }

  @Test
  void randomBytesDecodeOrThrowCodecException() {
    Random random = new Random(39);
    for (int i = 0; i < 20_000; i++) {
      byte[] input = new byte[1 + random.nextInt(24)];
      random.nextBytes(input);
      if (random.nextBoolean()) {
        input[0] = (byte) random.nextInt(0x20); // a real tag, more often
      }
      try {
        decode(input);
      } catch (CodecException expected) {
        // refused: fine
      }
    }
  }

  @Test
  void deepNestingIsRefusedNotAStackOverflow() {
    byte[] deep = new byte[SpringKeyCodec.MAX_DEPTH * 2 + 4];
    for (int i = 0; i < deep.length - 1; i += 2) {
      deep[i] = SpringKeyCodec.LIST;
      deep[i + 1] = 1;
    }
    assertThrows(CodecException.class, () -> decode(deep));
  }

  @Test
  void aStoredClassNameThatIsNeitherRecordNorEnumIsRefused() {
    ByteSink sink = new ByteSink();
    sink.writeByte(SpringKeyCodec.RECORD);
    dev.larder.codec.Codecs.strings().encode("java.lang.Thread", sink);
    sink.writeByte(0);
    assertThrows(CodecException.class, () -> decode(sink.toByteArray()));
  }
}
