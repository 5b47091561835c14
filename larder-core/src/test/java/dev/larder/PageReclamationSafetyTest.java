package dev.larder;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codecs;
import dev.larder.testing.Workers;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Lock-free readers racing the freeing and reuse of pages (pages are no longer freed by closing an
 * arena each, so nothing but the store's own scheme keeps readers off freed memory). Writers put
 * values of up to four pages, so that over-size pages are freed at every eviction and their memory
 * is reused by other pages; a thread empties the cache again and again (every page freed at once);
 * readers read all the while, and the cache is closed under them at the end. Every value read must
 * be whole and belong to its key (values embed their key and length), and a reader may see only
 * values or, after close, IllegalStateException.
 */
class PageReclamationSafetyTest {

  private static final long RUN_NANOS = TimeUnit.MILLISECONDS.toNanos(1500);
  private static final int KEYS = 400;

  @ParameterizedTest
  @EnumSource(Storage.class)
  @Timeout(60)
  void readersNeverSeeFreedOrForeignBytes(Storage storage) throws Exception {
    Cache<Long, byte[]> cache =
        Cache.builder(Codecs.longs(), Codecs.bytes())
            .storage(storage)
            .maximumMemory(2L << 20)
            .segments(1)
            .build();
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    AtomicBoolean closed = new AtomicBoolean();
    AtomicLong reads = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    long deadline = System.nanoTime() + RUN_NANOS;
    for (int t = 0; t < 2; t++) {
      SplittableRandom random = new SplittableRandom(t);
      threads.add(Thread.ofPlatform().start(() -> write(cache, random, deadline, failures)));
    }
    for (int t = 0; t < 3; t++) {
      SplittableRandom random = new SplittableRandom(10 + t);
      threads.add(Thread.ofPlatform().start(() -> read(cache, random, closed, reads, failures)));
    }
    Workers emptier = Workers.named("invalidateAll");
    emptier.start(
        () -> {
          try {
            while (System.nanoTime() < deadline && failures.isEmpty()) {
              cache.invalidateAll();
              sleep(20);
            }
          } catch (IllegalStateException e) {
            if (!closed.get()) {
              throw e; // only a closed cache may refuse
            }
          }
        });
    for (Thread thread : threads.subList(0, 2)) {
      thread.join();
    }
    closed.set(true);
    cache.close();
    for (Thread thread : threads) {
      thread.join();
    }
    emptier.join(java.time.Duration.ofSeconds(30));
    assertTrue(failures.isEmpty(), () -> "failures: " + failures);
    assertTrue(reads.get() > 0);
  }

  private static void write(
      Cache<Long, byte[]> cache,
      SplittableRandom random,
      long deadline,
      ConcurrentLinkedQueue<Throwable> failures) {
    try {
      while (System.nanoTime() < deadline && failures.isEmpty()) {
        long key = random.nextLong(KEYS);
        // Pages of a 2 MiB segment are 8 KiB: a third of the values need a page of their own.
        int length =
            16 + (random.nextInt(3) == 0 ? random.nextInt(32 * 1024) : random.nextInt(2000));
        cache.put(key, value(key, length));
      }
    } catch (Throwable e) {
      failures.add(e);
    }
  }

  private static void read(
      Cache<Long, byte[]> cache,
      SplittableRandom random,
      AtomicBoolean closed,
      AtomicLong reads,
      ConcurrentLinkedQueue<Throwable> failures) {
    try {
      for (; ; ) {
        long key = random.nextLong(KEYS);
        byte[] value;
        try {
          value = cache.getIfPresent(key);
        } catch (IllegalStateException e) {
          if (closed.get()) {
            return;
          }
          throw e;
        }
        if (value != null) {
          check(key, value);
          reads.incrementAndGet();
        }
      }
    } catch (Throwable e) {
      failures.add(e);
    }
  }

  /** A value of {@code length} bytes: its key, its length, then a pattern of both. */
  private static byte[] value(long key, int length) {
    ByteBuffer buffer = ByteBuffer.allocate(length).putLong(key).putInt(length);
    while (buffer.hasRemaining()) {
      buffer.put((byte) (key * 31 + buffer.position()));
    }
    return buffer.array();
  }

  private static void check(long key, byte[] value) {
    ByteBuffer buffer = ByteBuffer.wrap(value);
    if (value.length < 12 || buffer.getLong() != key || buffer.getInt() != value.length) {
      throw new AssertionError("foreign or torn value for key " + key);
    }
    while (buffer.hasRemaining()) {
      if (buffer.get() != (byte) (key * 31 + buffer.position() - 1)) {
        throw new AssertionError("torn value for key " + key + " at " + (buffer.position() - 1));
      }
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
