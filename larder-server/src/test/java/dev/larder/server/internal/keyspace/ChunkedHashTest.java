package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Hashes in the keyspace across their two forms: random field operations checked against a model
 * map (in insertion order while packed), the form and the store's chunk entries checked after each;
 * HSCAN over chunks; the generic update and whole read of a chunked hash; and the packed payload's
 * field-wise edits against the map form.
 */
class ChunkedHashTest {
  /**
   * A keyspace for these tests: each collection opens (see {@link OpenCollections}) at its first
   * change in the chunked form, so that every command runs on an open hash; {@link
   * ChunkedHashTierOffTest} runs them with the tier off.
   */
  Keyspace keyspace(long maxMemory) {
    Keyspace ks = new Keyspace(maxMemory, now::get);
    ks.openCollections().openAfter(1);
    return ks;
  }

  private final AtomicLong now = new AtomicLong(1_000_000);
  private static final byte[] KEY = b("hash");

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] b) {
    return new String(b, StandardCharsets.ISO_8859_1);
  }

  private static boolean chunked(Keyspace ks) {
    StoredValue v = ks.peekHeader(0, KEY);
    return v != null && RangeChunks.isHead(ValueType.HASH, v.payload());
  }

  private static int chunkEntries(Keyspace ks) {
    return ChunkCensus.of(ks).total();
  }

  private static Map<String, String> contents(Keyspace ks) {
    Map<String, String> out = new LinkedHashMap<>();
    List<byte[][]> read =
        ks.readHash(0, KEY, (before, hash) -> hash == null ? null : hash.entries());
    if (read != null) {
      read.forEach(e -> out.put(s(e[0]), s(e[1])));
      assertEquals(read.size(), out.size(), "no field listed twice");
    }
    return out;
  }

  @Test
  void randomOperationsMatchAModelAcrossBothForms() {
    Random random = new Random(2027);
    try (Keyspace ks = keyspace(64 << 20)) {
      Map<String, String> model = new LinkedHashMap<>();
      boolean sawChunked = false;
      boolean sawPackedAfterChunked = false;
      for (int step = 0; step < 1_500; step++) {
        boolean growing = step % 1000 < 600;
        Map<String, String> batch = new LinkedHashMap<>();
        // Shrinking removes in larger batches, so that the hash falls back into the packed form.
        for (int i = 1 + random.nextInt(random.nextBoolean() ? 3 : growing ? 60 : 300);
            i > 0;
            i--) {
          int f = random.nextInt(2_500);
          batch.put("field:" + f, f % 40 == 0 ? "v".repeat(200) + step : "value:" + step);
        }
        if (random.nextInt(100) < (growing ? 65 : 5)) {
          int added =
              ks.editHash(
                  0,
                  KEY,
                  (before, hash) -> {
                    int n = 0;
                    for (Map.Entry<String, String> e : batch.entrySet()) {
                      n += hash.put(b(e.getKey()), b(e.getValue())) ? 1 : 0;
                    }
                    return n;
                  });
          int expected = 0;
          for (Map.Entry<String, String> e : batch.entrySet()) {
            expected += model.put(e.getKey(), e.getValue()) == null ? 1 : 0;
          }
          assertEquals(expected, added, step + " put");
        } else {
          int removed =
              ks.editHash(
                  0,
                  KEY,
                  (before, hash) -> {
                    int n = 0;
                    for (String f : batch.keySet()) {
                      n += hash.remove(b(f)) ? 1 : 0;
                    }
                    return n;
                  });
          int expected = 0;
          for (String f : batch.keySet()) {
            expected += model.remove(f) != null ? 1 : 0;
          }
          assertEquals(expected, removed, step + " remove");
        }
        for (String f : batch.keySet()) {
          byte[] got = ks.readHash(0, KEY, (before, hash) -> hash == null ? null : hash.get(b(f)));
          assertEquals(model.get(f), got == null ? null : s(got), step + " get");
        }
        Map<String, String> actual = contents(ks);
        boolean isChunked = chunked(ks);
        assertEquals(model, actual, step + " fields");
        if (!isChunked) {
          assertEquals(0, chunkEntries(ks), step + ": a packed hash has no chunks");
        }
        if (!sawChunked && !isChunked) {
          // Until it is first chunked, a hash keeps its fields in insertion order, as Redis's
          // listpack does (a packed hash rebuilt from chunks holds them in chunk order).
          assertEquals(
              new ArrayList<>(model.keySet()), new ArrayList<>(actual.keySet()), step + " order");
        }
        sawPackedAfterChunked |= sawChunked && !isChunked && !model.isEmpty();
        sawChunked |= isChunked;
        assertEquals(model.isEmpty() ? 0 : 1, ks.size(0), "one key, whatever its chunks");
      }
      assertTrue(sawChunked, "the hash grew into the chunked form");
      assertTrue(sawPackedAfterChunked, "and shrank back into the packed one");
    }
  }

  private static void fill(Keyspace ks, int n) {
    ks.editHash(
        0,
        KEY,
        (before, hash) -> {
          for (int i = 0; i < n; i++) {
            hash.put(b("field:" + i), b("value:" + i));
          }
          return null;
        });
  }

  @Test
  void aScanWalksEveryFieldWithItsValue() {
    try (Keyspace ks = keyspace(64 << 20)) {
      fill(ks, 3_000);
      assertTrue(chunked(ks));
      Map<String, String> seen = new HashMap<>();
      long cursor = 0;
      int calls = 0;
      do {
        List<byte[][]> page = new ArrayList<>();
        long from = cursor;
        cursor = ks.readHash(0, KEY, (before, hash) -> hash.scan(from, 10, f -> true, page));
        page.forEach(e -> seen.put(s(e[0]), s(e[1])));
        calls++;
      } while (cursor != 0 && calls < 10_000);
      assertEquals(3_000, seen.size());
      for (int i = 0; i < 3_000; i++) {
        assertEquals("value:" + i, seen.get("field:" + i));
      }
    }
  }

  @Test
  void theGenericPathsSeeTheHashWhole() {
    try (Keyspace ks = keyspace(64 << 20)) {
      fill(ks, 3_000);
      assertTrue(chunked(ks) && chunkEntries(ks) > 10);
      Map<String, byte[]> whole = HashPayload.decode(ks.peek(0, KEY).payload());
      assertEquals(3_000, whole.size());
      ks.update(0, KEY, v -> v.withExpiry(now.get() + 1_000));
      assertTrue(chunked(ks), "an expiry keeps the chunked form");
      assertEquals(3_000, contents(ks).size());
      ks.delete(0, KEY);
      assertEquals(0, ks.estimatedSize(), "DEL takes the chunks");
    }
  }

  /** Records the groups a logged keyspace reports: per group, its puts' stored bytes. */
  private static final class RecordingSink implements ChangeSink {
    final List<List<Integer>> groups = new ArrayList<>();
    private int depth;

    @Override
    public void begin() {
      if (depth++ == 0) {
        groups.add(new ArrayList<>());
      }
    }

    @Override
    public void end() {
      depth--;
    }

    @Override
    public void put(byte[] storedKey, byte[] storedValue) {
      groups.getLast().add(storedKey.length + storedValue.length);
    }

    @Override
    public void delete(byte[] storedKey) {
      groups.getLast().add(0);
    }

    @Override
    public void evict(byte[] storedKey, long version) {}

    @Override
    public void flush(int db) {}
  }

  @Test
  void aLoggedChangeReportsOneChunkAndTheHeadInOneGroup() {
    try (Keyspace ks = keyspace(64 << 20)) {
      RecordingSink sink = new RecordingSink();
      ks.attach(sink);
      fill(ks, 20_000);
      assertTrue(chunked(ks) && chunkEntries(ks) > 50);
      for (int i = 0; i < 100; i++) {
        sink.groups.clear();
        byte[] field = b("field:" + (i * 97));
        ks.editHash(0, KEY, (before, hash) -> hash.put(field, b("changed")));
        assertEquals(1, sink.groups.size(), "one group, one record");
        List<Integer> group = sink.groups.getFirst();
        int bytes = group.stream().mapToInt(Integer::intValue).sum();
        assertTrue(
            group.size() <= 6,
            "the head, the chunk (or its two halves), its index page and the old page's removal: "
                + group);
        assertTrue(bytes < 3 * RangeBody.CHUNK_BYTES, "a few KiB, not the hash: " + bytes);
      }
    }
  }

  @Test
  void packedEditsMatchTheMapForm() {
    Random random = new Random(5);
    LinkedHashMap<String, byte[]> model = new LinkedHashMap<>();
    byte[] p = null;
    for (int step = 0; step < 2_000; step++) {
      byte[] field = new byte[random.nextInt(4)];
      random.nextBytes(field);
      byte[] value = new byte[random.nextInt(200)];
      random.nextBytes(value);
      String f = HashPayload.field(field);
      if (random.nextInt(3) > 0 || p == null) {
        p = HashPayload.put(p, field, value);
        model.put(f, value);
      } else {
        byte[] next = HashPayload.remove(p, field);
        assertEquals(model.remove(f) != null, next != null, "removed iff present");
        p = next == null ? p : next;
      }
      assertArrayEquals(HashPayload.encode(model), p, "step " + step);
      byte[] got = HashPayload.get(p, field);
      assertArrayEquals(model.get(f), got);
    }
    Set<String> fields = new HashSet<>();
    for (byte[][] e : HashPayload.entries(p)) {
      fields.add(HashPayload.field(e[0]));
    }
    assertEquals(model.keySet(), fields);
  }
}
