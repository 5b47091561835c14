package dev.larder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codecs;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A cache that becomes unreachable without being closed frees its off-heap pages and says so; a
 * closed one is not reported.
 */
class UnclosedCacheTest {

  private static final Logger LOGGER = Logger.getLogger("dev.larder.internal.SegmentRelease");

  private final List<LogRecord> records = new CopyOnWriteArrayList<>();
  private final Handler handler =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          records.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  @BeforeEach
  void listen() {
    LOGGER.addHandler(handler);
  }

  @AfterEach
  void stopListening() {
    LOGGER.removeHandler(handler);
  }

  @Test
  @Timeout(60)
  void anUnreachableUnclosedOffHeapCacheIsFreedWithAWarning() throws InterruptedException {
    fill(
        Cache.builder(Codecs.longs(), Codecs.bytes())
            .storage(Storage.OFF_HEAP)
            .maximumMemory(4 << 20)
            .build());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (records.isEmpty() && System.nanoTime() < deadline) {
      System.gc();
      Thread.sleep(50);
    }
    assertEquals(1, records.size(), "freed unclosed caches reported: " + records.size());
    LogRecord record = records.get(0);
    assertEquals(Level.WARNING, record.getLevel());
    long bytes = ((Number) record.getParameters()[0]).longValue();
    assertTrue(bytes > 1 << 20, "bytes freed: " + bytes);
  }

  @Test
  @Timeout(60)
  void aClosedCacheIsNotReportedWhenItBecomesUnreachable() throws InterruptedException {
    Cache<Long, byte[]> cache =
        Cache.builder(Codecs.longs(), Codecs.bytes())
            .storage(Storage.OFF_HEAP)
            .maximumMemory(4 << 20)
            .build();
    fill(cache);
    cache.close();
    cache = null;
    for (int i = 0; i < 10; i++) {
      System.gc();
      Thread.sleep(50);
    }
    assertEquals(List.of(), records);
  }

  private static void fill(Cache<Long, byte[]> cache) {
    for (long k = 0; k < 5_000; k++) {
      cache.put(k, new byte[1_000]);
    }
  }
}
