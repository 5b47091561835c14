package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Keyspace: versions, expiry on read and by sweep, databases, resize, the byte bound. */
class KeyspaceTest {
  private final AtomicLong now = new AtomicLong(1_000_000);

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void everyWriteGetsANewVersionAndNoChangeKeepsIt() {
    try (Keyspace ks = new Keyspace(4 << 20, now::get)) {
      long v1 = ks.put(0, b("k"), StoredValue.string(b("a"))).version();
      long v2 = ks.put(0, b("k"), StoredValue.string(b("a"))).version();
      assertNotEquals(v1, v2);
      Keyspace.Change same = ks.update(0, b("k"), before -> before);
      assertEquals(v2, same.after().version());
      assertEquals(v2, ks.peek(0, b("k")).version());
    }
  }

  @Test
  void storedBytesReadsSeeLiveValuesOnlyAndCount() {
    try (Keyspace ks = new Keyspace(4 << 20, now::get)) {
      ks.putString(0, b("s"), b("abc"));
      ks.put(0, b("e"), StoredValue.string(b("xyz")).withExpiry(now.get() + 10));
      byte[] s = ks.getStored(0, b("s"));
      assertEquals(
          "abc", new String(s, ValueLayout.header(s).payloadOffset(), 3, StandardCharsets.UTF_8));
      assertTrue(ks.peek(0, b("s")).version() > 0, "a plain SET is versioned too");
      assertNull(ks.getStored(1, b("s")), "another database");
      now.addAndGet(10);
      assertNull(ks.getStored(0, b("e")), "expired");
      assertEquals(1, ks.estimatedSize(), "the expired key was removed on read");
      assertEquals(1, ks.stats()[0], "hits");
      assertEquals(2, ks.stats()[1], "misses");
      assertEquals(1, ks.stats()[2], "expired");
    }
  }

  @Test
  void expiredKeysVanishOnReadAndBySweep() {
    try (Keyspace ks = new Keyspace(4 << 20, now::get)) {
      for (int i = 0; i < 100; i++) {
        ks.put(0, b("e" + i), StoredValue.string(b("v")).withExpiry(now.get() + 10));
      }
      ks.put(0, b("keep"), StoredValue.string(b("v")));
      now.addAndGet(10);
      assertNull(ks.get(0, b("e0")));
      int swept = 0;
      for (int round = 0; round < 10; round++) {
        swept += ks.sweepExpired(50);
      }
      assertEquals(99, swept);
      assertEquals(1, ks.size(0));
      assertEquals(100, ks.stats()[2], "expired keys counted");
    }
  }

  @Test
  void theSweepIdlesWithoutExpiringKeysAndWakesOnTheNextOne() {
    try (Keyspace ks = new Keyspace(4 << 20, now::get)) {
      assertTrue(ks.sweepIdle(), "an empty keyspace has nothing to sweep");
      for (int i = 0; i < 500; i++) {
        ks.put(0, b("plain" + i), StoredValue.string(b("v")));
      }
      assertTrue(ks.sweepIdle(), "plain writes do not wake the sweep");
      // An expiring write wakes it, through either write path; a whole pass without any
      // expiring key puts it back to sleep.
      ks.update(0, b("soon"), before -> StoredValue.string(b("v")).withExpiry(now.get() + 5));
      assertFalse(ks.sweepIdle());
      now.addAndGet(5);
      int swept = 0;
      for (int round = 0; round < 30 && !ks.sweepIdle(); round++) {
        swept += ks.sweepExpired(100);
      }
      assertEquals(1, swept);
      assertTrue(ks.sweepIdle(), "idle again after a pass with no expiring key");
      ks.put(1, b("later"), StoredValue.string(b("v")).withExpiry(now.get() + 5));
      assertFalse(ks.sweepIdle());
      now.addAndGet(5);
      for (int round = 0; round < 10 && ks.stats()[2] < 2; round++) {
        ks.sweepExpired(100);
      }
      assertEquals(2, ks.stats()[2], "both expiring keys removed by the sweep");
      assertEquals(500, ks.size(0));
    }
  }

  @Test
  void databasesFlushAndResize() {
    try (Keyspace ks = new Keyspace(4 << 20, now::get)) {
      ks.put(0, b("k"), StoredValue.string(b("zero")));
      ks.put(15, b("k"), StoredValue.string(b("fifteen")));
      assertEquals("fifteen", new String(ks.peek(15, b("k")).payload(), StandardCharsets.UTF_8));
      ks.flush(15);
      assertNull(ks.peek(15, b("k")));
      assertTrue(ks.delete(0, b("k")) && !ks.delete(0, b("k")));
      for (int i = 0; i < 1000; i++) {
        ks.put(1, b("r" + i), StoredValue.string(b("v" + i)));
      }
      ks.resize(8 << 20);
      assertEquals(8 << 20, ks.maxMemory());
      assertEquals(1000, ks.size(1));
      assertEquals("v7", new String(ks.peek(1, b("r7")).payload(), StandardCharsets.UTF_8));
    }
  }

  @Test
  void theByteBoundHoldsUnderTenTimesMoreData() {
    long bound = 2 << 20;
    try (Keyspace ks = new Keyspace(bound, now::get)) {
      byte[] value = new byte[200];
      for (int i = 0; i < 100_000; i++) {
        ks.put(0, b("key:" + i), StoredValue.string(value));
      }
      assertTrue(ks.memoryUsed() <= bound, ks.memoryUsed() + " > " + bound);
      assertFalse(ks.size(0) >= 100_000, "entries were evicted");
      assertTrue(ks.size(0) > 1000);
    }
  }
}
