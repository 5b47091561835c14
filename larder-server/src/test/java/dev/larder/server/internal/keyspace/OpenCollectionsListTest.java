package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * The open-collections tier of lists ({@link OpenCollections}, {@link ListStore}): when a chunked
 * list opens, when it closes, and that every path around it (generic reads and updates, blind
 * writes, eviction, expiry) sees the list whole and leaves no chunk behind. Waits are bounded
 * generously; no test assumes threads interleave.
 */
class OpenCollectionsListTest {
  private static final byte[] KEY = b("list");
  private final AtomicLong now = new AtomicLong(1_000_000);

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] b) {
    return new String(b, StandardCharsets.ISO_8859_1);
  }

  /** RPUSH of {@code element:from} to {@code element:to - 1}. */
  private static void push(Keyspace ks, byte[] key, int from, int to) {
    List<byte[]> batch = new ArrayList<>();
    for (int i = from; i < to; i++) {
      batch.add(b("element:" + i));
    }
    ks.editList(
        0,
        key,
        (before, l) -> {
          if (before != null && before.type() != ValueType.LIST) {
            return null; // another type is there now
          }
          l.pushTail(batch);
          return null;
        });
  }

  private static int llen(Keyspace ks, byte[] key) {
    Integer n =
        ks.readList(
            0,
            key,
            (before, l) -> before == null || before.type() != ValueType.LIST ? null : l.size());
    return n == null ? 0 : n;
  }

  private static String lindex(Keyspace ks, byte[] key, int index) {
    return ks.readList(0, key, (before, l) -> s(l.get(index)));
  }

  private static long open(Keyspace ks) {
    return ks.openCollectionStats()[0];
  }

  private static byte[] stored(byte[] key) {
    return Keyspace.storedKey(0, key);
  }

  /** Elements a list opened by {@link #openList} starts with: some 30 KiB, a few chunks. */
  private static final int BASE = 2_000;

  /** A chunked list of {@link #BASE} elements, then pushes one at a time until it opens. */
  private static void openList(Keyspace ks, byte[] key) {
    push(ks, key, 0, BASE);
    // Bounded generously: a window of the hot counter may end on a slow machine and start again.
    for (int i = 0; i < 10_000 && ks.openCollections().get(stored(key)) == null; i++) {
      push(ks, key, BASE + i, BASE + 1 + i);
    }
    assertNotNull(ks.openCollections().get(stored(key)), "the list opened");
  }

  private static List<byte[]> elements(Keyspace ks, byte[] key) {
    return ks.readList(0, key, (before, l) -> l == null ? List.of() : l.all());
  }

  @Test
  void aChunkedListOpensWhenHotAndItsChangesReachTheStoreWhenItCloses() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      push(ks, KEY, 0, 5_000);
      assertTrue(ListChunks.isHead(ks.peekHeader(0, KEY).payload()), "chunked");
      assertEquals(0, open(ks), "a list converted to chunks does not open at once");
      for (int i = 1; i < OpenCollections.OPEN_AFTER - 1; i++) {
        push(ks, KEY, 5_000 + i - 1, 5_000 + i);
      }
      assertEquals(0, open(ks), "not yet hot");
      for (int i = OpenCollections.OPEN_AFTER - 1; i <= OpenCollections.OPEN_AFTER + 100; i++) {
        push(ks, KEY, 5_000 + i - 1, 5_000 + i);
      }
      assertEquals(1, open(ks), "hot: open");
      byte[] headBefore = ks.store().getIfPresent(stored(KEY));
      push(ks, KEY, 10_000, 10_500);
      List<byte[]> popped = ks.editList(0, KEY, (before, l) -> l.popHead(3));
      assertEquals("element:0 element:1 element:2", text(popped), "LPOP 3");
      ks.editList(
          0,
          KEY,
          (before, l) -> {
            l.pushHead(List.of(b("first")));
            return null;
          });
      ks.editList(
          0,
          KEY,
          (before, l) -> {
            l.set(1_000, b("replaced"));
            return null;
          });
      assertArrayEquals(
          headBefore, ks.store().getIfPresent(stored(KEY)), "an open list leaves the store as is");
      int size = 5_000 + OpenCollections.OPEN_AFTER + 100 + 500 - 3 + 1;
      assertEquals(size, llen(ks, KEY), "LLEN of the open list");
      assertEquals("first", lindex(ks, KEY, 0));
      assertEquals("replaced", lindex(ks, KEY, 1_000));
      assertEquals("element:10499", lindex(ks, KEY, size - 1));
      assertTrue(ks.memoryUsed() > ks.storeMemoryUsed(), "its bytes count in used memory");
      OpenCollections.Open o = ks.openCollections().get(stored(KEY));
      assertEquals(o.list.heldBytesWalked(), o.list.heldBytes(), "the running total, held whole");
      ks.closeOpenCollections();
      assertEquals(0, open(ks));
      assertEquals(0, ks.openCollectionStats()[1], "no bytes held");
      StoredValue head = ks.peekHeader(0, KEY);
      assertTrue(ListChunks.isHead(head.payload()), "still chunked");
      assertEquals(size, ListChunks.Index.decode(head.payload()).total(), "the head counts all");
      List<byte[]> all = elements(ks, KEY);
      assertEquals(size, all.size());
      assertEquals("first", s(all.getFirst()));
      assertEquals("element:3", s(all.get(1)));
      assertEquals("replaced", s(all.get(1_000)));
      assertEquals("element:10499", s(all.getLast()));
      assertEquals(0, ChunkCensus.of(ks).orphans(), "no chunk left unnamed");
    }
  }

  private static String text(List<byte[]> elements) {
    List<String> out = new ArrayList<>();
    elements.forEach(e -> out.add(s(e)));
    return String.join(" ", out);
  }

  @Test
  void anIdleOpenListClosesByItself() throws InterruptedException {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      openList(ks, KEY);
      push(ks, KEY, 20_000, 20_010);
      int size = llen(ks, KEY);
      // The closing task runs every 100 ms and closes a list idle for a second: wait up to 60 s.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (open(ks) > 0 && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertEquals(0, open(ks), "closed once idle");
      StoredValue head = ValueLayout.decode(StoredUnderStripe.read(ks, stored(KEY)));
      assertEquals(size, ListChunks.Index.decode(head.payload()).total(), "its changes written");
      assertEquals(0, ChunkCensus.of(ks).orphans());
    }
  }

  @Test
  void theBudgetBoundsWhatOpensAndACommandOverItClosesItsKey() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      ks.openCollections().openAfter(1);
      push(ks, KEY, 0, 5_000);
      ks.openCollections().budget(0);
      push(ks, KEY, 5_000, 5_001);
      assertEquals(0, open(ks), "no room: not opened");
      ks.openCollections().budget(4 << 20);
      push(ks, KEY, 5_001, 5_002);
      assertEquals(1, open(ks), "room: opened");
      long held = ks.openCollectionStats()[1];
      assertTrue(held > 0 && held <= 1 << 20, "its bytes are counted: " + held);
      ks.openCollections().budget(held / 2);
      // The tier recounts a collection's bytes every RECOUNT_EVERY changes.
      int end = 5_002 + OpenCollections.RECOUNT_EVERY;
      for (int i = 5_002; i < end; i++) {
        push(ks, KEY, i, i + 1);
      }
      assertEquals(0, open(ks), "over the budget: a command closed its key");
      assertEquals(end, llen(ks, KEY));
      assertEquals(0, ks.openCollectionStats()[1], "no bytes held");
      assertEquals(0, ChunkCensus.of(ks).orphans());
    }
  }

  @Test
  void genericReadsAndUpdatesOfAnOpenKeyCloseItFirst() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      openList(ks, KEY);
      push(ks, KEY, 30_000, 30_100);
      int size = llen(ks, KEY);
      // DUMP reads the value's stored bytes
      StoredValue dumped = ValueLayout.decode(ks.getStored(0, KEY));
      assertEquals(size, ListPayload.count(dumped.payload()), "DUMP has the open changes");
      assertEquals(0, open(ks), "DUMP closed it");
      openList(ks, KEY);
      push(ks, KEY, 31_000, 31_100);
      size = llen(ks, KEY);
      // RENAME: a read of the whole value, a put, a delete
      StoredValue whole = ks.peek(0, KEY);
      ks.put(0, b("renamed"), whole);
      ks.delete(0, KEY);
      assertEquals(0, open(ks));
      assertEquals(size, llen(ks, b("renamed")), "renamed whole");
      assertNull(ks.peekHeader(0, KEY));
      // EXPIRE: a generic update
      openList(ks, b("renamed"));
      push(ks, b("renamed"), 40_000, 40_050);
      Keyspace.Change c = ks.update(0, b("renamed"), v -> v.withExpiry(now.get() + 10_000));
      assertNotNull(c.after());
      assertEquals(0, open(ks), "EXPIRE closed it");
      assertEquals(now.get() + 10_000, ks.peekHeader(0, b("renamed")).expiresAtMillis());
      int n = llen(ks, b("renamed"));
      assertEquals("element:40049", lindex(ks, b("renamed"), n - 1), "the change kept");
      // TYPE (a header read) closes it, so WATCH sees the version of its changes
      openList(ks, KEY);
      long version = ks.peekHeader(0, KEY).version();
      push(ks, KEY, 50_000, 50_001);
      assertTrue(ks.peekHeader(0, KEY).version() != version, "a change moves the version");
      // DEL of an open key
      openList(ks, KEY);
      assertTrue(ks.delete(0, KEY));
      assertEquals(0, llen(ks, KEY), "deleted");
      ks.closeOpenCollections();
      assertEquals(0, llen(ks, KEY), "and not written back");
      assertEquals(0, ChunkCensus.of(ks).orphans());
    }
  }

  @Test
  void aBlindSetOrDelOfAnOpenKeyWinsAndLeavesNoChunk() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      openList(ks, KEY);
      push(ks, KEY, 50_000, 50_100);
      ks.putString(0, KEY, b("a string"));
      assertEquals("a string", s(ks.peek(0, KEY).payload()));
      assertEquals(0, open(ks), "dropped with the head it was opened from");
      assertEquals(0, ChunkCensus.of(ks).total(), "the old list's chunks are gone");
      assertNull(ks.readList(0, KEY, (before, l) -> l));
      ks.delete(0, KEY);
      openList(ks, KEY);
      ks.delete(0, KEY);
      push(ks, KEY, 0, 3);
      assertEquals(3, llen(ks, KEY), "a new list, not the old one");
      assertEquals(0, ChunkCensus.of(ks).orphans());
    }
  }

  @Test
  void blindWritesRacingAnOpenListLeaveNoOrphanChunk() throws Exception {
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
                      int base = writer * 1_000_000 + i * 40;
                      push(ks, KEY, base, base + 40);
                      if (i % 7 == 0) {
                        ks.editList(
                            0,
                            KEY,
                            (before, l) ->
                                before == null || before.type() != ValueType.LIST
                                    ? null
                                    : l.popTail(30));
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
                        if (v != null && v.type() == ValueType.LIST) {
                          assertTrue(ListPayload.count(v.payload()) > 0, "a whole list");
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
  void anOpenListThatExpiresIsRemovedOnceAndCountedOnce() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      push(ks, KEY, 0, BASE);
      ks.update(0, KEY, v -> v.withExpiry(now.get() + 1_000));
      openList(ks, KEY);
      now.addAndGet(2_000);
      long expiredBefore = ks.stats()[2];
      assertEquals(0, llen(ks, KEY), "expired");
      push(ks, KEY, 0, 1);
      assertEquals(1, llen(ks, KEY), "a new list");
      assertEquals(1, ks.stats()[2] - expiredBefore, "counted once");
      ks.delete(0, KEY);
      assertEquals(0, ChunkCensus.of(ks).total());
    }
  }

  @Test
  void anOpenListIsEvictedWholeAndOnce() {
    try (Keyspace ks = new Keyspace(2 << 20, now::get)) {
      ks.openCollections().openAfter(1);
      ks.openCollections().budget(1 << 20);
      push(ks, KEY, 0, 5_000);
      push(ks, KEY, 5_000, 5_001);
      assertEquals(1, open(ks), "open");
      long evictedBefore = ks.stats()[3];
      byte[] filler = new byte[200];
      int i = 0;
      // Each filler read a few times, so that the policy's frequency sketch prefers it to the
      // list's head, which every command of the open list reads.
      while (ks.store().getIfPresent(stored(KEY)) != null && i < 200_000) {
        byte[] k = b("filler:" + i++);
        ks.putString(0, k, filler);
        for (int r = 0; r < 4; r++) {
          ks.get(0, k);
        }
      }
      assertNull(ks.store().getIfPresent(stored(KEY)), "evicted within " + i + " writes");
      assertEquals(0, open(ks), "the open list went with it");
      assertEquals(0, llen(ks, KEY), "absent");
      assertEquals(0, ChunkCensus.of(ks).total(), "none of its chunks is left");
      assertTrue(ks.stats()[3] - evictedBefore >= 1, "its eviction counted");
      assertEquals(0, ks.openCollectionStats()[1], "no bytes held");
    }
  }

  @Test
  void poppingAnOpenListEmptyDeletesItWhole() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      openList(ks, KEY);
      int size = llen(ks, KEY);
      int taken = 0;
      for (int i = 0; i < 10_000 && llen(ks, KEY) > 0; i++) {
        boolean head = i % 2 == 0;
        taken += ks.editList(0, KEY, (before, l) -> head ? l.popHead(97) : l.popTail(97)).size();
      }
      assertEquals(size, taken, "every element popped once");
      assertNull(ks.peekHeader(0, KEY), "an emptied list is deleted");
      assertEquals(0, open(ks));
      assertEquals(0, ChunkCensus.of(ks).total(), "none of its chunks is left");
    }
  }

  /** A list of {@code n} elements {@code element:0...}, held partly once it opens. */
  private static List<String> openPartly(Keyspace ks, int n) {
    ks.openCollections().openAfter(1);
    // A list over a quarter of the budget does not open whole: 64 KiB here.
    ks.openCollections().budget(256 << 10);
    List<String> model = new ArrayList<>();
    for (int from = 0; from < n; from += 1_000) {
      push(ks, KEY, from, from + 1_000);
      for (int i = from; i < from + 1_000; i++) {
        model.add("element:" + i);
      }
    }
    ks.closeOpenCollections(); // it opened whole while it was small, and grew open
    push(ks, KEY, n, n + 1);
    model.add("element:" + n);
    OpenCollections.Open o = ks.openCollections().get(stored(KEY));
    assertNotNull(o, "the list opened");
    assertTrue(o.list.heldPartly(), "held partly: too large to hold whole");
    return model;
  }

  @Test
  void aListTooLargeToHoldWholeOpensWithItsEndsAndReadsTheRestWhenReached() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      List<String> model = openPartly(ks, 40_000);
      OpenCollections.Open o = ks.openCollections().get(stored(KEY));
      byte[] headBefore = ks.store().getIfPresent(stored(KEY));
      java.util.Random random = new java.util.Random(42);
      long pushed = 0;
      for (int step = 0; step < 4_000; step++) {
        String e = "pushed:" + step;
        switch (random.nextInt(5)) {
          case 0 -> {
            ks.editList(0, KEY, (before, l) -> pushOne(l, e, true));
            model.addFirst(e);
            pushed += e.length() + 2;
          }
          case 1 -> {
            ks.editList(0, KEY, (before, l) -> pushOne(l, e, false));
            model.addLast(e);
            pushed += e.length() + 2;
          }
          case 2 -> {
            boolean head = random.nextBoolean();
            List<byte[]> popped =
                ks.editList(0, KEY, (before, l) -> head ? l.popHead(2) : l.popTail(2));
            List<String> expected = new ArrayList<>();
            for (int k = 0; k < 2; k++) {
              expected.add(head ? model.removeFirst() : model.removeLast());
            }
            assertEquals(String.join(" ", expected), text(popped), "pop at step " + step);
          }
          default -> {
            int at = random.nextInt(model.size());
            assertEquals(model.get(at), lindex(ks, KEY, at), "LINDEX " + at + " at step " + step);
          }
        }
        assertEquals(model.size(), llen(ks, KEY));
        // What it holds: its end chunks and the chunks pushes made, not the chunks LINDEX read.
        long bound = 4L * 2 * ListBody.CHUNK_BYTES + 2 * pushed;
        assertEquals(o.list.heldBytesWalked(), o.list.heldBytes(), "the running total");
        assertTrue(
            o.list.heldBytes() <= bound,
            "held " + o.list.heldBytes() + " bytes at step " + step + ", bound " + bound);
      }
      assertEquals(o, ks.openCollections().get(stored(KEY)), "served open throughout");
      assertArrayEquals(
          headBefore, ks.store().getIfPresent(stored(KEY)), "an open list leaves the store as is");
      for (int k = 0; k < 200; k++) {
        int at = random.nextInt(model.size());
        String e = "set:" + k;
        ks.editList(
            0,
            KEY,
            (before, l) -> {
              l.set(at, b(e));
              return null;
            });
        model.set(at, e);
      }
      ks.closeOpenCollections();
      assertEquals(0, open(ks));
      assertEquals(0, ks.openCollectionStats()[1], "no bytes held");
      List<String> all = new ArrayList<>();
      elements(ks, KEY).forEach(e -> all.add(s(e)));
      assertEquals(model, all, "every change reached the store");
      assertEquals(0, ChunkCensus.of(ks).orphans(), "no chunk left unnamed");
    }
  }

  @Test
  void aListHeldPartlyThatReachesAnEvictedPageIsAbsent() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      List<String> model = openPartly(ks, 40_000);
      byte[] head = ks.store().getIfPresent(stored(KEY));
      ListChunks.Index index = ListChunks.Index.decode(ValueLayout.decode(head).payload());
      int pages = 0;
      for (int i = 0; i < index.entries(); i++) {
        if (index.isPage(i)) {
          ks.store().invalidate(ChunkKey.of(stored(KEY), index.id(), index.number(i)));
          pages++;
        }
      }
      assertTrue(pages > 0, "the head lists index pages");
      // The ends are still served from what the open list holds.
      assertEquals(model.getFirst(), lindex(ks, KEY, 0));
      // A read in the middle reaches a page the store no longer holds: the key is being evicted.
      String middle =
          ks.readList(
              0, KEY, (before, l) -> l == null || l.size() == 0 ? null : s(l.get(l.size() / 2)));
      assertNull(middle, "absent");
      assertEquals(0, open(ks), "the open list went with it");
      assertEquals(0, ks.openCollectionStats()[1], "no bytes held");
      assertEquals(0, llen(ks, KEY));
      assertEquals(0, ks.estimatedSize(), "the head and every chunk went");
    }
  }

  private static Void pushOne(ListBody l, String e, boolean head) {
    if (head) {
      l.pushHead(List.of(b(e)));
    } else {
      l.pushTail(List.of(b(e)));
    }
    return null;
  }

  @Test
  void aChunkedListReadOftenOpensAndServesItsReads() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      push(ks, KEY, 0, BASE);
      ks.closeOpenCollections();
      byte[] headBefore = ks.store().getIfPresent(stored(KEY));
      // Bounded generously: a window of the hot counter may end on a slow machine and start again.
      for (int i = 0; i < 10_000 && open(ks) == 0; i++) {
        assertEquals("element:" + i % BASE, lindex(ks, KEY, i % BASE), "LINDEX " + i);
      }
      assertEquals(1, open(ks), "reads alone opened it");
      assertEquals(BASE, llen(ks, KEY));
      ks.closeOpenCollections();
      assertArrayEquals(
          headBefore, ks.store().getIfPresent(stored(KEY)), "a close after reads writes nothing");
    }
  }
}
