package dev.larder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codecs;
import dev.larder.internal.LarderCache;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Many threads mix every operation on overlapping keys while the bound forces eviction and entries
 * expire. Invariants: no unexpected exception; every value read was written for that key (values
 * embed their key and a checksum, so a torn or foreign read is detected); the bound is never
 * exceeded; at quiescence size and memory agree with the contents.
 */
class ConcurrencyStressTest {

  private static final long RUN_NANOS =
      TimeUnit.SECONDS.toNanos(Long.getLong("larder.stress.seconds", 10));
  private static final int KEYS = 20_000;
  private static final long BOUND = 8L << 20;

  @ParameterizedTest
  @EnumSource(Storage.class)
  @Timeout(120)
  void mixedOperationsKeepInvariants(Storage storage) throws Exception {
    // Real time while running; frozen at quiescence so nothing expires while we count.
    AtomicLong frozen = new AtomicLong();
    try (Cache<Long, byte[]> cache =
        Cache.builder(Codecs.longs(), Codecs.bytes())
            .storage(storage)
            .maximumMemory(BOUND)
            .segments(4)
            .expireAfterWrite(Duration.ofMillis(50))
            .ticker(() -> frozen.get() != 0 ? frozen.get() : System.nanoTime())
            .recordStats()
            .build()) {
      ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
      AtomicLong maxSeen = new AtomicLong();
      List<Thread> threads = new ArrayList<>();
      long deadline = System.nanoTime() + RUN_NANOS;
      for (int t = 0; t < 8; t++) {
        threads.add(Thread.ofPlatform().start(() -> run(cache, deadline, failures, maxSeen)));
      }
      for (Thread thread : threads) {
        thread.join();
      }
      frozen.set(System.nanoTime());
      assertTrue(failures.isEmpty(), () -> "failures: " + describe(failures));
      assertTrue(maxSeen.get() <= BOUND, "memoryUsed reached " + maxSeen.get());
      checkQuiescent(cache);
    }
  }

  private static void run(
      Cache<Long, byte[]> cache,
      long deadline,
      ConcurrentLinkedQueue<Throwable> failures,
      AtomicLong maxSeen) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    try {
      for (int n = 0; System.nanoTime() < deadline; n++) {
        long key = random.nextInt(KEYS);
        switch (random.nextInt(10)) {
          case 0, 1, 2 -> check(key, cache.getIfPresent(key));
          case 3, 4 -> cache.put(key, value(key, random));
          case 5 -> cache.remove(key);
          case 6 ->
              check(
                  key,
                  cache.compute(
                      key,
                      (k, v) -> {
                        check(k, v);
                        return random.nextBoolean() ? value(k, random) : null;
                      }));
          case 7 -> check(key, cache.get(key, k -> value(k, ThreadLocalRandom.current())));
          case 8 -> check(key, cache.putIfAbsent(key, value(key, random)));
          default -> {
            byte[] old = cache.getIfPresent(key);
            check(key, old);
            if (old != null) {
              cache.replace(key, old, value(key, random));
            }
          }
        }
        if ((n & 255) == 0) {
          maxSeen.accumulateAndGet(cache.memoryUsed(), Math::max);
        }
      }
    } catch (Throwable t) {
      failures.add(t);
    }
  }

  /** A value for key k: [k (8 bytes)][filler][checksum of all before (8 bytes)]. */
  static byte[] value(long key, ThreadLocalRandom random) {
    byte[] v = new byte[16 + random.nextInt(1500)];
    java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(v);
    buffer.putLong(key);
    for (int i = 8; i < v.length - 8; i++) {
      v[i] = (byte) random.nextInt();
    }
    buffer.putLong(v.length - 8, checksum(v));
    return v;
  }

  static void check(long key, byte[] v) {
    if (v == null) {
      return;
    }
    java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(v);
    if (v.length < 16 || buffer.getLong(0) != key || buffer.getLong(v.length - 8) != checksum(v)) {
      throw new AssertionError("value read for key " + key + " was not written for it");
    }
  }

  private static long checksum(byte[] v) {
    long h = 1125899906842597L;
    for (int i = 0; i < v.length - 8; i++) {
      h = 31 * h + v[i];
    }
    return h;
  }

  private static void checkQuiescent(Cache<Long, byte[]> cache) {
    long count = 0;
    for (Map.Entry<Long, byte[]> e : cache.asMap().entrySet()) {
      check(e.getKey(), e.getValue());
      count++;
    }
    cache.cleanUp();
    long after = 0;
    for (Map.Entry<Long, byte[]> e : cache.asMap().entrySet()) {
      check(e.getKey(), e.getValue());
      after++;
    }
    assertTrue(after <= count);
    assertEquals(after, cache.estimatedSize(), "size agrees with contents after cleanUp");
    LarderCache<?, ?> impl = (LarderCache<?, ?>) cache;
    assertTrue(impl.liveBytes() <= cache.memoryUsed());
    assertTrue(cache.memoryUsed() <= BOUND);
  }

  private static String describe(ConcurrentLinkedQueue<Throwable> failures) {
    StringBuilder text = new StringBuilder();
    for (Throwable t : failures) {
      java.io.StringWriter w = new java.io.StringWriter();
      t.printStackTrace(new java.io.PrintWriter(w));
      text.append(w).append('\n');
    }
    return text.toString();
  }
}
