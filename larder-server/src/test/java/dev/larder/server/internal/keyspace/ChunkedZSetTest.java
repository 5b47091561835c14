package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.keyspace.ZSetPayload.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Sorted sets in the keyspace across their two forms: random changes (puts, removals, score
 * changes, pops from both ends, removals of a rank range) checked against a model after each step
 * (every entry in order, scores, ranks, entries by rank, score ranges), the form and the store's
 * chunk entries checked after each; ZSCAN over chunks while the set changes; what one change
 * rewrites; the keyspace's other paths (DEL, SET, EXPIRE and the sweep, a rename, FLUSHDB) on a
 * chunked set; eviction, which takes a chunked set whole; and a chunk gone missing.
 */
class ChunkedZSetTest {
  /**
   * A keyspace for these tests: each sorted set opens (see {@link OpenCollections}) at its first
   * change in the chunked form, so that every command runs on an open set; {@link
   * ChunkedZSetTierOffTest} runs them with the tier off.
   */
  Keyspace keyspace(long maxMemory) {
    Keyspace ks = new Keyspace(maxMemory, now::get);
    ks.openCollections().openAfter(1);
    return ks;
  }

  private final AtomicLong now = new AtomicLong(1_000_000);
  private static final byte[] KEY = b("zset");

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] b) {
    return new String(b, StandardCharsets.ISO_8859_1);
  }

  /** Redis's order over the model's entries. */
  private record E(String member, double score) implements Comparable<E> {
    @Override
    public int compareTo(E o) {
      int c = ZSetPayload.compareScores(score, o.score);
      return c != 0 ? c : Arrays.compareUnsigned(b(member), b(o.member));
    }
  }

  /** The model: scores by member, and the entries in order. */
  private static final class Model {
    final Map<String, Double> scores = new HashMap<>();
    final TreeSet<E> order = new TreeSet<>();

    void put(String m, double s) {
      Double old = scores.put(m, s);
      if (old != null) {
        order.remove(new E(m, old));
      }
      order.add(new E(m, s));
    }

    boolean remove(String m) {
      Double old = scores.remove(m);
      if (old != null) {
        order.remove(new E(m, old));
      }
      return old != null;
    }

    List<E> list() {
      return new ArrayList<>(order);
    }
  }

  /** Chunk entries in the store, by whether their collection's head names them. */
  private static int[] chunkEntries(Keyspace ks) {
    return ChunkCensus.of(ks).asArray();
  }

  private static boolean chunked(Keyspace ks) {
    StoredValue v = ks.peekHeader(0, KEY);
    return v != null && ZSetChunks.isHead(v.payload());
  }

  private static String member(Random random, int range) {
    int n = random.nextInt(range);
    return n % 61 == 5 ? "long:" + n + "x".repeat(90) : "member:" + n;
  }

  private static double score(Random random) {
    // few distinct scores, so that runs of equal scores ordered by member cross chunks
    return random.nextInt(8) == 0 ? random.nextInt(3) : random.nextInt(2_000) / 4.0 - 100;
  }

  @Test
  void randomChangesMatchAModelAcrossBothForms() {
    Random random = new Random(2026_11_30L);
    try (Keyspace ks = keyspace(64 << 20)) {
      Model model = new Model();
      boolean sawChunked = false;
      boolean sawPackedAfterChunked = false;
      for (int step = 0; step < 700; step++) {
        boolean growing = step % 350 < 220;
        int op = random.nextInt(100);
        if (op < (growing ? 55 : 10)) {
          Map<String, Double> batch = new HashMap<>();
          for (int i = random.nextInt(growing ? 40 : 4); i >= 0; i--) {
            batch.put(member(random, 6_000), score(random));
          }
          List<Entry> updates = new ArrayList<>();
          batch.forEach((m, sc) -> updates.add(new Entry(b(m), sc)));
          boolean together = random.nextBoolean();
          ks.editZSet(
              0,
              KEY,
              (before, z) -> {
                if (together) {
                  z.putAll(updates);
                } else {
                  updates.forEach(e -> z.put(e.member(), e.score()));
                }
                return null;
              });
          batch.forEach(model::put);
        } else if (op < 70) {
          List<String> ms = new ArrayList<>();
          List<String> present = members(model);
          for (int i = random.nextInt(growing ? 5 : 100); i >= 0; i--) {
            ms.add(
                random.nextBoolean() && !present.isEmpty()
                    ? present.get(random.nextInt(present.size()))
                    : member(random, 6_000));
          }
          int removed =
              ks.editZSet(
                  0,
                  KEY,
                  (before, z) -> {
                    int n = 0;
                    for (String m : ms) {
                      n += z.remove(b(m)) ? 1 : 0;
                    }
                    return n;
                  });
          int expected = 0;
          for (String m : ms) {
            expected += model.remove(m) ? 1 : 0;
          }
          assertEquals(expected, removed, step + " removals");
        } else if (op < 80) {
          boolean max = random.nextBoolean();
          int count = 1 + random.nextInt(growing ? 3 : 100);
          List<Entry> popped = ks.editZSet(0, KEY, (before, z) -> z.pop(max, count));
          List<E> expected = model.list();
          for (int k = 0; k < popped.size(); k++) {
            E want = expected.get(max ? expected.size() - 1 - k : k);
            assertEquals(
                want, new E(s(popped.get(k).member()), popped.get(k).score()), step + " pop");
            model.remove(want.member());
          }
          assertEquals(Math.min(count, expected.size()), popped.size());
        } else if (op < 88 && !model.scores.isEmpty()) {
          List<String> present = members(model);
          String m = present.get(random.nextInt(present.size()));
          double by = random.nextInt(50) - 25;
          ks.editZSet(
              0,
              KEY,
              (before, z) -> {
                z.put(b(m), z.score(b(m)) + by);
                return null;
              });
          model.put(m, model.scores.get(m) + by);
        } else if (op < 92 && model.scores.size() > 2) {
          int n = model.scores.size();
          int from = random.nextInt(n);
          int to = Math.min(n - 1, from + random.nextInt(growing ? 5 : 200));
          ks.editZSet(
              0,
              KEY,
              (before, z) -> {
                z.removeRanks(from, to);
                return null;
              });
          List<E> all = model.list();
          for (int r = from; r <= to; r++) {
            model.remove(all.get(r).member());
          }
        }
        check(ks, model, random, step);
        boolean isChunked = chunked(ks);
        boolean changedForm = isChunked != sawChunked;
        sawPackedAfterChunked |= sawChunked && !isChunked && !model.scores.isEmpty();
        sawChunked |= isChunked;
        if (step % 3 != 0 && !changedForm) {
          continue; // the store walk below every few steps, and whenever the form changed
        }
        int[] entries = chunkEntries(ks);
        assertEquals(0, entries[1], step + ": chunks no head names");
        if (!isChunked) {
          assertEquals(0, entries[0], step + ": a packed set has no chunks");
        }
        assertEquals(model.scores.isEmpty() ? 0 : 1, ks.size(0), "one key, whatever its chunks");
      }
      assertTrue(sawChunked, "the set grew into the chunked form");
      assertTrue(sawPackedAfterChunked, "and shrank back into the packed one");
    }
  }

  /** The model's members in a fixed order, for seeded picks. */
  private static List<String> members(Model model) {
    List<String> ms = new ArrayList<>(model.scores.keySet());
    ms.sort(null);
    return ms;
  }

  private void check(Keyspace ks, Model model, Random random, int step) {
    List<E> expected = model.list();
    if (expected.isEmpty()) {
      assertNull(ks.peek(0, KEY), step + ": an emptied set is deleted");
      return;
    }
    if (step % 3 == 0) {
      List<E> got = new ArrayList<>();
      for (Entry e : ZSetPayload.entries(ks.peek(0, KEY).payload())) {
        got.add(new E(s(e.member()), e.score()));
      }
      assertEquals(expected, got, step + ": read whole, every entry in order");
    }
    int n = expected.size();
    ks.readZSet(
        0,
        KEY,
        (before, z) -> {
          assertEquals(n, z.size(), step + " size");
          for (int i = 0; i < 6; i++) {
            int r = random.nextInt(n);
            E want = expected.get(r);
            Entry at = z.entry(r);
            assertEquals(want, new E(s(at.member()), at.score()), step + " entry " + r);
            assertEquals(r, z.rank(b(want.member())), step + " rank");
            assertEquals(Double.valueOf(want.score()), z.score(b(want.member())), step + " score");
          }
          assertNull(z.score(b("absent")), step + " absent");
          assertEquals(-1, z.rank(b("absent")));
          double bound = score(random);
          int first = 0;
          while (first < n && expected.get(first).score() < bound) {
            first++;
          }
          assertEquals(first, z.firstRank(e -> e.score() >= bound), step + " score bound");
          int from = random.nextInt(n);
          int to = Math.min(n - 1, from + random.nextInt(300));
          List<E> run = new ArrayList<>();
          for (Entry e : z.range(from, to)) {
            run.add(new E(s(e.member()), e.score()));
          }
          assertEquals(expected.subList(from, to + 1), run, step + " range");
          return null;
        });
  }

  private static void fill(Keyspace ks, byte[] key, int n) {
    ks.editZSet(
        0,
        key,
        (before, z) -> {
          List<Entry> all = new ArrayList<>();
          for (int i = 0; i < n; i++) {
            all.add(new Entry(b("element:" + i), i % 1_000));
          }
          z.putAll(all);
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
        List<Entry> page = new ArrayList<>();
        long from = cursor;
        cursor = ks.readZSet(0, KEY, (before, z) -> z.scan(from, 25, m -> true, page));
        page.forEach(e -> seen.add(s(e.member())));
        int next = added++;
        ks.editZSet(
            0,
            KEY,
            (before, z) -> {
              z.put(b("new:" + next), next);
              return z.remove(b("element:" + (3_000 + next % 1_000)));
            });
        calls++;
      } while (cursor != 0 && calls < 10_000);
      assertEquals(0, cursor, "the scan ended");
      for (int i = 0; i < 3_000; i++) {
        assertTrue(seen.contains("element:" + i), "member " + i + " returned");
      }
      assertTrue(calls < 4_000 / 10, "pages of about COUNT members: " + calls + " calls");
    }
  }

  /** Store entries whose bytes a change wrote, and those it removed. */
  private static int[] rewrittenBy(Keyspace ks, Runnable change) {
    Map<String, byte[]> before = new HashMap<>();
    ks.store().asMap().forEach((k, v) -> before.put(Arrays.toString(k), v));
    change.run();
    int rewritten = 0;
    Set<String> after = new HashSet<>();
    for (Map.Entry<byte[], byte[]> e : ks.store().asMap().entrySet()) {
      String k = Arrays.toString(e.getKey());
      after.add(k);
      byte[] old = before.get(k);
      rewritten += old == null || !Arrays.equals(old, e.getValue()) ? 1 : 0;
    }
    int removed = 0;
    for (String k : before.keySet()) {
      removed += after.contains(k) ? 0 : 1;
    }
    return new int[] {rewritten, removed};
  }

  @Test
  void aChangeRewritesAFewChunksNotTheSet() {
    try (Keyspace ks = keyspace(64 << 20)) {
      fill(ks, KEY, 40_000);
      assertTrue(ks.estimatedSize() > 300, "the set is in many chunks: " + ks.estimatedSize());
      int head = ks.peekHeader(0, KEY).payload().length;
      assertTrue(head < 600, "a head of a few page refs: " + head + " bytes");
      // head, one chunk and one page of each side (a page under a fresh number, its old one gone)
      int[] add =
          rewrittenBy(
              ks,
              () ->
                  ks.editZSet(
                      0,
                      KEY,
                      (b, z) -> {
                        z.put(b("one more"), 500.5);
                        return null;
                      }));
      assertTrue(add[0] <= 5 && add[1] <= 2, "ZADD: " + Arrays.toString(add));
      int[] update =
          rewrittenBy(
              ks,
              () ->
                  ks.editZSet(
                      0,
                      KEY,
                      (b, z) -> {
                        z.put(b("element:123"), 999.25);
                        return null;
                      }));
      assertTrue(update[0] <= 7 && update[1] <= 3, "a new score: " + Arrays.toString(update));
      int[] pop = rewrittenBy(ks, () -> ks.editZSet(0, KEY, (b, z) -> z.pop(false, 1)));
      assertTrue(pop[0] <= 5 && pop[1] <= 3, "ZPOPMIN: " + Arrays.toString(pop));
      int[] rem = rewrittenBy(ks, () -> ks.editZSet(0, KEY, (b, z) -> z.remove(b("element:7"))));
      assertTrue(rem[0] <= 5 && rem[1] <= 3, "ZREM: " + Arrays.toString(rem));
      int[] read = rewrittenBy(ks, () -> ks.readZSet(0, KEY, (b, z) -> z.rank(b("element:39999"))));
      assertEquals(0, read[0] + read[1], "a read writes nothing");
    }
  }

  @Test
  void aSetFilledInOrderIsPackedInFullChunks() {
    try (Keyspace ks = keyspace(64 << 20)) {
      for (int batch = 0; batch < 40; batch++) {
        int base = batch * 1_000;
        ks.editZSet(
            0,
            KEY,
            (before, z) -> {
              List<Entry> add = new ArrayList<>();
              for (int i = base; i < base + 1_000; i++) {
                add.add(new Entry(b("member:" + i), i));
              }
              z.putAll(add);
              return null;
            });
      }
      ks.closeOpenCollections(); // an open set's chunks reach the store when it closes
      byte[] stored = {0, 'z', 's', 'e', 't'};
      ZSetChunks.Index index =
          (ZSetChunks.Index) ChunkStore.indexOf(ks.store().getIfPresent(stored));
      assertEquals(40_000, index.size());
      long scoreBytes = 0;
      int scoreChunks = 0;
      for (ZSetChunks.Ref page : index.byScore()) {
        scoreBytes += page.bytes();
        byte[] v = ChunkCensus.storedPayload(ks, stored, index.id(), page.number());
        scoreChunks += ZSetChunks.decodePage(v, index.nextNumber()).size();
      }
      // entries appended in score order fill each by-score chunk before the next one starts
      assertTrue(
          scoreBytes / scoreChunks > ZSetSide.CHUNK_BYTES * 9 / 10,
          scoreBytes / scoreChunks + " bytes a chunk");
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
      assertEquals(List.of("zset"), seen, "walks see the key, never a chunk");
      assertEquals(5_000, ZSetPayload.view(ks.peek(0, KEY).payload()).size(), "read whole");

      ks.update(0, KEY, v -> v.withExpiry(now.get() + 100));
      assertTrue(chunked(ks), "an expiry keeps the chunked form");
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

      fill(ks, KEY, 5_000);
      ks.put(0, b("other"), ks.peek(0, KEY));
      ks.delete(0, KEY);
      assertEquals(1, ks.estimatedSize(), "the renamed set is packed, the chunks are gone");
      ks.editZSet(
          0,
          b("other"),
          (before, z) -> {
            z.put(b("one more"), 1);
            return null;
          });
      assertEquals(5_001, ZSetPayload.view(ks.peek(0, b("other")).payload()).size());
      assertTrue(ks.estimatedSize() > 10, "chunked again");
      ks.delete(0, b("other"));

      fill(ks, KEY, 5_000);
      ks.flush(1);
      assertEquals(5_000, (int) ks.readZSet(0, KEY, (before, z) -> z.size()));
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
      assertNull(ks.readZSet(0, KEY, (before, z) -> z == null ? null : z.entries()));
      assertEquals(0, ks.estimatedSize(), "the head and every other chunk went with it");
      assertFalse(ks.delete(0, KEY));
    }
  }
}
