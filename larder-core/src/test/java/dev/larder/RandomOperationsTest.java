package dev.larder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.ByteSink;
import dev.larder.codec.Codecs;
import dev.larder.internal.bulk.BulkRestore;
import dev.larder.internal.bulk.EncodedEntries;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every operation of the public API, in a seeded random mix from three threads, over a cache whose
 * configuration is drawn from the same seed: storage, entry or byte bound (small ones included),
 * segment count, expiry against a ticker the threads advance, statistics, a loader that fails or
 * finds nothing for some keys, and values from one byte to larger than the bound. Values encode
 * their key, so a value read under another key or torn is caught. A bulk restore of a few entries
 * is one of the operations. Checked: only the documented exceptions, the bound after every
 * operation, and at quiescence an iteration that agrees with the size, invalidateAll that empties,
 * close that is idempotent and final. This harness found that a bound smaller than the segments
 * asked for was not kept.
 */
class RandomOperationsTest {

  private static final int THREADS = 3;
  private static final int OPERATIONS = 12_000;
  private static final int KEYS = 300;

  private final AtomicLong nanos = new AtomicLong();

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
  @Timeout(120)
  void documentedBehaviourUnderARandomMixOfEveryOperation(long seed) throws Exception {
    Config config = Config.draw(new Random(seed));
    Cache<Long, byte[]> cache = config.build(nanos);
    try {
      runThreads(cache, seed, config);
      cache.cleanUp();
      assertTrue(
          config.within(cache),
          config + ": " + cache.estimatedSize() + " entries, " + cache.memoryUsed() + " bytes");
      long iterated = 0;
      for (Map.Entry<Long, byte[]> entry : cache.asMap().entrySet()) {
        checkValue(entry.getKey(), entry.getValue());
        iterated++;
      }
      if (!config.expires) {
        assertEquals(cache.estimatedSize(), iterated, config.toString());
      }
      cache.invalidateAll();
      assertEquals(0, cache.estimatedSize(), config.toString());
    } finally {
      cache.close();
    }
    cache.close();
    assertThrows(IllegalStateException.class, () -> cache.getIfPresent(1L));
  }

