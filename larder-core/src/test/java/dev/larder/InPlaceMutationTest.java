package dev.larder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A byte[] value reaches a remapping function as a fresh array the function may change in place and
 * return (a counter kept in bytes); compute, merge, computeIfPresent and replaceAll must then store
 * it, not retry for ever against the changed array.
 */
class InPlaceMutationTest {

  private static final Duration LIMIT = Duration.ofSeconds(30);

  private static Cache<String, byte[]> cache() {
    return Cache.builder(String.class, byte[].class).maximumEntries(100).build();
  }

  @Test
  void functionsMayChangeTheGivenArrayInPlace() {
    try (Cache<String, byte[]> cache = cache()) {
      ConcurrentMap<String, byte[]> map = cache.asMap();
      cache.put("k", new byte[] {1, 2, 3});
      assertTimeoutPreemptively(
          LIMIT,
          () -> {
            cache.compute(
                "k",
                (k, v) -> {
                  v[0]++;
                  return v;
                });
            map.computeIfPresent(
                "k",
                (k, v) -> {
                  v[1]++;
                  return v;
                });
            map.merge(
                "k",
                new byte[] {0},
                (old, given) -> {
                  old[2]++;
                  return old;
                });
            map.replaceAll(
                (k, v) -> {
                  v[0] = (byte) (v[0] + 10);
                  return v;
                });
          });
      assertArrayEquals(new byte[] {12, 3, 4}, cache.getIfPresent("k"));
    }
  }

  /** Concurrent in-place increments through compute and merge lose nothing. */
  @Test
  void concurrentInPlaceIncrementsAreAllCounted() throws Exception {
    int threads = 4;
    int increments = 2_000;
    try (Cache<String, byte[]> cache = cache()) {
      cache.put("counter", new byte[4]);
      // daemon threads: if the bug comes back they spin for ever, and must not hold the JVM
      ExecutorService pool =
          Executors.newFixedThreadPool(
              threads,
              r -> {
                Thread thread = new Thread(r, "in-place-increments");
                thread.setDaemon(true);
                return thread;
              });
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        boolean viaMerge = t % 2 == 0;
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < increments; i++) {
                    if (viaMerge) {
                      cache.asMap().merge("counter", new byte[4], (old, given) -> increment(old));
                    } else {
                      cache.compute("counter", (k, v) -> increment(v));
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
      pool.shutdown();
      assertEquals(threads * increments, ByteBuffer.wrap(cache.getIfPresent("counter")).getInt());
      assertEquals(1, cache.asMap().size());
    }
  }

  private static byte[] increment(byte[] counter) {
    ByteBuffer b = ByteBuffer.wrap(counter);
    b.putInt(0, b.getInt(0) + 1);
    return counter;
  }
}
