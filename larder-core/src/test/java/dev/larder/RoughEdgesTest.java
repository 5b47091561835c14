package dev.larder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;
import dev.larder.codec.Codecs;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** putAll checks before it stores, the map view's size agrees with iteration, and messages. */
class RoughEdgesTest {

  @ParameterizedTest
  @EnumSource(Storage.class)
  void putAllStoresNothingIfAnEntryCanNeverFit(Storage storage) {
    try (Cache<Long, byte[]> cache =
        Cache.builder(Codecs.longs(), Codecs.bytes())
            .storage(storage)
            .maximumMemory(1 << 20)
            .build()) {
      cache.put(0L, new byte[10]);
      Map<Long, byte[]> batch = new LinkedHashMap<>();
      batch.put(1L, new byte[10]);
      batch.put(2L, new byte[2 << 20]);
      batch.put(3L, new byte[10]);
      assertThrows(IllegalArgumentException.class, () -> cache.putAll(batch));
      assertEquals(1, cache.estimatedSize());
      assertNull(cache.getIfPresent(1L));
      batch.remove(2L);
      cache.putAll(batch);
      assertEquals(3, cache.estimatedSize());
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void putAllStoresNothingIfAnEntryIsNullOrItsCodecThrows(Storage storage) {
    Codec<String> failing =
        CallingCodecs.strings(
            value -> {
              if (value.equals("bad")) {
                throw new CodecException("cannot encode bad");
              }
            });
    try (Cache<String, String> cache =
        Cache.builder(Codecs.strings(), failing).storage(storage).maximumEntries(100).build()) {
      Map<String, String> batch = new LinkedHashMap<>();
      batch.put("a", "good");
      batch.put("b", "bad");
      assertThrows(CodecException.class, () -> cache.putAll(batch));
      batch.put("b", null);
      NullPointerException e = assertThrows(NullPointerException.class, () -> cache.putAll(batch));
      assertTrue(e.getMessage().contains("null value"), e.getMessage());
      assertEquals(0, cache.estimatedSize());
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void mapSizeAndIsEmptyAgreeWithIterationOnceEntriesExpire(Storage storage) {
    AtomicLong time = new AtomicLong(1_000);
    try (Cache<String, String> cache =
        Cache.builder(String.class, String.class)
            .storage(storage)
            .maximumEntries(100)
            .ticker(time::get)
            .executor(Runnable::run)
            .expireAfterWrite(Duration.ofNanos(100))
            .build()) {
      ConcurrentMap<String, String> map = cache.asMap();
      cache.put("a", "1");
      cache.put("b", "2");
      time.addAndGet(50);
      cache.put("c", "3");
      assertEquals(3, map.size());
      time.addAndGet(60);
      assertEquals(1, map.size());
      assertEquals(1, map.entrySet().stream().count());
      assertFalse(map.isEmpty());
      time.addAndGet(60);
      assertFalse(map.entrySet().iterator().hasNext());
      assertTrue(map.isEmpty());
      assertEquals(0, map.size());
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void nullArgumentsAreNamed(Storage storage) {
    try (Cache<String, String> cache =
        Cache.builder(String.class, String.class).storage(storage).maximumEntries(100).build()) {
      cache.put("k", "v");
      assertEquals(
          "newValue",
          assertThrows(NullPointerException.class, () -> cache.replace("k", "v", null))
              .getMessage());
      assertEquals(
          "oldValue",
          assertThrows(NullPointerException.class, () -> cache.replace("k", null, "w"))
              .getMessage());
      assertEquals(
          "mappingFunction",
          assertThrows(NullPointerException.class, () -> cache.asMap().computeIfAbsent("k", null))
              .getMessage());
      assertEquals(
          "key",
          assertThrows(
                  NullPointerException.class, () -> cache.asMap().computeIfAbsent(null, k -> "v"))
              .getMessage());
      assertEquals("v", cache.getIfPresent("k"));
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void mapComputeIfAbsentLoadsOnceAndKeepsPresentValues(Storage storage) {
    try (Cache<String, String> cache =
        Cache.builder(String.class, String.class).storage(storage).maximumEntries(100).build()) {
      ConcurrentMap<String, String> map = cache.asMap();
      AtomicLong calls = new AtomicLong();
      Function<String, String> function =
          k -> {
            calls.incrementAndGet();
            return "computed " + k;
          };
      assertEquals("computed a", map.computeIfAbsent("a", function));
      assertEquals("computed a", map.computeIfAbsent("a", function));
      assertNull(map.computeIfAbsent("b", k -> null));
      assertFalse(map.containsKey("b"));
      assertEquals(1, calls.get());
    }
  }
}
