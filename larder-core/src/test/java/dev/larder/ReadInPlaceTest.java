package dev.larder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codecs;
import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link Cache#read}: the reader sees the stored bytes through a read-only view, its result is
 * returned only from a call that saw the value whole, and an exception it throws on a whole value
 * reaches the caller. Racing writers that move and recycle pages under the reader (updates of
 * varying sizes, evictions, compaction, invalidateAll) never make a returned result come from torn
 * or foreign bytes. Racing close() is in {@link CloseRace}.
 */
class ReadInPlaceTest {

  @ParameterizedTest
  @EnumSource(Storage.class)
  void theReaderSeesTheStoredBytesReadOnly(Storage storage) {
    try (Cache<String, byte[]> cache =
        Cache.builder(String.class, byte[].class)
            .storage(storage)
            .maximumEntries(100)
            .recordStats()
            .build()) {
      byte[] value = {1, 2, 3, 4, 5};
      cache.put("k", value);
      assertArrayEquals(value, cache.read("k", ReadInPlaceTest::copy));
      assertEquals(
          15,
          (int)
              cache.read(
                  "k",
                  view -> {
                    int sum = 0;
                    while (view.hasRemaining()) {
                      sum += view.get();
                    }
                    return sum;
                  }));
      assertThrows(
          ReadOnlyBufferException.class, () -> cache.read("k", view -> view.put(0, (byte) 9)));
      assertArrayEquals(value, cache.getIfPresent("k"));
      AtomicInteger calls = new AtomicInteger();
      assertNull(cache.read("absent", view -> calls.incrementAndGet()));
      assertEquals(0, calls.get());
      assertEquals(3, cache.stats().hitCount());
      assertEquals(1, cache.stats().missCount());
      IllegalStateException thrown = new IllegalStateException("mine");
      assertSame(
          thrown,
          assertThrows(
              IllegalStateException.class,
              () ->
                  cache.read(
                      "k",
                      view -> {
                        throw thrown;
                      })));
      assertThrows(NullPointerException.class, () -> cache.read(null, view -> 1));
      assertThrows(NullPointerException.class, () -> cache.read("k", null));
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void otherTypesShowTheirEncodingAndExpiredEntriesAreAbsent(Storage storage) {
    AtomicLong now = new AtomicLong();
    try (Cache<Long, String> cache =
        Cache.builder(Long.class, String.class)
            .storage(storage)
            .maximumEntries(100)
            .expireAfterWrite(Duration.ofSeconds(1))
            .ticker(now::get)
            .build()) {
      cache.put(1L, "abc");
      dev.larder.codec.ByteSink sink = new dev.larder.codec.ByteSink();
      Codecs.strings().encodeLast("abc", sink);
      assertArrayEquals(sink.toByteArray(), cache.read(1L, ReadInPlaceTest::copy));
      now.addAndGet(Duration.ofSeconds(1).toNanos());
      assertNull(cache.read(1L, ReadInPlaceTest::copy));
    }
  }

  /**
   * Writers rewrite keys with values of other lengths (so entries move, pages fill, are compacted
   * and recycled) and sometimes empty the cache, while readers read in place; every result returned
   * must be a whole value of its key.
   */
  @ParameterizedTest
  @EnumSource(Storage.class)
  @Timeout(120)
  @SuppressWarnings("ReferenceEquality") // TORN is a sentinel result, told apart by identity
  void resultsComeOnlyFromWholeValuesUnderRacingWrites(Storage storage) throws Exception {
    int keys = 200;
    try (Cache<Long, byte[]> cache =
        Cache.builder(Long.class, byte[].class)
            .storage(storage)
            .maximumMemory(1L << 20)
            .segments(1)
            .build()) {
      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      AtomicLong results = new AtomicLong();
      AtomicLong discardedCalls = new AtomicLong();
      List<Thread> threads = new ArrayList<>();
      for (int w = 0; w < 2; w++) {
        threads.add(
            Thread.ofPlatform()
                .start(
                    guard(
                        failure,
                        stop,
                        () -> {
                          ThreadLocalRandom random = ThreadLocalRandom.current();
                          while (!stop.get()) {
                            long key = random.nextInt(keys);
                            if (random.nextInt(5_000) == 0) {
                              cache.invalidateAll();
                            } else {
                              cache.put(key, value(key, 16 + random.nextInt(12_000)));
                            }
                          }
                        })));
      }
      for (int r = 0; r < 3; r++) {
        threads.add(
            Thread.ofPlatform()
                .start(
                    guard(
                        failure,
                        stop,
                        () -> {
                          ThreadLocalRandom random = ThreadLocalRandom.current();
                          while (!stop.get()) {
                            long key = random.nextInt(keys);
                            AtomicInteger calls = new AtomicInteger();
                            byte[] seen =
                                cache.read(
                                    key,
                                    view -> {
                                      calls.incrementAndGet();
                                      byte[] copy = copy(view);
                                      // the bytes are read twice: a writer racing the reader shows
                                      // up as a difference
                                      Thread.onSpinWait();
                                      return check(key, copy) ? copy : TORN;
                                    });
                            discardedCalls.addAndGet(calls.get() - (calls.get() > 0 ? 1 : 0));
                            if (seen == TORN) {
                              throw new AssertionError(
                                  "key "
                                      + key
                                      + ": a result made from torn or foreign"
                                      + " bytes was returned");
                            }
                            if (seen != null) {
                              results.incrementAndGet();
                            }
                          }
                        })));
      }
      // at least three seconds of racing, and on a starved machine until a thousand reads have
      // come back (a bounded wait: the assertion below still fails if they never do)
      Thread.sleep(3_000);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (results.get() <= 1_000 && failure.get() == null && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      stop.set(true);
      for (Thread t : threads) {
        t.join(30_000);
      }
      if (failure.get() != null) {
        throw new AssertionError(failure.get());
      }
      assertTrue(results.get() > 1_000, "results " + results.get());
      System.out.println(
          "read in place "
              + storage
              + ": "
              + results.get()
              + " results, "
              + discardedCalls.get()
              + " calls discarded after racing a write");
    }
  }

  /** What a reader returns from bytes that are not a whole value of its key. */
  private static final byte[] TORN = new byte[0];

  /** Returns true if {@code bytes} is a whole value of {@code key}. */
  private static boolean check(long key, byte[] bytes) {
    return bytes.length >= 12
        && ByteBuffer.wrap(bytes).getLong() == key
        && ByteBuffer.wrap(bytes).getInt(8) == bytes.length
        && patternHolds(key, bytes);
  }

  private static boolean patternHolds(long key, byte[] bytes) {
    for (int at = 12; at < bytes.length; at++) {
      if (bytes[at] != (byte) (key * 31 + at)) {
        return false;
      }
    }
    return true;
  }

  private static byte[] value(long key, int length) {
    ByteBuffer buffer = ByteBuffer.allocate(length).putLong(key).putInt(length);
    while (buffer.hasRemaining()) {
      buffer.put((byte) (key * 31 + buffer.position()));
    }
    return buffer.array();
  }

  private static byte[] copy(ByteBuffer view) {
    byte[] copy = new byte[view.remaining()];
    view.get(copy);
    return copy;
  }

  private static Runnable guard(
      AtomicReference<Throwable> failure, AtomicBoolean stop, Runnable body) {
    return () -> {
      try {
        body.run();
      } catch (Throwable t) {
        failure.compareAndSet(null, t);
        stop.set(true);
      }
    };
  }
}
