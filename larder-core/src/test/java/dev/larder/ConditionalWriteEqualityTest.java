package dev.larder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;
import dev.larder.codec.ValueDictionary;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * replace(key, old, new) and remove(key, value) compare values as ConcurrentMap says, by equals,
 * also when the value codec may encode equal values differently.
 */
class ConditionalWriteEqualityTest {

  private static Set<String> ordered(String... elements) {
    return new LinkedHashSet<>(List.of(elements));
  }

  @Test
  void equalSetsInAnotherOrderMatch() {
    try (Cache<String, Set<String>> cache =
        Cache.builder(Codecs.strings(), Codecs.set(Codecs.strings())).maximumEntries(10).build()) {
      cache.put("k", ordered("a", "b"));
      assertTrue(cache.replace("k", ordered("b", "a"), ordered("c")));
      assertEquals(Set.of("c"), cache.getIfPresent("k"));
      assertFalse(cache.replace("k", ordered("a", "b"), ordered("d")), "unequal: no match");
      assertFalse(cache.replace("absent", ordered("c"), ordered("d")));
      cache.put("k", ordered("x", "y", "z"));
      assertTrue(cache.asMap().replace("k", ordered("z", "x", "y"), ordered("w")));
      assertFalse(cache.remove("k", ordered("x")));
      cache.put("k", ordered("p", "q"));
      assertTrue(cache.asMap().remove("k", ordered("q", "p")));
      assertNull(cache.getIfPresent("k"));
    }
  }

  @Test
  void aValueInternedSinceItWasStoredStillMatches() {
    ValueDictionary dictionary = ValueDictionary.builder().build();
    Codec<String> interned =
        dictionary.substitute("titles", Codecs.strings(), ValueDictionary.Mode.ADAPTIVE);
    try (Cache<String, String> cache =
        Cache.builder(Codecs.strings(), interned)
            .dictionary(dictionary)
            .maximumEntries(10)
            .build()) {
      cache.put("k", "first title"); // first sight: written inline
      // second sight interns it, so the expected value now encodes as an id
      assertTrue(cache.replace("k", "first title", "second title"));
      cache.put("j", "only once");
      assertTrue(cache.remove("j", "only once"));
      assertEquals(1, cache.asMap().size());
    }
  }

  /** Replace loops on equal-but-reordered values lose no increment. */
  @Test
  void concurrentReplaceLoopsLoseNoUpdate() throws Exception {
    int threads = 4;
    int increments = 2_000;
    try (Cache<String, Set<Integer>> cache =
        Cache.builder(Codecs.strings(), Codecs.set(Codecs.integers())).maximumEntries(10).build()) {
      cache.put("counter", new LinkedHashSet<>(List.of(0, -1, -2)));
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        long seed = t;
        done.add(
            pool.submit(
                () -> {
                  Random random = new Random(seed);
                  for (int i = 0; i < increments; i++) {
                    for (; ; ) {
                      Set<Integer> current = cache.getIfPresent("counter");
                      List<Integer> reordered = new ArrayList<>(current);
                      Collections.shuffle(reordered, random);
                      int count = Collections.max(current);
                      if (cache.replace(
                          "counter",
                          new LinkedHashSet<>(reordered),
                          new LinkedHashSet<>(List.of(-1, count + 1, -2)))) {
                        break;
                      }
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
      pool.shutdown();
      assertEquals(threads * increments, Collections.max(cache.getIfPresent("counter")));
    }
  }
}
