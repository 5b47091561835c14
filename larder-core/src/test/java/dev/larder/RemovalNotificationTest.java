package dev.larder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codecs;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Conservation of removal notifications: three threads mix every kind of write, removal, expiry and
 * cleanUp on a bounded cache whose listener runs on the writing thread; every value carries a
 * unique version. Once invalidateAll has emptied the cache, each value that was stored must have
 * been reported removed exactly once, under its own key, and no value that was never stored. A
 * writer's results are counted from what the calls return (putIfAbsent returned null, replace a
 * previous value, compute the value itself); a value a load returned may or may not have been
 * stored (a write during the load keeps it out), so it may be reported, at most once. This caught
 * cleanUp on a cache without expiry taking a writer's removals from under its lock (a
 * ConcurrentModificationException, and notifications lost or delivered twice). The statistics'
 * eviction and expiration counts must match the notifications of those causes.
 */
class RemovalNotificationTest {

  private static final int OPERATIONS = 20_000;

  private final AtomicLong versions = new AtomicLong(1);
  private final AtomicLong nanos = new AtomicLong();
  private final Set<Long> stored = ConcurrentHashMap.newKeySet();

  /** Loaded values a load returned, which a write during the load keeps it from storing. */
  private final Set<Long> maybeStored = ConcurrentHashMap.newKeySet();

  private final Map<Long, RemovalCause> notified = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
  @Timeout(120)
  void everyStoredValueIsReportedRemovedExactlyOnce(long seed) throws Exception {
    Random config = new Random(seed);
    try (Cache<Long, byte[]> cache = build(config)) {
      ExecutorService threads = Executors.newFixedThreadPool(3);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
          Random random = new Random(seed * 17 + t);
          done.add(
              threads.submit(
                  () -> {
                    work(cache, random);
                    return null;
                  }));
        }
        for (Future<?> future : done) {
          future.get(100, TimeUnit.SECONDS);
        }
      } finally {
        threads.shutdownNow();
      }
      cache.invalidateAll();
      CacheStats stats = cache.stats();
      assertEquals(reported(RemovalCause.SIZE), stats.evictionCount(), "evictions");
      assertEquals(reported(RemovalCause.EXPIRED), stats.expirationCount(), "expirations");
    }
    assertTrue(problems.isEmpty(), () -> problems.stream().limit(5).toList().toString());
    Set<Long> missing = new TreeSet<>(stored);
    missing.removeAll(notified.keySet());
    Set<Long> phantom = new TreeSet<>(notified.keySet());
    phantom.removeAll(stored);
    phantom.removeAll(maybeStored);
    assertEquals(Set.of(), missing, "stored but never reported removed");
    assertEquals(Set.of(), phantom, "reported removed but never stored");
  }

  private Cache<Long, byte[]> build(Random config) {
    CacheBuilder<Long, byte[]> builder =
        Cache.builder(Codecs.longs(), Codecs.bytes())
            .storage(config.nextBoolean() ? Storage.HEAP : Storage.OFF_HEAP)
            .executor(Runnable::run)
            .ticker(nanos::get)
            .removalListener(this::onRemoval)
            .recordStats();
    if (config.nextBoolean()) {
      builder.maximumMemory((64L << 10) << config.nextInt(5));
    } else {
      builder.maximumEntries(1 + config.nextInt(1500));
    }
    if (config.nextInt(3) == 0) {
      builder.expireAfterWrite(Duration.ofNanos(100_000));
    } else if (config.nextInt(3) == 0) {
      builder.expireAfterAccess(Duration.ofNanos(100_000));
    }
    if (config.nextBoolean()) {
      builder.segments(1 << config.nextInt(4));
    }
    Random loads = new Random(config.nextLong());
    return builder
        .loader(
            key -> {
              synchronized (loads) {
                return value(key, loads);
              }
            })
        .build();
  }

  private long reported(RemovalCause cause) {
    return notified.values().stream().filter(c -> c == cause).count();
  }

  private void onRemoval(Long key, byte[] value, RemovalCause cause) {
    ByteBuffer bytes = ByteBuffer.wrap(value);
    long version = bytes.getLong();
    if (bytes.getLong() != key) {
      problems.add("version " + version + " reported under key " + key);
    }
    RemovalCause earlier = notified.put(version, cause);
    if (earlier != null) {
      problems.add("version " + version + " reported twice: " + earlier + ", then " + cause);
    }
  }

  private void work(Cache<Long, byte[]> cache, Random random) {
    for (int op = 0; op < OPERATIONS; op++) {
      long key = random.nextInt(4) == 0 ? random.nextInt(5000) : random.nextInt(200);
      byte[] value = value(key, random);
      long version = version(value);
      switch (random.nextInt(16)) {
        case 0, 1, 2 -> {
          cache.put(key, value);
          stored.add(version);
        }
        case 3 -> storedIf(cache.putIfAbsent(key, value) == null, version);
        case 4 -> storedIf(cache.replace(key, value) != null, version);
        case 5 -> {
          byte[] current = cache.getIfPresent(key);
          storedIf(current != null && cache.replace(key, current, value), version);
        }
        case 6 ->
            storedVersionOf(cache.compute(key, (k, old) -> random.nextInt(4) == 0 ? null : value));
        case 7 -> maybeStoredIf(version(cache.get(key, k -> value)) == version, version);
        case 8 -> {
          byte[] loaded = cache.get(key);
          if (loaded != null) {
            maybeStored.add(version(loaded));
          }
        }
        case 9 -> cache.remove(key);
        case 10 -> cache.invalidate(key);
        case 11 -> {
          byte[] current = cache.getIfPresent(key);
          if (current != null) {
            cache.remove(key, current);
          }
        }
        case 12 -> nanos.addAndGet(random.nextInt(5_000));
        case 13 -> {
          if (random.nextInt(100) == 0) {
            cache.invalidateAll();
          } else if (random.nextInt(3) == 0) {
            cache.cleanUp();
          }
        }
        default -> cache.getIfPresent(key);
      }
    }
  }

  private void storedIf(boolean applied, long version) {
    if (applied) {
      stored.add(version);
    }
  }

  private void maybeStoredIf(boolean returned, long version) {
    if (returned) {
      maybeStored.add(version);
    }
  }

  /** A computed value that compute returned was stored. */
  private void storedVersionOf(byte[] value) {
    if (value != null) {
      stored.add(version(value));
    }
  }

  private byte[] value(long key, Random random) {
    return ByteBuffer.allocate(16 + random.nextInt(400))
        .putLong(versions.getAndIncrement())
        .putLong(key)
        .array();
  }

  private static long version(byte[] value) {
    return value == null ? 0 : ByteBuffer.wrap(value).getLong();
  }
}
