package dev.larder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;
import dev.larder.codec.Codecs;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Consumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A value codec whose decode throws leaves the cache unchanged, also for the writes that return the
 * value they replace or remove: the old value is decoded before the write.
 */
class FailingDecodeTest {

  /** Every write that returns the previous value (or hands it to a function). */
  // its functions are stateless lambdas
  @SuppressWarnings("ImmutableEnumChecker")
  enum Write {
    REMOVE(c -> c.remove("k")),
    REPLACE(c -> c.replace("k", "new")),
    MAP_PUT(c -> c.asMap().put("k", "new")),
    MAP_REMOVE(c -> c.asMap().remove("k")),
    MAP_REPLACE(c -> c.asMap().replace("k", "new")),
    COMPUTE(c -> c.compute("k", (k, v) -> "new")),
    MAP_MERGE(c -> c.asMap().merge("k", "new", (a, b) -> b)),
    MAP_COMPUTE_IF_PRESENT(c -> c.asMap().computeIfPresent("k", (k, v) -> null));

    final Consumer<Cache<String, String>> call;

    Write(Consumer<Cache<String, String>> call) {
      this.call = call;
    }
  }

  @ParameterizedTest
  @EnumSource(Write.class)
  void aThrowingDecodeLeavesTheCacheUnchanged(Write write) {
    Codec<String> unreadable =
        CallingCodecs.strings(
            value -> {},
            value -> {
              if (value.equals("unreadable")) {
                throw new CodecException("cannot decode " + value);
              }
            });
    for (Storage storage : Storage.values()) {
      try (Cache<String, String> cache =
          Cache.builder(Codecs.strings(), unreadable)
              .storage(storage)
              .maximumEntries(10)
              .recordStats()
              .build()) {
        cache.put("k", "unreadable");
        assertThrows(CodecException.class, () -> write.call.accept(cache), write::name);
        assertEquals(1, cache.stats().putCount(), storage + " " + write);
        assertEquals(0, cache.stats().removalCount(), storage + " " + write);
        ConcurrentMap<String, String> map = cache.asMap();
        assertEquals(1, map.size(), storage + " " + write);
        // Still there with the bytes it had: a value equal to it can replace it.
        assertEquals(true, map.replace("k", "unreadable", "readable"), storage + " " + write);
        assertEquals("readable", cache.getIfPresent("k"));
      }
    }
  }
}
