package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The open-collections tier of sets and hashes ({@link OpenCollections}): when a collection opens,
 * when it closes, and that every path around it (generic reads and updates, blind writes, eviction,
 * expiry, FLUSHALL) sees the collection whole and leaves no chunk behind.
 */
class OpenCollectionsTest {
  private static final byte[] KEY = b("set");
  private final AtomicLong now = new AtomicLong(1_000_000);

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] b) {
    return new String(b, StandardCharsets.ISO_8859_1);
  }

  private static void add(Keyspace ks, byte[] key, int from, int to) {
    ks.editSet(
        0,
        key,
        (before, set) -> {
          for (int i = from; i < to; i++) {
            set.add(b("element:" + i));
          }
          return null;
        });
  }

  private static Set<String> members(Keyspace ks, byte[] key) {
    Set<String> out = new HashSet<>();
    List<byte[]> read = ks.readSet(0, key, (before, set) -> set == null ? null : set.keys());
    if (read != null) {
      read.forEach(m -> out.add(s(m)));
    }
    return out;
  }

  private static Set<String> expected(int to) {
    Set<String> out = new HashSet<>();
    for (int i = 0; i < to; i++) {
      out.add("element:" + i);
    }
    return out;
  }

  private static long open(Keyspace ks) {
    return ks.openCollectionStats()[0];
  }

  /** A chunked set of 5,000 members, then changes one at a time until it opens. */
  private static void openSet(Keyspace ks, byte[] key) {
    add(ks, key, 0, 5_000);
    // Bounded generously: a window of the hot counter may end on a slow machine and start again.
    for (int i = 0; i < 10_000 && ks.openCollections().get(stored(key)) == null; i++) {
      add(ks, key, 5_000 + i, 5_001 + i);
    }
    assertNotNull(ks.openCollections().get(stored(key)), "the set opened");
  }

  private static byte[] stored(byte[] key) {
    return Keyspace.storedKey(0, key);
  }

  @Test
  void aChunkedSetOpensWhenHotAndItsChangesReachTheStoreWhenItCloses() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      add(ks, KEY, 0, 5_000);
      assertEquals(0, open(ks), "a set converted to chunks does not open at once");
      for (int i = 1; i < OpenCollections.OPEN_AFTER - 1; i++) {
        add(ks, KEY, 5_000 + i - 1, 5_000 + i);
      }
      assertEquals(0, open(ks), "not yet hot");
      for (int i = OpenCollections.OPEN_AFTER - 1; i <= OpenCollections.OPEN_AFTER + 100; i++) {
        add(ks, KEY, 5_000 + i - 1, 5_000 + i);
      }
      assertEquals(1, open(ks), "hot: open");
      byte[] headBefore = ks.store().getIfPresent(stored(KEY));
      add(ks, KEY, 10_000, 10_500);
      assertTrue(
          java.util.Arrays.equals(headBefore, ks.store().getIfPresent(stored(KEY))),
          "an open set's changes do not touch the store");
      Set<String> want = expected(5_000 + OpenCollections.OPEN_AFTER + 100);
      for (int i = 10_000; i < 10_500; i++) {
        want.add("element:" + i);
      }
      assertEquals(want, members(ks, KEY), "read from the open set");
      assertTrue(ks.memoryUsed() > ks.storeMemoryUsed(), "its bytes count in used memory");
      ks.closeOpenCollections();
      assertEquals(0, open(ks));
      assertEquals(want.size(), SetPayload.size(ks.peek(0, KEY).payload()), "the store has it");
      assertEquals(0, ChunkCensus.of(ks).orphans(), "no chunk left unnamed");
    }
  }

  @Test
  void anIdleOpenSetClosesByItself() throws InterruptedException {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      openSet(ks, KEY);
      add(ks, KEY, 20_000, 20_010);
      // The closing task runs every 100 ms and closes a set idle for a second: wait up to 60 s.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (open(ks) > 0 && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertEquals(0, open(ks), "closed once idle");
      byte[] head = StoredUnderStripe.read(ks, stored(KEY));
      StoredValue v = ValueLayout.decode(head);
      RangeChunks.Index index = RangeChunks.Index.decode(ValueType.SET, v.payload());
      assertTrue(index.total() >= 5_010, "its changes were written: " + index.total());
      assertEquals(0, ChunkCensus.of(ks).orphans());
    }
  }

  @Test
  void theBudgetBoundsWhatOpensAndACommandOverItClosesItsKey() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      ks.openCollections().openAfter(1);
      add(ks, KEY, 0, 5_000);
      add(ks, b("other"), 0, 5_000);
      ks.openCollections().budget(0);
      add(ks, KEY, 5_000, 5_001);
      assertEquals(0, open(ks), "no room: not opened");
      ks.openCollections().budget(1 << 20);
      add(ks, KEY, 5_001, 5_002);
      assertEquals(1, open(ks), "room: opened");
      long held = ks.openCollectionStats()[1];
      assertTrue(held > 0 && held <= 1 << 20, "its bytes are counted: " + held);
      ks.openCollections().budget(held / 2);
      // The tier recounts a collection's bytes every RECOUNT_EVERY changes.
      int end = 5_002 + OpenCollections.RECOUNT_EVERY;
      for (int i = 5_002; i < end; i++) {
        add(ks, KEY, i, i + 1);
      }
      assertEquals(0, open(ks), "over the budget: a command closed its key");
      assertEquals(expected(end), members(ks, KEY));
      assertEquals(0, ks.openCollectionStats()[1], "no bytes held");
      assertEquals(0, ChunkCensus.of(ks).orphans());
    }
  }

  @Test
  void genericReadsAndUpdatesOfAnOpenKeyCloseItFirst() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      openSet(ks, KEY);
      add(ks, KEY, 30_000, 30_100);
      int size = members(ks, KEY).size();
      // DUMP reads the value's stored bytes
      assertEquals(size, SetPayload.size(ValueLayout.decode(ks.getStored(0, KEY)).payload()));
      assertEquals(0, open(ks), "DUMP closed it");
      openSet(ks, KEY);
      add(ks, KEY, 31_000, 31_100);
      size = members(ks, KEY).size();
      // RENAME: a read of the whole value, a put, a delete
      StoredValue whole = ks.peek(0, KEY);
      ks.put(0, b("renamed"), whole);
      ks.delete(0, KEY);
      assertEquals(0, open(ks));
      assertEquals(size, SetPayload.size(ks.peek(0, b("renamed")).payload()), "renamed whole");
      assertNull(ks.peekHeader(0, KEY));
      // EXPIRE: a generic update
      openSet(ks, b("renamed"));
      add(ks, b("renamed"), 40_000, 40_050);
      Keyspace.Change c = ks.update(0, b("renamed"), v -> v.withExpiry(now.get() + 10_000));
      assertNotNull(c.after());
      assertEquals(0, open(ks), "EXPIRE closed it");
      StoredValue header = ks.peekHeader(0, b("renamed"));
      assertEquals(now.get() + 10_000, header.expiresAtMillis());
      assertTrue(members(ks, b("renamed")).contains("element:40049"), "the change kept");
      assertEquals(0, ChunkCensus.of(ks).orphans());
    }
  }

  @Test
  void aBlindSetOrDelOfAnOpenKeyWinsAndLeavesNoChunk() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      openSet(ks, KEY);
      add(ks, KEY, 50_000, 50_100);
      ks.putString(0, KEY, b("a string"));
      assertEquals("a string", s(ks.peek(0, KEY).payload()));
      assertEquals(0, open(ks), "dropped with the head it was opened from");
      assertEquals(0, ChunkCensus.of(ks).total(), "the old set's chunks are gone");
      assertNull(ks.readSet(0, KEY, (before, set) -> set));

      ks.delete(0, KEY);
      openSet(ks, KEY);
      ks.delete(0, KEY);
      assertTrue(members(ks, KEY).isEmpty(), "deleted");
      add(ks, KEY, 0, 3);
      assertEquals(expected(3), members(ks, KEY), "a new set, not the old one");
      assertEquals(0, ChunkCensus.of(ks).orphans());
    }
  }

  @Test
  void anOpenSetThatExpiresIsRemovedOnceAndCountedOnce() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      add(ks, KEY, 0, 5_000);
      ks.update(0, KEY, v -> v.withExpiry(now.get() + 1_000));
      openSet(ks, KEY);
      now.addAndGet(2_000);
      long expiredBefore = ks.stats()[2];
      assertTrue(members(ks, KEY).isEmpty(), "expired");
      add(ks, KEY, 0, 1);
      assertEquals(Set.of("element:0"), members(ks, KEY), "a new set");
      assertEquals(1, ks.stats()[2] - expiredBefore, "counted once");
      ks.delete(0, KEY);
      assertEquals(0, ChunkCensus.of(ks).total());
    }
  }

  @Test
  void anOpenSetIsEvictedWholeAndOnce() {
    try (Keyspace ks = new Keyspace(2 << 20, now::get)) {
      ks.openCollections().openAfter(1);
      ks.openCollections().budget(1 << 20);
      add(ks, KEY, 0, 5_000);
      add(ks, KEY, 5_000, 5_001);
      assertEquals(1, open(ks), "open");
      byte[] filler = new byte[200];
      int i = 0;
      // Each filler read a few times, so that the policy's frequency sketch prefers it to the
      // set's head, which every command of the open set reads.
      while (ks.store().getIfPresent(stored(KEY)) != null && i < 200_000) {
        byte[] k = b("filler:" + i++);
        ks.putString(0, k, filler);
        for (int r = 0; r < 4; r++) {
          ks.get(0, k);
        }
      }
      assertNull(ks.store().getIfPresent(stored(KEY)), "evicted within " + i + " writes");
      assertEquals(0, open(ks), "the open set went with it");
      assertTrue(members(ks, KEY).isEmpty(), "absent");
      assertEquals(0, ChunkCensus.of(ks).total(), "none of its chunks is left");
    }
  }

  @Test
  void flushAllDropsOpenCollections() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      openSet(ks, KEY);
      ks.flushAll();
      assertEquals(0, open(ks));
      assertEquals(0, ks.estimatedSize());
      assertTrue(members(ks, KEY).isEmpty());
      ks.closeOpenCollections();
      assertEquals(0, ks.estimatedSize(), "nothing written back");
    }
  }

  @Test
  void anOpenHashServesItsCommandsAndClosesWhole() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      ks.openCollections().openAfter(1);
      Map<String, String> model = new HashMap<>();
      for (int round = 0; round < 40; round++) {
        int r = round;
        ks.editHash(
            0,
            KEY,
            (before, hash) -> {
              for (int i = 0; i < 200; i++) {
                hash.put(b("field:" + (r * 97 + i) % 3_000), b("value:" + r + ":" + i));
              }
              hash.remove(b("field:" + r));
              return null;
            });
        for (int i = 0; i < 200; i++) {
          model.put("field:" + (r * 97 + i) % 3_000, "value:" + r + ":" + i);
        }
        model.remove("field:" + r);
      }
      assertEquals(1, open(ks), "the hash opened");
      Map<String, String> read = new HashMap<>();
      ks.readHash(
          0,
          KEY,
          (before, hash) -> {
            hash.entries().forEach(e -> read.put(s(e[0]), s(e[1])));
            return null;
          });
      assertEquals(model, read, "served open");
      ks.closeOpenCollections();
      Map<String, String> stored = new HashMap<>();
      HashPayload.decode(ks.peek(0, KEY).payload()).forEach((f, v) -> stored.put(f, s(v)));
      assertEquals(model, stored, "the store has it");
      assertEquals(0, ChunkCensus.of(ks).orphans());
      assertFalse(ks.openCollectionStats()[2] == 0, "opened counted");
    }
  }

  @Test
  void aCommandThatThrowsOnAnOpenSetChangesNothing() {
    for (boolean tier : new boolean[] {true, false}) {
      try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
        ks.openCollections(tier);
        add(ks, KEY, 0, 5_000);
        if (tier) {
          openSet(ks, KEY);
        }
        Set<String> before = members(ks, KEY);
        IllegalStateException thrown =
            org.junit.jupiter.api.Assertions.assertThrows(
                IllegalStateException.class,
                () ->
                    ks.editSet(
                        0,
                        KEY,
                        (v, set) -> {
                          for (int i = 0; i < 300; i++) {
                            set.add(b("new:" + i)); // several chunks changed
                          }
                          set.remove(b("element:1"));
                          throw new IllegalStateException("midway");
                        }));
        assertEquals("midway", thrown.getMessage());
        assertEquals(tier ? 1 : 0, open(ks), "tier " + tier);
        assertEquals(before, members(ks, KEY), "nothing of the command kept, tier " + tier);
        int size = ks.readSet(0, KEY, (v, set) -> set.size());
        assertEquals(before.size(), size, "its count as before, tier " + tier);
        add(ks, KEY, 90_000, 90_001);
        ks.closeOpenCollections();
        before.add("element:90000");
        assertEquals(before.size(), SetPayload.size(ks.peek(0, KEY).payload()), "stored");
        assertEquals(before, members(ks, KEY), "the store has the rest, tier " + tier);
        assertEquals(0, ChunkCensus.of(ks).orphans());
      }
    }
  }

  @Test
  void aCommandThatThrowsOnAnOpenHashChangesNothing() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      ks.openCollections().openAfter(1);
      for (int round = 0; round < 3; round++) {
        ks.editHash(
            0,
            KEY,
            (v, hash) -> {
              for (int i = 0; i < 3_000; i++) {
                hash.put(b("field:" + i), b("value:" + i));
              }
              return null;
            });
      }
      assertEquals(1, open(ks), "the hash opened");
      org.junit.jupiter.api.Assertions.assertThrows(
          IllegalStateException.class,
          () ->
              ks.editHash(
                  0,
                  KEY,
                  (v, hash) -> {
                    hash.put(b("field:7"), b("changed"));
                    hash.put(b("field:new"), b("new"));
                    hash.remove(b("field:8"));
                    throw new IllegalStateException("midway");
                  }));
      Map<String, String> read = new HashMap<>();
      ks.readHash(
          0,
          KEY,
          (v, hash) -> {
            hash.entries().forEach(e -> read.put(s(e[0]), s(e[1])));
            return null;
          });
      assertEquals(3_000, read.size(), "no field added or removed");
      assertEquals("value:7", read.get("field:7"), "no value changed");
      assertEquals("value:8", read.get("field:8"));
    }
  }

  @Test
  void positionsInAnOpenSetFollowItsChanges() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      openSet(ks, KEY);
      java.util.Random random = new java.util.Random(42);
      for (int round = 0; round < 30; round++) {
        int r = round;
        ks.editSet(
            0,
            KEY,
            (v, set) -> {
              assertPositionsMatchOrder(set);
              // adds (some chunks grow and split after the command) and removes by position
              for (int i = 0; i < 150; i++) {
                set.add(b("more:" + r + ":" + i));
              }
              for (int i = 0; i < 60; i++) {
                set.remove(set.key(random.nextInt(set.size())));
              }
              assertPositionsMatchOrder(set);
              return null;
            });
      }
      assertEquals(1, open(ks), "served open throughout");
    }
  }

  /** Every position's entry is the one at that place of the whole order. */
  private static void assertPositionsMatchOrder(RangeBody set) {
    List<byte[]> order = set.keys();
    assertEquals(set.size(), order.size());
    for (int i = 0; i < order.size(); i++) {
      assertEquals(s(order.get(i)), s(set.key(i)), "position " + i);
    }
  }

  @Test
  void aChunkedSetReadOftenOpensAndServesItsReads() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      add(ks, KEY, 0, 5_000);
      ks.closeOpenCollections();
      byte[] headBefore = ks.store().getIfPresent(stored(KEY));
      // Bounded generously: a window of the hot counter may end on a slow machine and start again.
      for (int i = 0; i < 10_000 && open(ks) == 0; i++) {
        byte[] member = b("element:" + i % 5_000);
        boolean found = ks.readSet(0, KEY, (before, set) -> set.contains(member));
        assertTrue(found, "member " + i);
      }
      assertEquals(1, open(ks), "reads alone opened it");
      boolean absent = !ks.readSet(0, KEY, (before, set) -> set.contains(b("element:5000")));
      assertTrue(absent, "not a member");
      assertEquals(expected(5_000), members(ks, KEY));
      ks.closeOpenCollections();
      assertArrayEquals(
          headBefore, ks.store().getIfPresent(stored(KEY)), "a close after reads writes nothing");
    }
  }
}
