package dev.larder.server.internal.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.keyspace.HashPayload;
import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

/**
 * The keyspace as a Cache: database 0's strings, Cache's single-key contract, the keyspace's
 * figures, and the current cache after a resize.
 */
class KeyspaceCacheViewTest {

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] bytes) {
    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
  }

  @Test
  void singleKeyOperationsOnDatabaseZeroStrings() {
    try (Keyspace ks = new Keyspace(4 << 20, System::currentTimeMillis)) {
      KeyspaceCacheView view = new KeyspaceCacheView(ks);
      view.put("a", b("1"));
      assertEquals("1", s(ks.peek(0, b("a")).payload()), "RESP sees the write");
      assertNull(ks.peek(1, b("a")), "database 0 only");
      ks.put(1, b("other"), StoredValue.string(b("db1")));
      assertNull(view.getIfPresent("other"));

      assertEquals("1", s(view.putIfAbsent("a", b("2"))));
      assertNull(view.putIfAbsent("b", b("2")));
      assertEquals("2", s(view.get("b")));
      assertEquals("2", s(view.replace("b", b("3"))));
      assertNull(view.replace("absent", b("x")));
      assertFalse(view.containsKey("absent"));
      assertFalse(view.replace("b", b("wrong"), b("4")));
      assertTrue(view.replace("b", b("3"), b("4")));
      assertEquals("4", s(view.getIfPresent("b")));
      assertEquals("41", s(view.compute("b", (k, old) -> b(s(old) + "1"))));
      assertEquals("x", s(view.get("c", k -> b("x"))));
      assertEquals("x", s(view.get("c", k -> b("never"))));
      assertEquals(Map.of("a", "1", "c", "x"), strings(view.getAll(List.of("a", "c", "nope"))));
      assertFalse(view.remove("c", b("y")));
      assertTrue(view.remove("c", b("x")));
      assertEquals("1", s(view.remove("a")));
      assertNull(view.remove("a"));
      view.invalidate("b");
      assertFalse(view.containsKey("b"));

      view.putAll(Map.of("p", b("1"), "q", b("2")));
      view.invalidateAll();
      assertNull(view.getIfPresent("p"));
      assertEquals("db1", s(ks.peek(1, b("other")).payload()), "other databases untouched");

      byte[] value = b("kept");
      view.put("copy", value);
      value[0] = 'X';
      assertEquals("kept", s(view.getIfPresent("copy")), "the view stores a copy");
      assertThrows(NullPointerException.class, () -> view.put(null, b("v")));
      assertThrows(NullPointerException.class, () -> view.put("k", null));
    }
  }

  @Test
  void aHashIsNotAStringAndStaysUnchanged() {
    try (Keyspace ks = new Keyspace(4 << 20, System::currentTimeMillis)) {
      KeyspaceCacheView view = new KeyspaceCacheView(ks);
      ks.put(0, b("h"), new StoredValue(ValueType.HASH, 0, 0, 0,
          HashPayload.encode(Map.of("f", b("v")))));
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> view.getIfPresent("h"));
      assertTrue(e.getMessage().startsWith("WRONGTYPE"), e.getMessage());
      assertThrows(IllegalArgumentException.class,
          () -> view.compute("h", (k, old) -> b("x")));
      assertEquals(ValueType.HASH, ks.peek(0, b("h")).type());
      view.put("h", b("now a string")); // as SET does
      assertEquals("now a string", s(view.getIfPresent("h")));
    }
  }

  @Test
  void figuresAreTheKeyspacesAndFollowAResize() {
    try (Keyspace ks = new Keyspace(4 << 20, System::currentTimeMillis)) {
      KeyspaceCacheView view = new KeyspaceCacheView(ks);
      for (int i = 0; i < 50; i++) {
        ks.put(i % 3, b("k" + i), StoredValue.string(b("v" + i)));
      }
      assertArrayEquals(b("v0"), view.getIfPresent("k0"));
      assertNull(view.getIfPresent("k1"), "k1 is in database 1");
      assertEquals(50, view.estimatedSize(), "every database");
      assertEquals(4L << 20, view.maximumMemory().getAsLong());
      assertEquals(ks.memoryUsed(), view.memoryUsed());
      assertEquals(1, view.stats().hitCount());
      assertEquals(1, view.stats().missCount());
      assertTrue(view.recordsStats());

      Lock lock = ks.exclusive();
      lock.lock();
      try {
        ks.resize(2 << 20);
      } finally {
        lock.unlock();
      }
      assertEquals(2L << 20, view.maximumMemory().getAsLong());
      assertEquals(50, view.estimatedSize());
      assertEquals(ks.memoryUsed(), view.memoryUsed());
      assertArrayEquals(b("v3"), view.getIfPresent("k3"));
      assertEquals(2, view.stats().hitCount(), "the keyspace's counters survive the rebuild");
      view.close();
      assertArrayEquals(b("v3"), view.getIfPresent("k3"), "closing the view closes nothing");
    }
  }

  @Test
  void theMapViewIteratesDatabaseZeroStringsAndWritesThrough() {
    try (Keyspace ks = new Keyspace(4 << 20, System::currentTimeMillis)) {
      KeyspaceCacheView view = new KeyspaceCacheView(ks);
      var map = view.asMap();
      assertNull(map.put("a", b("1")));
      assertEquals("1", s(map.put("a", b("2"))), "put returns the value it replaced");
      map.put("b", b("3"));
      ks.put(0, b("h"), new StoredValue(ValueType.HASH, 0, 0, 0,
          HashPayload.encode(Map.of("f", b("v")))));
      ks.put(1, b("elsewhere"), StoredValue.string(b("db1")));
      java.util.Map<String, String> seen = new java.util.HashMap<>();
      map.forEach((k, v) -> seen.put(k, s(v)));
      assertEquals(Map.of("a", "2", "b", "3"), seen, "database 0's strings only");

      var it = map.entrySet().iterator();
      while (it.hasNext()) {
        if (it.next().getKey().equals("a")) {
          it.remove();
        }
      }
      assertNull(ks.peek(0, b("a")), "the iterator's remove reaches the keyspace");
      assertTrue(map.containsKey("b"));
      assertNull(map.putIfAbsent("c", b("4")));
      assertTrue(map.replace("c", b("4"), b("5")));
      assertEquals("5", s(ks.peek(0, b("c")).payload()));
      assertTrue(map.remove("c", b("5")));
      assertNull(map.get("c"));
      assertNull(map.get(null), "a null key is absent");
    }
  }

  private static Map<String, String> strings(Map<String, byte[]> m) {
    java.util.Map<String, String> out = new java.util.HashMap<>();
    m.forEach((k, v) -> out.put(k, s(v)));
    return out;
  }
}
