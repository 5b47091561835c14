package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.keyspace.ZSetPayload.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The open-collections tier of sorted sets ({@link OpenCollections}, {@link ZSetStore}): when a
 * chunked sorted set opens, when it closes, and that every path around it (generic reads and
 * updates, blind writes, eviction, expiry) sees the set whole and leaves no chunk behind. Waits are
 * bounded generously; no test assumes threads interleave.
 */
class OpenCollectionsZSetTest {
  private static final byte[] KEY = b("zset");
  private final AtomicLong now = new AtomicLong(1_000_000);

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] b) {
    return new String(b, StandardCharsets.ISO_8859_1);
  }

  /** ZADD of members {@code element:from} to {@code element:to - 1}, each at its number. */
  private static void add(Keyspace ks, byte[] key, int from, int to) {
    ks.editZSet(
        0,
        key,
        (before, z) -> {
          if (z == null) {
            return null; // another type is there now
          }
          for (int i = from; i < to; i++) {
            z.put(b("element:" + i), i);
          }
          return null;
        });
  }

  private static int card(Keyspace ks, byte[] key) {
    Integer n = ks.readZSet(0, key, (before, z) -> z == null ? null : z.size());
    return n == null ? 0 : n;
  }

  private static long open(Keyspace ks) {
    return ks.openCollectionStats()[0];
  }

  private static byte[] stored(byte[] key) {
    return Keyspace.storedKey(0, key);
  }

  /** Members a set opened by {@link #openZSet} starts with: some 30 KiB, a few chunks a side. */
  private static final int BASE = 1_500;

  /** A chunked sorted set of {@link #BASE} members, then changes one at a time until it opens. */
  private static void openZSet(Keyspace ks, byte[] key) {
    add(ks, key, 0, BASE);
    // Bounded generously: a window of the hot counter may end on a slow machine and start again.
    for (int i = 0; i < 10_000 && ks.openCollections().get(stored(key)) == null; i++) {
      add(ks, key, BASE + i, BASE + 1 + i);
    }
    assertNotNull(ks.openCollections().get(stored(key)), "the sorted set opened");
  }

  private static List<Entry> stored(Keyspace ks, byte[] key) {
    StoredValue v = ks.peek(0, key);
    return v == null ? List.of() : ZSetPayload.entries(v.payload());
  }

  @Test
  void aChunkedZSetOpensWhenHotAndItsChangesReachTheStoreWhenItCloses() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      add(ks, KEY, 0, 5_000);
      assertTrue(ZSetChunks.isHeadValue(ks.store().getIfPresent(stored(KEY))), "chunked");
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
      List<Entry> popped = ks.editZSet(0, KEY, (before, z) -> z.pop(false, 3));
      assertEquals(List.of("element:0", "element:1", "element:2"), members(popped), "ZPOPMIN");
      boolean removed = ks.editZSet(0, KEY, (before, z) -> z.remove(b("element:10")));
      assertTrue(removed, "ZREM");
      assertArrayEquals(
          headBefore, ks.store().getIfPresent(stored(KEY)), "an open set leaves the store as is");
      int size = 5_000 + OpenCollections.OPEN_AFTER + 100 + 500 - 4;
      assertEquals(size, card(ks, KEY), "ZCARD of the open set");
      assertEquals(
          Double.valueOf(10_499), ks.readZSet(0, KEY, (before, z) -> z.score(b("element:10499"))));
      int rank = ks.readZSet(0, KEY, (before, z) -> z.rank(b("element:3")));
      assertEquals(0, rank, "ZRANK");
      assertTrue(ks.memoryUsed() > ks.storeMemoryUsed(), "its bytes count in used memory");
      assertTrue(ks.openCollectionStats()[1] > 2 * 5_000 * 20, "both sides counted");
      ks.closeOpenCollections();
      assertEquals(0, open(ks));
      assertEquals(0, ks.openCollectionStats()[1], "no bytes held");
      byte[] head = ks.store().getIfPresent(stored(KEY));
      ZSetChunks.Index index = ZSetChunks.Index.decode(ValueLayout.decode(head).payload());
      assertEquals(size, index.size(), "the store's head has every change");
      List<Entry> all = stored(ks, KEY);
      assertEquals(size, all.size());
      assertEquals("element:3", s(all.getFirst().member()));
      assertEquals("element:10499", s(all.getLast().member()));
      assertEquals(0, ChunkCensus.of(ks).orphans(), "no chunk left unnamed");
    }
  }

  private static List<String> members(List<Entry> entries) {
    List<String> out = new ArrayList<>();
    entries.forEach(e -> out.add(s(e.member())));
    return out;
  }

  @Test
  void anIdleOpenZSetClosesByItself() throws InterruptedException {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      openZSet(ks, KEY);
      add(ks, KEY, 20_000, 20_010);
      // The closing task runs every 100 ms and closes a set idle for a second: wait up to 60 s.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (open(ks) > 0 && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertEquals(0, open(ks), "closed once idle");
      byte[] head = StoredUnderStripe.read(ks, stored(KEY));
      ZSetChunks.Index index = ZSetChunks.Index.decode(ValueLayout.decode(head).payload());
      assertTrue(index.size() >= BASE + 10, "its changes were written: " + index.size());
      assertEquals(0, ChunkCensus.of(ks).orphans());
    }
  }

  @Test
  void theBudgetBoundsWhatOpensAndACommandOverItClosesItsKey() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      ks.openCollections().openAfter(1);
      add(ks, KEY, 0, 5_000);
      ks.openCollections().budget(0);
      add(ks, KEY, 5_000, 5_001);
      assertEquals(0, open(ks), "no room: not opened");
      ks.openCollections().budget(4 << 20);
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
      assertEquals(end, card(ks, KEY));
      assertEquals(0, ks.openCollectionStats()[1], "no bytes held");
      assertEquals(0, ChunkCensus.of(ks).orphans());
    }
  }

  @Test
  void genericReadsAndUpdatesOfAnOpenKeyCloseItFirst() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      openZSet(ks, KEY);
      add(ks, KEY, 30_000, 30_100);
      int size = card(ks, KEY);
      // DUMP reads the value's stored bytes
      StoredValue dumped = ValueLayout.decode(ks.getStored(0, KEY));
      assertEquals(size, ZSetPayload.view(dumped.payload()).size(), "DUMP has the open changes");
      assertEquals(0, open(ks), "DUMP closed it");
      openZSet(ks, KEY);
      add(ks, KEY, 31_000, 31_100);
      size = card(ks, KEY);
      // RENAME: a read of the whole value, a put, a delete
      StoredValue whole = ks.peek(0, KEY);
      ks.put(0, b("renamed"), whole);
      ks.delete(0, KEY);
      assertEquals(0, open(ks));
      assertEquals(size, card(ks, b("renamed")), "renamed whole");
      assertNull(ks.peekHeader(0, KEY));
      // EXPIRE: a generic update
      openZSet(ks, b("renamed"));
      add(ks, b("renamed"), 40_000, 40_050);
      Keyspace.Change c = ks.update(0, b("renamed"), v -> v.withExpiry(now.get() + 10_000));
      assertNotNull(c.after());
      assertEquals(0, open(ks), "EXPIRE closed it");
      assertEquals(now.get() + 10_000, ks.peekHeader(0, b("renamed")).expiresAtMillis());
      assertEquals(
          Double.valueOf(40_049),
          ks.readZSet(0, b("renamed"), (before, z) -> z.score(b("element:40049"))),
          "the change kept");
      // DEL of an open key
      openZSet(ks, KEY);
      assertTrue(ks.delete(0, KEY));
      assertEquals(0, card(ks, KEY), "deleted");
      ks.closeOpenCollections();
      assertEquals(0, card(ks, KEY), "and not written back");
      assertEquals(0, ChunkCensus.of(ks).orphans());
    }
  }

  @Test
  void aBlindSetOrDelOfAnOpenKeyWinsAndLeavesNoChunk() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      openZSet(ks, KEY);
      add(ks, KEY, 50_000, 50_100);
      ks.putString(0, KEY, b("a string"));
      assertEquals("a string", s(ks.peek(0, KEY).payload()));
      assertEquals(0, open(ks), "dropped with the head it was opened from");
      assertEquals(0, ChunkCensus.of(ks).total(), "the old set's chunks are gone");
      assertNull(ks.readZSet(0, KEY, (before, z) -> z));
      ks.delete(0, KEY);
      openZSet(ks, KEY);
      ks.delete(0, KEY);
      add(ks, KEY, 0, 3);
      assertEquals(3, card(ks, KEY), "a new set, not the old one");
      assertEquals(0, ChunkCensus.of(ks).orphans());
    }
  }

  @Test
  void blindWritesRacingAnOpenZSetLeaveNoOrphanChunk() throws Exception {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      ks.openCollections().openAfter(1);
      ExecutorService pool = Executors.newFixedThreadPool(3);
      try {
        List<Future<?>> work = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
          int writer = w;
          work.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < 2_000; i++) {
                      int base = writer * 1_000_000 + i * 20;
                      add(ks, KEY, base, base + 20);
                      if (i % 7 == 0) {
                        ks.editZSet(0, KEY, (before, z) -> z == null ? null : z.pop(false, 3));
                      }
                    }
                  }));
        }
        work.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 300; i++) {
                    switch (i % 3) {
                      case 0 -> ks.putString(0, KEY, b("string " + i));
                      case 1 -> ks.delete(0, KEY);
                      default -> {
                        StoredValue v = ks.peek(0, KEY);
                        if (v != null && v.type() == ValueType.ZSET) {
                          assertTrue(ZSetPayload.view(v.payload()).size() > 0, "a whole set");
                        }
                      }
                    }
                  }
                }));
        for (Future<?> f : work) {
          f.get(120, TimeUnit.SECONDS); // a worker's failure fails the test
        }
      } finally {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "workers ended");
      }
      assertEquals(0, ChunkCensus.of(ks).orphans(), "no chunk left that no head names");
      ks.closeOpenCollections();
      assertEquals(0, ChunkCensus.of(ks).orphans(), "none after the close either");
      ks.delete(0, KEY);
      assertEquals(0, ChunkCensus.of(ks).total(), "deleted whole");
      assertEquals(0, open(ks), "nothing open");
    }
  }

  @Test
  void anOpenZSetThatExpiresIsRemovedOnceAndCountedOnce() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      add(ks, KEY, 0, BASE);
      ks.update(0, KEY, v -> v.withExpiry(now.get() + 1_000));
      openZSet(ks, KEY);
      now.addAndGet(2_000);
      long expiredBefore = ks.stats()[2];
      assertEquals(0, card(ks, KEY), "expired");
      add(ks, KEY, 0, 1);
      assertEquals(1, card(ks, KEY), "a new set");
      assertEquals(1, ks.stats()[2] - expiredBefore, "counted once");
      ks.delete(0, KEY);
      assertEquals(0, ChunkCensus.of(ks).total());
    }
  }

  @Test
  void anOpenZSetIsEvictedWholeAndOnce() {
    try (Keyspace ks = new Keyspace(2 << 20, now::get)) {
      ks.openCollections().openAfter(1);
      ks.openCollections().budget(1 << 20);
      add(ks, KEY, 0, 5_000);
      add(ks, KEY, 5_000, 5_001);
      assertEquals(1, open(ks), "open");
      long evictedBefore = ks.stats()[3];
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
      assertEquals(0, card(ks, KEY), "absent");
      assertEquals(0, ChunkCensus.of(ks).total(), "none of its chunks is left");
      assertTrue(ks.stats()[3] - evictedBefore >= 1, "its eviction counted");
      assertEquals(0, ks.openCollectionStats()[1], "no bytes held");
    }
  }

  @Test
  void poppingAnOpenZSetEmptyDeletesItWhole() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      openZSet(ks, KEY);
      int size = card(ks, KEY);
      int taken = 0;
      for (int i = 0; i < 10_000 && card(ks, KEY) > 0; i++) {
        boolean max = i % 2 == 0;
        taken += ks.editZSet(0, KEY, (before, z) -> z.pop(max, 97)).size();
      }
      assertEquals(size, taken, "every member popped once");
      assertNull(ks.peekHeader(0, KEY), "an emptied set is deleted");
      assertEquals(0, open(ks));
      assertEquals(0, ChunkCensus.of(ks).total(), "none of its chunks is left");
    }
  }

  @Test
  void aChunkedSortedSetReadOftenOpensAndServesItsReads() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      add(ks, KEY, 0, BASE);
      ks.closeOpenCollections();
      byte[] headBefore = ks.store().getIfPresent(stored(KEY));
      // Bounded generously: a window of the hot counter may end on a slow machine and start again.
      for (int i = 0; i < 10_000 && open(ks) == 0; i++) {
        byte[] member = b("element:" + i % BASE);
        double expected = i % BASE;
        assertEquals(
            Double.valueOf(expected),
            ks.readZSet(0, KEY, (before, z) -> z.score(member)),
            "member " + i);
      }
      assertEquals(1, open(ks), "reads alone opened it");
      assertEquals(BASE, card(ks, KEY));
      ks.closeOpenCollections();
      assertArrayEquals(
          headBefore, ks.store().getIfPresent(stored(KEY)), "a close after reads writes nothing");
    }
  }
}