  private void runThreads(Cache<Long, byte[]> cache, long seed, Config config) throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        Random random = new Random(seed * 31 + t);
        done.add(
            threads.submit(
                () -> {
                  work(cache, random, config);
                  return null;
                }));
      }
      for (Future<?> future : done) {
        future.get(100, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
  }

  private void work(Cache<Long, byte[]> cache, Random random, Config config) {
    for (int op = 0; op < OPERATIONS; op++) {
      long key = random.nextInt(4) == 0 ? random.nextInt(20 * KEYS) : random.nextInt(KEYS);
      int length =
          random.nextInt(100) == 0 ? 100_000 + random.nextInt(200_000) : 1 + random.nextInt(600);
      try {
        operate(cache, random, key, length);
      } catch (IllegalArgumentException e) {
        // Only an entry that can never fit may be refused. The refused entry may be another
        // thread's: a load shares its outcome with the callers that waited on it.
        assertTrue(refusedEntryBytes(e) > config.smallestRefused(), config + ": " + e);
      } catch (CacheLoadingException e) {
        // getAll also loads the next key
        assertTrue(
            e.getCause() instanceof IOException io
                && failsToLoad(Long.parseLong(io.getMessage().substring("cannot load ".length()))),
            e.toString());
      }
      assertTrue(
          config.within(cache),
          config + ": " + cache.estimatedSize() + " entries, " + cache.memoryUsed() + " bytes");
    }
  }

  private void operate(Cache<Long, byte[]> cache, Random random, long key, int length) {
    switch (random.nextInt(21)) {
      case 0, 1, 2, 3 -> checkValue(key, cache.getIfPresent(key));
      case 4, 5 -> checkValue(key, cache.get(key));
      case 6 -> checkValue(key, cache.get(key, k -> k % 11 == 0 ? null : value(k, length)));
      case 7, 8, 9 -> cache.put(key, value(key, length));
      case 10 -> checkValue(key, cache.putIfAbsent(key, value(key, length)));
      case 11 -> checkValue(key, cache.replace(key, value(key, length)));
      case 12 -> cache.replace(key, value(key, length), value(key, 1 + random.nextInt(100)));
      case 13 -> checkValue(key, cache.remove(key));
      case 14 -> cache.invalidate(key);
      case 15 ->
          checkValue(
              key,
              cache.compute(
                  key,
                  (k, old) ->
                      random.nextInt(5) == 0
                          ? null
                          : value(k, old == null ? length : old.length % 600 + 1)));
      case 16 -> cache.getAll(List.of(key, key + 1, key)).forEach(RandomOperationsTest::checkValue);
      case 17 -> nanos.addAndGet(random.nextInt(20_000));
      case 18 -> {
        int seen = 0;
        for (Map.Entry<Long, byte[]> entry : cache.asMap().entrySet()) {
          checkValue(entry.getKey(), entry.getValue());
          if (++seen == 50) {
            break;
          }
        }
      }
      case 19 -> {
        EncodedEntries entries = new EncodedEntries(1, 64);
        for (int i = random.nextInt(8); i >= 0; i--) {
          long k = random.nextInt(3) == 0 ? key : random.nextInt(KEYS);
          ByteSink encoded = new ByteSink();
          Codecs.longs().encodeLast(k, encoded);
          entries.add(encoded.toByteArray(), value(k, i == 0 ? length : 1 + random.nextInt(600)));
        }
        ((BulkRestore) cache).restore(entries);
      }
      default -> {
        if (random.nextInt(200) == 0) {
          cache.invalidateAll();
        } else if (random.nextInt(50) == 0) {
          cache.cleanUp();
        }
        cache.containsKey(key);
        cache.stats();
      }
    }
  }

  private static long refusedEntryBytes(IllegalArgumentException e) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("an entry of (\\d+) bytes can never fit")
            .matcher(String.valueOf(e.getMessage()));
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  private static boolean failsToLoad(long key) {
    return key % 13 == 0;
  }

  private static byte[] load(long key) throws IOException {
    if (failsToLoad(key)) {
      throw new IOException("cannot load " + key);
    }
    return key % 7 == 0 ? null : value(key, 1 + (int) (key % 300));
  }

  private static byte[] value(long key, int length) {
    byte[] value = new byte[length];
    for (int i = 0; i < length; i++) {
      value[i] = (byte) (key * 31 + i);
    }
    return value;
  }

  private static void checkValue(Long key, byte[] value) {
    if (value == null) {
      return;
    }
    for (int i = 0; i < value.length; i++) {
      if (value[i] != (byte) (key * 31 + i)) {
        throw new AssertionError(
            "value of " + value.length + " bytes for key " + key + " differs at byte " + i);
      }
    }
  }

  /** One cache configuration drawn from a seed. */
  private record Config(
      Storage storage,
      boolean byteBound,
      long bound,
      int segments,
      boolean expires,
      boolean afterAccess,
      boolean stats) {

    static Config draw(Random random) {
      boolean byteBound = random.nextBoolean();
      long bound = byteBound ? (64L << 10) << random.nextInt(6) : 1 + random.nextInt(2000);
      boolean expires = random.nextInt(3) == 0;
      return new Config(
          random.nextBoolean() ? Storage.HEAP : Storage.OFF_HEAP,
          byteBound,
          bound,
          random.nextBoolean() ? 0 : 1 << random.nextInt(9),
          expires,
          expires && random.nextBoolean(),
          random.nextBoolean());
    }

    Cache<Long, byte[]> build(AtomicLong nanos) {
      CacheBuilder<Long, byte[]> builder =
          Cache.builder(Codecs.longs(), Codecs.bytes())
              .storage(storage)
              .ticker(nanos::get)
              .loader(RandomOperationsTest::load);
      if (byteBound) {
        builder.maximumMemory(bound);
      } else {
        builder.maximumEntries(bound);
      }
      if (segments > 0) {
        builder.segments(segments);
      }
      if (expires && afterAccess) {
        builder.expireAfterAccess(Duration.ofNanos(200_000));
      } else if (expires) {
        builder.expireAfterWrite(Duration.ofNanos(200_000));
      }
      if (stats) {
        builder.recordStats();
      }
      return builder.build();
    }

    boolean within(Cache<?, ?> cache) {
      return byteBound ? cache.memoryUsed() <= bound : cache.estimatedSize() <= bound;
    }

    /** Returns the entry size up to which no write may be refused. */
    long smallestRefused() {
      // a byte-bounded segment has at least 64 KiB; an entry-bounded one has no byte limit
      return byteBound ? 16 << 10 : Long.MAX_VALUE;
    }
  }
}
