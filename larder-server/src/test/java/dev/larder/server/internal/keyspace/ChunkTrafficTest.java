package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.keyspace.ZSetPayload.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The chunk traffic counters (INFO's {@code larder_chunk_*}) against what the store shows: every
 * chunk, page and head a command rewrote, counted once with its stored size; every chunk it removed
 * counted; a read writes nothing; and the LRANGE path that names elements in place returns the
 * elements the copying path does.
 */
class ChunkTrafficTest {
  private final AtomicLong now = new AtomicLong(1_000_000);
  private static final byte[] LIST = b("list");
  private static final byte[] ZSET = b("zset");

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * What a change did to the store: entries written (new or other bytes), their bytes, removals.
   */
  private record Diff(int chunks, long chunkBytes, int heads, long headBytes, int removed) {}

  private static Diff diffOf(Keyspace ks, Runnable change) {
    Map<String, byte[]> before = new HashMap<>();
    ks.store().asMap().forEach((k, v) -> before.put(Arrays.toString(k), v));
    change.run();
    int chunks = 0;
    long chunkBytes = 0;
    int heads = 0;
    long headBytes = 0;
    Set<String> after = new HashSet<>();
    for (Map.Entry<byte[], byte[]> e : ks.store().asMap().entrySet()) {
      String k = Arrays.toString(e.getKey());
      after.add(k);
      byte[] old = before.get(k);
      if (old != null && Arrays.equals(old, e.getValue())) {
        continue;
      }
      if (ChunkKey.isChunkKey(e.getKey())) {
        chunks++;
        chunkBytes += e.getValue().length;
      } else {
        heads++;
        headBytes += e.getValue().length;
      }
    }
    int removed = 0;
    for (String k : before.keySet()) {
      removed += after.contains(k) ? 0 : 1;
    }
    return new Diff(chunks, chunkBytes, heads, headBytes, removed);
  }

  private static void assertCounted(Diff d, ChunkTraffic.Counts from, ChunkTraffic.Counts to) {
    String what = d + " counted " + from + " -> " + to;
    assertEquals(d.chunks(), to.chunkWrites() - from.chunkWrites(), what);
    assertEquals(d.chunkBytes(), to.chunkBytesWritten() - from.chunkBytesWritten(), what);
    assertEquals(d.heads(), to.headWrites() - from.headWrites(), what);
    assertEquals(d.headBytes(), to.headBytesWritten() - from.headBytesWritten(), what);
    assertEquals(d.removed(), to.chunkRemoves() - from.chunkRemoves(), what);
  }

  private static byte[] element(int i) {
    byte[] e = new byte[100];
    Arrays.fill(e, (byte) 'x');
    byte[] n = b(Integer.toString(i));
    System.arraycopy(n, 0, e, 0, n.length);
    return e;
  }

  @Test
  void listPushesAndPopsCountWhatTheStoreShows() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      ks.openCollections(false); // the store's path: an open list writes nothing per push or pop
      for (int i = 0; i < 1_500; i++) {
        int n = i;
        ChunkTraffic.Counts from = ks.chunkTraffic();
        Diff d =
            diffOf(
                ks,
                () ->
                    ks.editList(
                        0,
                        LIST,
                        (before, list) -> {
                          if (n % 3 == 2) {
                            return list.popTail(1);
                          }
                          list.pushHead(List.of(element(n)));
                          return null;
                        }));
        assertCounted(d, from, ks.chunkTraffic());
      }
      StoredValue head = ks.peekHeader(0, LIST);
      assertTrue(ListChunks.isHead(head.payload()), "the list is chunked");
      ChunkTraffic.Counts total = ks.chunkTraffic();
      assertTrue(total.chunkWrites() > 500, "a push writes its end chunk: " + total);
      assertTrue(total.chunkReads() > 0, "chunks were read: " + total);
    }
  }

  @Test
  void zsetChangesCountWhatTheStoreShowsAndReadsWriteNothing() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      // The store's path: an open sorted set would hold these changes in memory and write no head.
      ks.openCollections(false);
      ks.editZSet(
          0,
          ZSET,
          (before, z) -> {
            List<Entry> all = new ArrayList<>();
            for (int i = 0; i < 20_000; i++) {
              all.add(new Entry(b("element:" + i), i % 1_000));
            }
            z.putAll(all);
            return null;
          });
      for (int i = 0; i < 300; i++) {
        int n = i;
        ChunkTraffic.Counts from = ks.chunkTraffic();
        Diff d =
            diffOf(
                ks,
                () ->
                    ks.editZSet(
                        0,
                        ZSET,
                        (before, z) -> {
                          if (n % 2 == 0) {
                            z.put(b("new:" + n), n * 7 % 1_000 + 0.5);
                            return null;
                          }
                          return z.pop(false, 1);
                        }));
        assertCounted(d, from, ks.chunkTraffic());
        assertEquals(1, d.heads(), "one head per change");
      }
      ChunkTraffic.Counts from = ks.chunkTraffic();
      ks.readZSet(0, ZSET, (b, z) -> z.rank(b("element:19999")));
      ChunkTraffic.Counts to = ks.chunkTraffic();
      assertEquals(from.chunkWrites(), to.chunkWrites(), "a read writes no chunk");
      assertEquals(from.headWrites(), to.headWrites(), "a read writes no head");
      assertEquals(from.chunkRemoves(), to.chunkRemoves(), "a read removes nothing");
    }
  }

  @Test
  void rangeSlicesNameTheElementsTheCopyingRangeReturns() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      List<byte[]> small = List.of(b("a"), b(""), b("ccc"), element(7));
      ks.editList(
          0,
          b("small"),
          (before, list) -> {
            list.pushTail(small);
            return null;
          });
      for (int i = 0; i < 2_000; i++) {
        int n = i;
        ks.editList(
            0,
            LIST,
            (before, list) -> {
              list.pushHead(List.of(Arrays.copyOf(element(n), n % 150)));
              return null;
            });
      }
      for (byte[] key : List.of(b("small"), LIST)) {
        int size = ks.readList(0, key, (before, list) -> list.size());
        int[][] spans = {
          {0, 0}, {0, size - 1}, {size - 1, size - 1}, {0, 99}, {size / 3, size / 2}
        };
        for (int[] span : spans) {
          if (span[1] >= size) {
            continue;
          }
          List<byte[]> copied = ks.readList(0, key, (b, l) -> l.range(span[0], span[1]));
          ElementSlices slices =
              ks.readList(
                  0,
                  key,
                  (b, l) -> {
                    ElementSlices s = new ElementSlices(0);
                    l.range(span[0], span[1], s);
                    return s;
                  });
          assertEquals(copied.size(), slices.size(), Arrays.toString(span));
          for (int i = 0; i < copied.size(); i++) {
            assertArrayEquals(copied.get(i), slices.copy(i), Arrays.toString(span) + " at " + i);
          }
        }
      }
    }
  }
}
