package dev.larder;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;
import dev.larder.codec.ValueDictionary;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * User code that runs while a cache operation's bytes are in its buffers (codecs, a dictionary's
 * addition listener) may call caches on the same thread; the outer operation's bytes must survive
 * it.
 */
class ReentrantCallsTest {

  @Test
  void aDictionaryListenerThatWritesAnotherCacheLeavesTheOuterWriteIntact() {
    ValueDictionary dictionary = ValueDictionary.builder().build();
    try (Cache<String, byte[]> log =
        Cache.builder(String.class, byte[].class).maximumEntries(1_000).build()) {
      dictionary.addListener(a -> log.put(a.space() + "#" + a.id(), a.value()));
      Codec<String> titles =
          dictionary.substitute("titles", Codecs.strings(), ValueDictionary.Mode.ALWAYS);
      try (Cache<String, String> docs =
          Cache.builder(Codecs.strings(), titles)
              .dictionary(dictionary)
              .maximumEntries(100)
              .build()) {
        for (int i = 0; i < 50; i++) {
          docs.put("doc-" + i, "title " + (i % 7));
        }
        for (int i = 0; i < 50; i++) {
          assertEquals("title " + (i % 7), docs.getIfPresent("doc-" + i));
        }
        assertEquals(50, docs.asMap().size());
        assertEquals(7, log.asMap().size());
      }
    }
  }

  @Test
  void codecsThatCallCachesWhileEncodingLeaveTheOuterOperationIntact() {
    try (Cache<String, String> other =
        Cache.builder(String.class, String.class).maximumEntries(1_000).build()) {
      Codec<String> keys = CallingCodecs.strings(k -> other.put("key-seen-" + k, k));
      Codec<String> values = CallingCodecs.strings(v -> other.getIfPresent("value-seen-" + v));
      try (Cache<String, String> cache = Cache.builder(keys, values).maximumEntries(100).build()) {
        Map<String, String> expected = new HashMap<>();
        for (int i = 0; i < 40; i++) {
          cache.put("k" + i, "v" + i);
          expected.put("k" + i, "v" + i);
        }
        assertEquals("v3", cache.asMap().computeIfPresent("k3", (k, v) -> v));
        assertEquals(true, cache.replace("k4", "v4", "w4"));
        expected.put("k4", "w4");
        assertEquals(true, cache.remove("k5", "v5"));
        expected.remove("k5");
        assertEquals(expected, Map.copyOf(cache.asMap()));
        assertEquals(
            40,
            other.asMap().keySet().stream()
                .filter(k -> k.startsWith("key-seen-"))
                .map(k -> k.substring("key-seen-".length()))
                .filter(k -> k.startsWith("k"))
                .distinct()
                .count());
      }
    }
  }
}
