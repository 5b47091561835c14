package dev.larder.server.internal.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.http.CacheFigures;
import dev.larder.server.internal.keyspace.HashPayload;
import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

/**
 * The keyspace as larder-http serves it: REST's entry operations on database 0's strings, the
 * keyspace's figures (with what the server does not measure left empty), and the current cache
 * after a resize.
 */
class ServedKeyspaceTest {

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] bytes) {
    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
  }

  @Test
  void entryOperationsOnDatabaseZeroStrings() {
    try (Keyspace ks = new Keyspace(4 << 20, System::currentTimeMillis)) {
      ServedKeyspace served = new ServedKeyspace(ks);
      served.put("a", b("1"));
      assertEquals("1", s(ks.peek(0, b("a")).payload()), "RESP sees the write");
      assertNull(ks.peek(1, b("a")), "database 0 only");
      ks.put(1, b("other"), StoredValue.string(b("db1")));
      assertNull(served.getIfPresent("other"));
      assertEquals("1", s(served.getIfPresent("a")));

      assertTrue(served.remove("a"));
      assertFalse(served.remove("a"), "nothing left to remove");
      assertNull(ks.peek(0, b("a")));
      assertEquals("db1", s(ks.peek(1, b("other")).payload()), "other databases untouched");

      byte[] value = b("kept");
      served.put("copy", value);
      value[0] = 'X';
      assertEquals("kept", s(served.getIfPresent("copy")), "a copy is stored");
      assertThrows(NullPointerException.class, () -> served.put(null, b("v")));
      assertThrows(NullPointerException.class, () -> served.put("k", null));
    }
  }

  @Test
  void aHashIsNotAStringButIsRemovedAsDelDoes() {
    try (Keyspace ks = new Keyspace(4 << 20, System::currentTimeMillis)) {
      ServedKeyspace served = new ServedKeyspace(ks);
      ks.put(
          0,
          b("h"),
          new StoredValue(ValueType.HASH, 0, 0, 0, HashPayload.encode(Map.of("f", b("v")))));
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> served.getIfPresent("h"));
      assertTrue(e.getMessage().startsWith("WRONGTYPE"), e.getMessage());
      assertEquals(ValueType.HASH, ks.peek(0, b("h")).type(), "a refused read changes nothing");
      served.put("h", b("now a string")); // as SET does
      assertEquals("now a string", s(served.getIfPresent("h")));

      ks.put(
          0,
          b("h2"),
          new StoredValue(ValueType.HASH, 0, 0, 0, HashPayload.encode(Map.of("f", b("v")))));
      assertTrue(served.remove("h2"));
      assertNull(ks.peek(0, b("h2")));
    }
  }

  @Test
  void figuresAreTheKeyspacesAndFollowAResize() {
    try (Keyspace ks = new Keyspace(4 << 20, System::currentTimeMillis)) {
      ServedKeyspace served = new ServedKeyspace(ks);
      for (int i = 0; i < 50; i++) {
        ks.put(i % 3, b("k" + i), StoredValue.string(b("v" + i)));
      }
      assertArrayEquals(b("v0"), served.getIfPresent("k0"));
      assertNull(served.getIfPresent("k1"), "k1 is in database 1");
      CacheFigures f = served.figures();
      assertEquals(50, f.entries(), "every database");
      assertEquals(4L << 20, f.maximumMemory().getAsLong());
      assertTrue(f.maximumEntries().isEmpty());
      assertEquals(ks.memoryUsed(), f.memoryUsed());
      assertEquals(1, f.hits());
      assertEquals(1, f.misses());
      assertEquals(ks.stats()[2], f.expirations());
      assertEquals(ks.stats()[3], f.evictions());
      assertTrue(f.statistics());

      // What the server does not measure is said to be unmeasured, not 0.
      assertTrue(f.puts().isEmpty(), "puts");
      assertTrue(f.removals().isEmpty(), "removals");
      assertTrue(f.loadSuccesses().isEmpty(), "load successes");
      assertTrue(f.loadFailures().isEmpty(), "load failures");
      assertTrue(f.getLatency().isEmpty(), "get latency");
      assertTrue(f.putLatency().isEmpty(), "put latency");
      assertTrue(f.loadLatency().isEmpty(), "load latency");
      assertTrue(f.dictionary().isEmpty());

      Lock lock = ks.exclusive();
      lock.lock();
      try {
        ks.resize(2 << 20);
      } finally {
        lock.unlock();
      }
      CacheFigures after = served.figures();
      assertEquals(2L << 20, after.maximumMemory().getAsLong());
      assertEquals(50, after.entries());
      assertEquals(ks.memoryUsed(), after.memoryUsed());
      assertArrayEquals(b("v3"), served.getIfPresent("k3"));
      assertEquals(2, served.figures().hits(), "the keyspace's counters survive the rebuild");
    }
  }
}
