package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Sets in the keyspace across their two forms: random set operations checked against a model set,
 * the form and the store's chunk entries checked after each; SSCAN over chunks while the set
 * changes; random members drawn evenly over the chunks; the keyspace's other paths (DEL, SET,
 * EXPIRE and the sweep, a rename, FLUSHDB) on a chunked set; eviction, which takes a chunked set
 * whole; and a chunk gone missing.
 */
class ChunkedSetTest {
  /**
   * A keyspace for these tests: each collection opens (see {@link OpenCollections}) at its first
   * change in the chunked form, so that every command runs on an open set; {@link
   * ChunkedSetTierOffTest} runs them with the tier off.
   */
  Keyspace keyspace(long maxMemory) {
    Keyspace ks = new Keyspace(maxMemory, now::get);
    ks.openCollections().openAfter(1);
    return ks;
  }

  private final AtomicLong now = new AtomicLong(1_000_000);
  private static final byte[] KEY = b("set");

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] b) {
    return new String(b, StandardCharsets.ISO_8859_1);
  }

  private static Set<String> contents(Keyspace ks) {
    Set<String> out = new HashSet<>();
    List<byte[]> read = ks.readSet(0, KEY, (before, set) -> set == null ? null : set.keys());
    if (read != null) {
      read.forEach(m -> out.add(s(m)));
      assertEquals(read.size(), out.size(), "no member listed twice");
    }
    return out;
  }

  /** Chunk entries in the store, by whether their collection's head names them. */
  private static int[] chunkEntries(Keyspace ks) {
    return ChunkCensus.of(ks).asArray();
  }

  /** The set's chunks in hash order, those of its index pages included. */
  private static RangeChunks.Index chunksOf(Keyspace ks) {
    RangeChunks.Index head =
        RangeChunks.Index.decode(ValueType.SET, ks.peekHeader(0, KEY).payload());
    RangeChunks.Index chunks = new RangeChunks.Index(head.id(), head.nextNumber());
    byte[] stored = Keyspace.storedKey(0, KEY);
    for (int i = 0; i < head.entries(); i++) {
      if (head.pageChunks(i) == 0) {
        chunks.add(head.number(i), head.low(i), head.count(i), head.bytes(i));
        continue;
      }
      byte[] page = ChunkCensus.storedPayload(ks, stored, head.id(), head.number(i));
      RangeChunks.Index listed = RangeChunks.Index.decodePage(page, head.nextNumber());
      for (int c = 0; c < listed.entries(); c++) {
        chunks.add(listed.number(c), listed.low(c), listed.count(c), listed.bytes(c));
      }
    }
    return chunks;
  }

  private static boolean chunked(Keyspace ks) {
    StoredValue v = ks.peekHeader(0, KEY);
    return v != null && RangeChunks.isHead(ValueType.SET, v.payload());
  }

  private static byte[] member(Random random, int range) {
    int n = random.nextInt(range);
    // integers, short strings and now and then a long one: every set encoding in the chunks
    return switch (n % 3) {
      case 0 -> b(Integer.toString(n));
      case 1 -> b("member:" + n);
      default -> b("m" + n + (n % 50 == 2 ? "x".repeat(100) : ""));
    };
  }

  @Test
  void randomOperationsMatchAModelAcrossBothForms() {
    Random random = new Random(2026);
    try (Keyspace ks = keyspace(64 << 20)) {
      Set<String> model = new HashSet<>();
      boolean sawChunked = false;
      boolean sawPackedAfterChunked = false;
      for (int step = 0; step < 2_000; step++) {
        boolean growing = step % 1000 < 600;
        List<byte[]> ms = new ArrayList<>();
        // Shrinking removes in larger batches, so that the set falls back into the packed form.
        for (int i = 1 + random.nextInt(random.nextBoolean() ? 3 : growing ? 60 : 300);
            i > 0;
            i--) {
          ms.add(member(random, 3_000));
        }
        int op = random.nextInt(100);
        if (op < (growing ? 60 : 5)) {
          int added =
              ks.editSet(
                  0,
                  KEY,
                  (before, set) -> {
                    int n = 0;
                    for (byte[] m : ms) {
                      n += set.add(m) ? 1 : 0;
                    }
                    return n;
                  });
          int expected = 0;
          for (byte[] m : ms) {
            expected += model.add(s(m)) ? 1 : 0;
          }
          assertEquals(expected, added, step + " add");
        } else if (op < 90) {
          int removed =
              ks.editSet(
                  0,
                  KEY,
                  (before, set) -> {
                    int n = 0;
                    for (byte[] m : ms) {
                      n += set.remove(m) ? 1 : 0;
                    }
                    return n;
                  });
          int expected = 0;
          for (byte[] m : ms) {
            expected += model.remove(s(m)) ? 1 : 0;
          }
          assertEquals(expected, removed, step + " remove");
        } else {
          int pops = random.nextInt(30);
          List<byte[]> popped =
              ks.editSet(
                  0,
                  KEY,
                  (before, set) -> {
                    List<byte[]> out = new ArrayList<>();
                    for (int i = 0; i < pops && set.size() > 0; i++) {
                      byte[] m = set.randomKey(random);
                      out.add(m);
                      assertTrue(set.remove(m));
                    }
                    return out;
                  });
          for (byte[] m : popped) {
            assertTrue(model.remove(s(m)), step + " popped a member");
          }
        }
        for (byte[] m : ms) {
          boolean in = ks.readSet(0, KEY, (before, set) -> set != null && set.contains(m));
          assertEquals(model.contains(s(m)), in, step + " contains");
        }
        assertEquals(model, contents(ks), step + " members");
        boolean isChunked = chunked(ks);
        sawPackedAfterChunked |= sawChunked && !isChunked && !model.isEmpty();
        sawChunked |= isChunked;
        int[] entries = chunkEntries(ks);
        assertEquals(0, entries[1], step + ": chunks no head names");
        if (!isChunked) {
          assertEquals(0, entries[0], step + ": a packed set has no chunks");
        }
        assertEquals(model.isEmpty() ? 0 : 1, ks.size(0), "one key, whatever its chunks");
        if (!model.isEmpty()) {
          assertEquals(model.size(), SetPayload.size(ks.peek(0, KEY).payload()), "read whole");
        }
      }
      assertTrue(sawChunked, "the set grew into the chunked form");
      assertTrue(sawPackedAfterChunked, "and shrank back into the packed one");
    }
  }

  /**
   * A set large enough for its head to list index pages: random batches grow it, shrink it until
   * its pages fold together and its head lists its chunks again, and grow it back; members, chunk
   * entries and the head's shape checked as it goes.
   */
  @Test
  void aPagedSetMatchesAModelAsItsPagesSplitAndFold() {
    Random random = new Random(37);
    try (Keyspace ks = keyspace(64 << 20)) {
      Set<String> model = new HashSet<>();
      boolean sawPages = false;
      boolean sawHeadOfChunksAfterPages = false;
      for (int step = 0; step < 240; step++) {
        boolean growing = step < 60 || step >= 180;
        List<byte[]> ms = new ArrayList<>();
        boolean add = growing ? random.nextInt(10) < 9 : random.nextInt(10) == 0;
        // Shrinking removes members the set holds (and a few it does not), 400 a step.
        List<String> held = add ? List.of() : new ArrayList<>(model);
        for (int i = growing ? 1_000 : 400; i > 0; i--) {
          ms.add(
              held.isEmpty() || i % 10 == 0
                  ? member(random, 60_000)
                  : b(held.get(random.nextInt(held.size()))));
        }
        int changed =
            ks.editSet(
                0,
                KEY,
                (before, set) -> {
                  int n = 0;
                  for (byte[] m : ms) {
                    n += (add ? set.add(m) : set.remove(m)) ? 1 : 0;
                  }
                  return n;
                });
        int expected = 0;
        for (byte[] m : ms) {
          expected += (add ? model.add(s(m)) : model.remove(s(m))) ? 1 : 0;
        }
        assertEquals(expected, changed, step + (add ? " add" : " remove"));
        if (!model.isEmpty() && chunked(ks)) {
          RangeChunks.Index head =
              RangeChunks.Index.decode(ValueType.SET, ks.peekHeader(0, KEY).payload());
          boolean paged = head.pageChunks(0) > 0;
          sawHeadOfChunksAfterPages |= sawPages && !paged;
          sawPages |= paged;
          assertEquals(model.size(), head.total(), step + " the head's count");
          assertTrue(head.entries() <= RangeBody.HEAD_CHUNKS, step + " a small head");
        }
        if (step % 6 == 0 || step == 239) {
          assertEquals(model, contents(ks), step + " members");
          int[] entries = chunkEntries(ks);
          assertEquals(0, entries[1], step + ": chunks no head names");
        }
        for (int k = 0; k < 20; k++) {
          byte[] m = member(random, 60_000);
          boolean in = ks.readSet(0, KEY, (before, set) -> set != null && set.contains(m));
          assertEquals(model.contains(s(m)), in, step + " contains");
        }
      }
      assertTrue(sawPages, "the head listed index pages");
      assertTrue(sawHeadOfChunksAfterPages, "and its chunks again once the set shrank");
    }
  }

  /**
   * A set and a hash stored in the chunked form that earlier servers wrote (set encoding 3, hash
   * marker {@code 80 00}: every chunk in the head) read as they are, and written paged by their
   * next change, their chunks kept.
   */
  @Test
  void theOlderChunkedFormIsReadAndWrittenAgainPaged() {
    try (Keyspace ks = keyspace(64 << 20)) {
      for (ValueType type : List.of(ValueType.SET, ValueType.HASH)) {
        byte[] key = b("old-" + type);
        byte[] stored = Keyspace.storedKey(0, key);
        int chunks = 40;
        long id = 77;
        List<List<byte[][]>> groups = new ArrayList<>();
        for (int i = 0; i < chunks; i++) {
          groups.add(new ArrayList<>());
        }
        for (int i = 0; i < 4_000; i++) {
          byte[] k = b("element:" + i);
          int chunk = chunks - 1;
          while (((long) chunk << 32) / chunks > ScanCursor.hash(k)) {
            chunk--;
          }
          groups.get(chunk).add(new byte[][] {k, b("v" + i)});
        }
        java.io.ByteArrayOutputStream head = new java.io.ByteArrayOutputStream();
        head.writeBytes(type == ValueType.SET ? new byte[] {3} : new byte[] {(byte) 0x80, 0});
        for (int b = 0; b < 8; b++) {
          head.write((int) (id >>> (56 - 8 * b)));
        }
        head.writeBytes(varint(chunks));
        head.writeBytes(varint(chunks));
        for (int i = 0; i < chunks; i++) {
          byte[] payload = RangeCodec.of(type, true).encode(groups.get(i));
          ks.store()
              .put(
                  ChunkKey.of(stored, id, i),
                  ValueLayout.encode(new StoredValue(type, 1, 0, 0, payload)));
          long low = ((long) i << 32) / chunks;
          head.writeBytes(varint(i));
          head.writeBytes(
              new byte[] {
                (byte) (low >>> 24), (byte) (low >>> 16), (byte) (low >>> 8), (byte) low
              });
          head.writeBytes(varint(groups.get(i).size()));
          head.writeBytes(varint(payload.length));
        }
        ks.store()
            .put(stored, ValueLayout.encode(new StoredValue(type, 2, 0, 0, head.toByteArray())));
        RangeStore.Edit<Integer> size = (before, body) -> body == null ? -1 : body.size();
        RangeStore.Edit<Boolean> add = (before, body) -> body.put(b("one more"), b("v"));
        boolean set = type == ValueType.SET;
        assertEquals(4_000, set ? ks.readSet(0, key, size) : ks.readHash(0, key, size));
        assertTrue(set ? ks.editSet(0, key, add) : ks.editHash(0, key, add));
        byte[] now = ks.peekHeader(0, key).payload();
        assertArrayEquals(
            RangeChunks.marker(type), Arrays.copyOf(now, RangeChunks.marker(type).length), "paged");
        RangeStore.Edit<List<byte[][]>> all = (before, body) -> body.entries();
        List<byte[][]> entries = set ? ks.readSet(0, key, all) : ks.readHash(0, key, all);
        assertEquals(4_001, entries.size());
        Set<String> keys = new HashSet<>();
        entries.forEach(e -> keys.add(s(e[0])));
        assertTrue(keys.contains("element:3999") && keys.contains("one more"));
      }
      assertEquals(0, chunkEntries(ks)[1], "no chunk left that no head names");
    }
  }

  private static byte[] varint(long v) {
    byte[] out = new byte[Varint.size(v)];
    Varint.write(out, 0, v);
    return out;
  }

  /**
   * Integers added in batches, as a loader adds them, stay INTSETs in their chunks whatever their
   * count, each chunk at most a chunk's size and at least about half of it (a split leaves halves);
   * a packed set's limit of 512 integers does not turn them into tables.
   */
  @Test
  void integerChunksStayIntsetsOfAboutAChunksSize() {
    try (Keyspace ks = keyspace(64 << 20)) {
      for (int from = 0; from < 30_000; from += 1_000) {
        int first = from;
        ks.editSet(
            0,
            KEY,
            (before, set) -> {
              for (int i = first; i < first + 1_000; i++) {
                set.add(b(Integer.toString(i)));
              }
              return null;
            });
      }
      ks.closeOpenCollections(); // what is checked is the stored form
      int chunks = 0;
      for (Map.Entry<byte[], byte[]> e : ks.store().asMap().entrySet()) {
        byte[] p = ValueLayout.decode(e.getValue()).payload();
        if (!ChunkKey.isChunkKey(e.getKey()) || p[0] == RangeChunks.PAGE) {
          continue;
        }
        chunks++;
        assertEquals(SetPayload.INTSET, SetPayload.encoding(p), "an intset chunk");
        assertTrue(p.length <= RangeBody.CHUNK_BYTES, "at most a chunk: " + p.length);
      }
      // 30,000 integers below 2^15, of 2 bytes each: 60,000 bytes, in chunks of 2 to 4 KiB
      assertTrue(chunks >= 15 && chunks <= 32, "chunks about half full or more: " + chunks);
      assertEquals(30_000, (int) ks.readSet(0, KEY, (before, set) -> set.size()));
    }
  }

  private static void fill(Keyspace ks, byte[] key, int n) {
    ks.editSet(
        0,
        key,
        (before, set) -> {
          for (int i = 0; i < n; i++) {
            set.add(b("element:" + i));
          }
          return null;
        });
  }

  @Test
  void aScanReturnsEveryMemberPresentThroughoutWhileTheSetChanges() {
    try (Keyspace ks = keyspace(64 << 20)) {
      fill(ks, KEY, 4_000);
      assertTrue(chunked(ks));
      Set<String> seen = new HashSet<>();
      long cursor = 0;
      int calls = 0;
      int added = 0;
      do {
        List<byte[][]> page = new ArrayList<>();
        long from = cursor;
        cursor = ks.readSet(0, KEY, (before, set) -> set.scan(from, 25, m -> true, page));
        page.forEach(e -> seen.add(s(e[0])));
        // churn: members added and removed (never the first 3,000) between calls
        int next = added++;
        ks.editSet(0, KEY, (before, set) -> set.add(b("new:" + next)));
        ks.editSet(0, KEY, (before, set) -> set.remove(b("element:" + (3_000 + next % 1_000))));
        calls++;
      } while (cursor != 0 && calls < 10_000);
      assertEquals(0, cursor, "the scan ended");
      for (int i = 0; i < 3_000; i++) {
        assertTrue(seen.contains("element:" + i), "member " + i + " returned");
      }
      assertTrue(calls < 4_000 / 10, "pages of about COUNT members: " + calls + " calls");
    }
  }

  @Test
  void randomMembersAreDrawnEvenlyOverTheChunks() {
    try (Keyspace ks = keyspace(64 << 20)) {
      fill(ks, KEY, 4_000);
      assertTrue(chunkEntries(ks)[0] > 8, "several chunks");
      Random random = new Random(7);
      int draws = 200_000;
      Map<String, Integer> hits = new HashMap<>();
      ks.readSet(
          0,
          KEY,
          (before, set) -> {
            for (int i = 0; i < draws; i++) {
              hits.merge(s(set.randomKey(random)), 1, Integer::sum);
            }
            return null;
          });
      assertEquals(4_000, hits.size(), "every member drawn");
      // Per chunk: draws against its share of the members, within six standard deviations.
      Map<Long, int[]> perChunk = new HashMap<>();
      RangeChunks.Index index = chunksOf(ks);
      for (Map.Entry<String, Integer> e : hits.entrySet()) {
        long hash = ScanCursor.hash(e.getKey().getBytes(StandardCharsets.ISO_8859_1));
        int chunk = 0;
        while (chunk + 1 < index.entries() && index.low(chunk + 1) <= hash) {
          chunk++;
        }
        int[] c = perChunk.computeIfAbsent((long) chunk, k -> new int[1]);
        c[0] += e.getValue();
      }
      for (int chunk = 0; chunk < index.entries(); chunk++) {
        double p = index.count(chunk) / 4_000.0;
        double expected = draws * p;
        double sd = Math.sqrt(draws * p * (1 - p));
        int got = perChunk.getOrDefault((long) chunk, new int[1])[0];
        assertTrue(
            Math.abs(got - expected) < 6 * sd,
            "chunk " + chunk + ": " + got + " draws against " + expected);
      }
    }
  }

  @Test
  void theKeyspacesOtherPathsTakeTheChunksWithTheSet() {
    try (Keyspace ks = keyspace(64 << 20)) {
      fill(ks, KEY, 5_000);
      assertTrue(chunked(ks));
      assertTrue(chunkEntries(ks)[0] > 10, "several chunks");
      List<String> seen = new ArrayList<>();
      ks.forEach(0, (k, v) -> seen.add(s(k)));
      assertEquals(List.of("set"), seen, "walks see the key, never a chunk");
      assertEquals(5_000, SetPayload.size(ks.peek(0, KEY).payload()), "read whole");

      // EXPIRE changes the head only; the sweep then takes the chunks with it.
      ks.update(0, KEY, v -> v.withExpiry(now.get() + 100));
      assertTrue(chunked(ks), "an expiry keeps the chunked form");
      assertEquals(5_000, contents(ks).size());
      now.addAndGet(100);
      while (ks.sweepExpired(10_000) > 0) {
        // until a pass finds nothing
      }
      assertEquals(0, ks.estimatedSize(), "no chunk outlives its expired set");

      fill(ks, KEY, 5_000);
      assertTrue(ks.delete(0, KEY));
      assertEquals(0, ks.estimatedSize(), "DEL");

      fill(ks, KEY, 5_000);
      ks.putString(0, KEY, b("now a string"));
      assertEquals(1, ks.estimatedSize(), "SET over it");
      ks.delete(0, KEY);

      // A rename: read whole, written under another key packed, chunked again on its next change.
      fill(ks, KEY, 5_000);
      ks.put(0, b("other"), ks.peek(0, KEY));
      ks.delete(0, KEY);
      assertEquals(1, ks.estimatedSize(), "the renamed set is packed, the chunks are gone");
      ks.editSet(0, b("other"), (before, set) -> set.add(b("one more")));
      assertEquals(5_001, SetPayload.size(ks.peek(0, b("other")).payload()));
      assertTrue(ks.estimatedSize() > 10, "chunked again");
      ks.delete(0, b("other"));

      fill(ks, KEY, 5_000);
      ks.flush(1);
      assertEquals(5_000, contents(ks).size());
      ks.flush(0);
      assertEquals(0, ks.estimatedSize());
    }
  }

  @Test
  void evictionTakesAChunkedSetWhole() {
    try (Keyspace ks = keyspace(2 << 20)) {
      fill(ks, KEY, 20_000);
      assertTrue(chunked(ks));
      ChunkCensus.assertEvictedWhole(ks, KEY, "the set");
    }
  }

  @Test
  void aSetWithAMissingChunkIsAbsentAndGoesWhole() {
    try (Keyspace ks = keyspace(64 << 20)) {
      fill(ks, KEY, 5_000);
      ChunkCensus.dropOneChunk(ks);
      assertNull(ks.readSet(0, KEY, (before, set) -> set == null ? null : set.keys()));
      assertEquals(0, ks.estimatedSize(), "the head and every other chunk went with it");
      assertFalse(ks.delete(0, KEY));
    }
  }

  @Test
  void aChangeRewritesOneChunkNotTheSet() {
    try (Keyspace ks = keyspace(64 << 20)) {
      fill(ks, KEY, 20_000);
      ks.closeOpenCollections();
      Map<String, byte[]> before = new HashMap<>();
      ks.store().asMap().forEach((k, v) -> before.put(Arrays.toString(k), v));
      ks.editSet(0, KEY, (b, set) -> set.add(b("one more")));
      ks.closeOpenCollections(); // an open set writes its change when it closes
      int rewritten = 0;
      for (Map.Entry<byte[], byte[]> e : ks.store().asMap().entrySet()) {
        byte[] old = before.get(Arrays.toString(e.getKey()));
        rewritten += old == null || !Arrays.equals(old, e.getValue()) ? 1 : 0;
      }
      assertTrue(
          rewritten <= 4, "the head, an index page and one chunk (or its halves): " + rewritten);
      assertTrue(before.size() > 50, "the set is in many chunks: " + before.size());
      assertTrue(
          RangeChunks.Index.decode(ValueType.SET, ks.peekHeader(0, KEY).payload()).entries() < 8,
          "the head lists index pages, not every chunk");
    }
  }
}
