package dev.larder.codec;

import static dev.larder.codec.CodecAssertions.assertRoundTrip;
import static dev.larder.codec.CodecAssertions.encode;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * The canonical set and map codecs: equal sets and maps encode to equal bytes whatever order they
 * iterate in (what keys need), they round-trip, and their bytes are the plain codecs' wire form.
 */
class CanonicalCodecsProperties {

  private static final Codec<Set<String>> STRINGS = Codecs.canonicalSet(Codecs.strings());
  private static final Codec<Map<Integer, String>> MAP =
      Codecs.canonicalMap(Codecs.integers(), Codecs.strings());

  @Property
  void equalSetsEncodeAlikeInAnyIterationOrder(
      @ForAll @Size(max = 40) List<String> elements, @ForAll long seed) {
    Set<String> set = new LinkedHashSet<>(elements);
    Set<String> reordered = new LinkedHashSet<>(shuffled(new ArrayList<>(set), seed));
    byte[] bytes = encode(STRINGS, set);
    assertArrayEquals(bytes, encode(STRINGS, reordered));
    assertArrayEquals(bytes, encode(STRINGS, new java.util.TreeSet<>(set)));
    assertRoundTrip(STRINGS, set);
    assertEquals(
        set,
        Codecs.set(Codecs.strings()).decode(new ByteSource(bytes)),
        "the plain set codec reads the canonical form");
  }

  @Property
  void equalMapsEncodeAlikeInAnyIterationOrder(
      @ForAll @Size(max = 40) Map<Integer, String> map, @ForAll long seed) {
    Map<Integer, String> reordered = new LinkedHashMap<>();
    for (Integer key : shuffled(new ArrayList<>(map.keySet()), seed)) {
      reordered.put(key, map.get(key));
    }
    byte[] bytes = encode(MAP, map);
    assertArrayEquals(bytes, encode(MAP, reordered));
    assertArrayEquals(bytes, encode(MAP, new TreeMap<>(map)));
    assertArrayEquals(bytes, encode(MAP, new HashMap<>(map)));
    assertRoundTrip(MAP, new LinkedHashMap<>(map));
    assertEquals(
        map,
        Codecs.map(Codecs.integers(), Codecs.strings()).decode(new ByteSource(bytes)),
        "the plain map codec reads the canonical form");
  }

  @Property
  void nestedSetsEncodeAlike(
      @ForAll @Size(max = 8) List<@Size(max = 5) Set<Long>> sets, @ForAll long seed) {
    Codec<Set<Set<Long>>> nested = Codecs.canonicalSet(Codecs.canonicalSet(Codecs.longs()));
    Set<Set<Long>> outer = new LinkedHashSet<>(sets);
    Set<Set<Long>> reordered = new LinkedHashSet<>();
    for (Set<Long> inner : shuffled(new ArrayList<>(outer), seed)) {
      reordered.add(new LinkedHashSet<>(shuffled(new ArrayList<>(inner), seed + 1)));
    }
    assertArrayEquals(encode(nested, outer), encode(nested, reordered));
    assertRoundTrip(nested, outer);
  }

  @Property
  void unequalSetsEncodeDifferently(
      @ForAll @Size(max = 10) Set<Integer> a, @ForAll @Size(max = 10) Set<Integer> b) {
    Codec<Set<Integer>> codec = Codecs.canonicalSet(Codecs.integers());
    assertEquals(a.equals(b), java.util.Arrays.equals(encode(codec, a), encode(codec, b)));
  }

  @Test
  void deterministicExactlyWhenTheirPartsAre() {
    assertTrue(STRINGS.deterministic());
    assertTrue(MAP.deterministic());
    assertFalse(Codecs.set(Codecs.strings()).deterministic());
    assertFalse(Codecs.map(Codecs.integers(), Codecs.strings()).deterministic());
    assertFalse(Codecs.canonicalSet(Codecs.set(Codecs.strings())).deterministic());
    assertFalse(
        Codecs.canonicalMap(Codecs.strings(), Codecs.set(Codecs.strings())).deterministic());
    assertFalse(
        Codecs.canonicalMap(Codecs.set(Codecs.strings()), Codecs.strings()).deterministic());
  }

  @Test
  void aSetWhoseSizeDisagreesWithItsElementsIsRefused() {
    assertThrows(CodecException.class, () -> encode(STRINGS, sizedWrongly(List.of("a", "b"), 3)));
    assertThrows(CodecException.class, () -> encode(STRINGS, sizedWrongly(List.of("a", "b"), 1)));
  }

  private static Set<String> sizedWrongly(List<String> elements, int claimedSize) {
    return new AbstractSet<>() {
      @Override
      public Iterator<String> iterator() {
        return elements.iterator();
      }

      @Override
      public int size() {
        return claimedSize;
      }
    };
  }

  private static <T> List<T> shuffled(List<T> list, long seed) {
    Collections.shuffle(list, new Random(seed));
    return list;
  }
}
