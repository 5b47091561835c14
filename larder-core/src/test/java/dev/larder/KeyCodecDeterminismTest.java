package dev.larder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;
import dev.larder.codec.ValueDictionary;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The store finds keys by their bytes, so a key codec must encode equal keys alike: the builder
 * refuses one that says it may not, and the canonical set and map codecs make such keys work.
 */
class KeyCodecDeterminismTest {

  /** A key type holding a set: its derived codec writes the set in canonical order. */
  record Tagged(String name, Set<String> tags) {}

  @Test
  void keyCodecsThatMayEncodeEqualKeysDifferentlyAreRefused() {
    assertRefused(Codecs.set(Codecs.strings()));
    assertRefused(Codecs.map(Codecs.strings(), Codecs.integers()));
    assertRefused(Codecs.optional(Codecs.set(Codecs.strings())));
    assertRefused(Codecs.list(Codecs.map(Codecs.strings(), Codecs.integers())));
    assertRefused(
        ValueDictionary.builder()
            .build()
            .substitute("names", Codecs.strings(), ValueDictionary.Mode.ADAPTIVE));
  }

  @Test
  void recordsHoldingSetsAreKeysThroughTheirDerivedCodecs() {
    try (Cache<Tagged, String> cache =
        Cache.builder(Tagged.class, String.class).maximumEntries(10).build()) {
      cache.put(new Tagged("x", new LinkedHashSet<>(List.of("a", "b"))), "v");
      Tagged reordered = new Tagged("x", new LinkedHashSet<>(List.of("b", "a")));
      assertEquals("v", cache.getIfPresent(reordered));
      cache.put(new Tagged("x", Set.of("a", "b")), "w");
      assertEquals(1, cache.asMap().size());
    }
  }

  @Test
  void valueCodecsNeedNotBeDeterministic() {
    try (Cache<String, Set<String>> cache =
        Cache.builder(Codecs.strings(), Codecs.set(Codecs.strings())).maximumEntries(10).build()) {
      cache.put("k", new LinkedHashSet<>(List.of("b", "a")));
      assertEquals(Set.of("a", "b"), cache.getIfPresent("k"));
    }
  }

  @Test
  void canonicalSetKeysFindEqualSetsInAnyOrder() {
    try (Cache<Set<String>, String> cache =
        Cache.builder(Codecs.canonicalSet(Codecs.strings()), Codecs.strings())
            .maximumEntries(10)
            .build()) {
      cache.put(new LinkedHashSet<>(List.of("a", "b", "c")), "first");
      Set<String> reordered = new LinkedHashSet<>(List.of("c", "a", "b"));
      assertEquals("first", cache.getIfPresent(reordered));
      cache.put(reordered, "second");
      assertEquals(1, cache.asMap().size());
      assertEquals("second", cache.getIfPresent(Set.of("b", "c", "a")));
    }
  }

  @Test
  void canonicalMapKeysFindEqualMapsInAnyOrder() {
    try (Cache<Map<String, Integer>, String> cache =
        Cache.builder(Codecs.canonicalMap(Codecs.strings(), Codecs.integers()), Codecs.strings())
            .maximumEntries(10)
            .build()) {
      Map<String, Integer> forward = new LinkedHashMap<>();
      forward.put("x", 1);
      forward.put("y", 2);
      Map<String, Integer> backward = new LinkedHashMap<>();
      backward.put("y", 2);
      backward.put("x", 1);
      cache.put(forward, "v");
      assertEquals("v", cache.getIfPresent(backward));
      assertEquals(null, cache.getIfPresent(Map.of("x", 1, "y", 3)));
    }
  }

  private static void assertRefused(Codec<?> keyCodec) {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> Cache.builder(keyCodec, Codecs.strings()));
    assertTrue(
        e.getMessage().contains("not deterministic")
            && e.getMessage().contains(keyCodec.type().getName()),
        e.getMessage());
  }
}
