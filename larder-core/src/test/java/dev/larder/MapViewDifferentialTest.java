package dev.larder;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.AbstractMap;
import java.util.Collections;
import java.util.Iterator;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The {@code asMap()} view against {@link ConcurrentHashMap}: a seeded random sequence of every
 * {@link ConcurrentMap} operation, the interface's default methods (computeIfAbsent, merge,
 * replaceAll...) and the collection views included, applied to both; every result and, after each
 * operation, the whole content must agree. The cache is unbounded, so nothing is evicted.
 */
class MapViewDifferentialTest {

  private static final int SEEDS = 40;
  private static final int OPERATIONS = 2_000;
  private static final int KEYS = 40;

  /** With and without a hot tier (which an unbounded cache has only when asked for). */
  @ParameterizedTest
  @CsvSource({"OFF_HEAP, 0", "OFF_HEAP, 1048576", "HEAP, 0", "HEAP, 1048576"})
  void everyOperationAgreesWithConcurrentHashMap(Storage storage, long hotTier) {
    for (long seed = 0; seed < SEEDS; seed++) {
      try (Cache<Long, String> cache =
          Cache.builder(Long.class, String.class)
              .storage(storage)
              .unbounded()
              .hotTier(hotTier)
              .build()) {
        play(cache.asMap(), new ConcurrentHashMap<>(), new Random(seed), seed);
      }
    }
  }

  private static void play(
      ConcurrentMap<Long, String> view,
      ConcurrentMap<Long, String> model,
      Random random,
      long seed) {
    for (int op = 0; op < OPERATIONS; op++) {
      long key = random.nextInt(KEYS);
      String value = "v" + random.nextInt(5);
      String other = "v" + random.nextInt(5);
      int kind = random.nextInt(22);
      boolean drop = random.nextInt(4) == 0;
      String where = "seed " + seed + ", operation " + op + " (kind " + kind + ", key " + key + ")";
      assertEquals(
          apply(model, kind, key, value, other, drop),
          apply(view, kind, key, value, other, drop),
          where);
      assertEquals(new TreeMap<>(model), contents(view), where);
    }
  }

  /** Applies one operation and returns what it returned (or null for void ones). */
  private static Object apply(
      ConcurrentMap<Long, String> map,
      int kind,
      long key,
      String value,
      String other,
      boolean drop) {
    return switch (kind) {
      case 0 -> map.put(key, value);
      case 1 -> map.get(key);
      case 2 -> map.remove(key);
      case 3 -> map.putIfAbsent(key, value);
      case 4 -> map.replace(key, value);
      case 5 -> map.replace(key, other, value);
      case 6 -> map.remove(key, other);
      case 7 -> map.compute(key, (k, old) -> drop ? null : old + value);
      case 8 -> map.computeIfAbsent(key, k -> drop ? null : value);
      case 9 -> map.computeIfPresent(key, (k, old) -> drop ? null : value);
      case 10 -> map.merge(key, value, (a, b) -> drop ? null : shorten(a + b));
      case 11 -> map.getOrDefault(key, "default");
      case 12 -> map.containsKey(key);
      case 13 -> map.containsValue(value);
      case 14 -> map.size();
      case 15 -> map.keySet().remove(key);
      // which of several keys with this value goes first is unspecified: only unique values
      case 16 -> Collections.frequency(map.values(), value) <= 1 && map.values().remove(value);
      case 17 -> map.entrySet().removeIf(e -> e.getValue().equals(value));
      case 18 -> {
        map.replaceAll((k, old) -> shorten(old + "x"));
        yield null;
      }
      case 19 -> {
        Map<Long, String> seen = new TreeMap<>();
        map.forEach(seen::put);
        yield seen;
      }
      case 20 -> {
        for (Iterator<Map.Entry<Long, String>> it = map.entrySet().iterator(); it.hasNext(); ) {
          Map.Entry<Long, String> entry = it.next();
          if (entry.getKey() == key) {
            if (drop) {
              it.remove();
            } else {
              entry.setValue(value);
            }
          }
        }
        yield map.hashCode();
      }
      default ->
          map.entrySet().contains(new AbstractMap.SimpleEntry<>(key, value))
              && map.equals(Map.copyOf(map));
    };
  }

  private static String shorten(String s) {
    return s.length() > 8 ? s.substring(0, 8) : s;
  }

  private static SortedMap<Long, String> contents(Map<Long, String> map) {
    TreeMap<Long, String> contents = new TreeMap<>();
    for (Map.Entry<Long, String> entry : map.entrySet()) {
      String previous = contents.put(entry.getKey(), entry.getValue());
      assertEquals(null, previous, "iteration returned key " + entry.getKey() + " twice");
    }
    return contents;
  }
}
