package dev.larder.server.internal.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import dev.larder.server.internal.keyspace.ChunkKey;
import dev.larder.server.internal.keyspace.ListChunks;
import dev.larder.server.internal.keyspace.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Large lists (stored in chunks) come back whole after a restart with a log: from the log alone,
 * from a checkpoint followed by the log, with changes inside MULTI/EXEC, and under a memory bound
 * small enough that lists are evicted, where each comes back whole or not at all.
 */
class ListsAcrossRestartTest {
  private static final long START = TestServer.START;
  private static final int LISTS = 40;

  private static void write(TestServer.Connection c, int from, int to) {
    for (int i = from; i < to; i++) {
      c.cmd("RPUSH", "queue", "element:" + i, "more:" + i);
      c.cmd("LPUSH", "stack", "s" + i);
      // Long enough for the head to list most of its chunks in index pages.
      c.cmd("RPUSH", "paged", "p".repeat(90) + i);
      if (i % 5 == 0) {
        c.cmd("LPUSH", "paged", "h".repeat(90) + i);
      }
      if (i % 7 == 0) {
        c.cmd("LPOP", "queue");
        c.cmd("RPOP", "stack", "2");
        c.cmd("LPOP", "paged", "3");
      }
    }
    c.cmd("LSET", "paged", "1200", "changed in a page");
    c.cmd("LINSERT", "paged", "AFTER", "p".repeat(90) + (from + to) / 2, "inserted in a page");
    c.cmd("LSET", "queue", "1000", "changed");
    c.cmd("LINSERT", "queue", "BEFORE", "element:1500", "inserted");
    c.cmd("LREM", "queue", "-3", "more:1999");
    c.cmd("MULTI");
    c.cmd("RPUSH", "queue", "in-exec");
    c.cmd("LTRIM", "stack", "5", "-5");
    c.cmd("LMOVE", "queue", "stack", "LEFT", "RIGHT");
    c.cmd("EXEC");
    c.cmd("EXPIRE", "stack", "10000");
    c.cmd("RPUSH", "gone", "a".repeat(10_000), "b".repeat(10_000));
    c.cmd("DEL", "gone");
  }

  private static String state(TestServer.Connection c) {
    return String.join(
        "|",
        c.cmd("LLEN", "queue"),
        c.cmd("LRANGE", "queue", "0", "-1"),
        c.cmd("LLEN", "stack"),
        c.cmd("LRANGE", "stack", "0", "-1"),
        c.cmd("TTL", "stack"),
        c.cmd("EXISTS", "gone"),
        c.cmd("LLEN", "paged"),
        c.cmd("LRANGE", "paged", "0", "-1"),
        c.cmd("DBSIZE"));
  }

  /** The index pages a list's head names. */
  private static int pages(TestServer s, String key) {
    byte[] head =
        s.keyspace
            .store()
            .getIfPresent(
                dev.larder.server.internal.keyspace.Keyspace.storedKey(
                    0, key.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    ListChunks.Index index =
        ListChunks.Index.decode(
            Arrays.copyOfRange(head, ValueLayout.header(head).payloadOffset(), head.length));
    int pages = 0;
    for (int i = 0; i < index.entries(); i++) {
      pages += index.isPage(i) ? 1 : 0;
    }
    return pages;
  }

  /** Chunks whose list's head does not name them: must be none. */
  private static int orphanChunks(TestServer s) {
    int orphans = 0;
    for (var e : s.keyspace.store().asMap().entrySet()) {
      if (!ChunkKey.isChunkKey(e.getKey())) {
        continue;
      }
      byte[] head = s.keyspace.store().getIfPresent(ChunkKey.headKeyOf(e.getKey()));
      boolean named = false;
      if (head != null && ListChunks.isHeadValue(head)) {
        ListChunks.Index index =
            ListChunks.Index.decode(
                Arrays.copyOfRange(head, ValueLayout.header(head).payloadOffset(), head.length));
        java.util.Set<Integer> numbers = new java.util.HashSet<>();
        ListChunks.forEachKey(
            ChunkKey.headKeyOf(e.getKey()),
            index,
            k -> {
              byte[] raw = s.keyspace.store().getIfPresent(k);
              return raw == null ? null : ValueLayout.decode(raw).payload();
            },
            k -> numbers.add(ChunkKey.numberOf(k)));
        named =
            index.id() == ChunkKey.idOf(e.getKey())
                && numbers.contains(ChunkKey.numberOf(e.getKey()));
      }
      orphans += named ? 0 : 1;
    }
    return orphans;
  }

  @Test
  void fromTheLog(@TempDir Path dir) throws Exception {
    String before;
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      write(s.resp(), 0, 3_000);
      before = state(s.resp());
      assertTrue(s.keyspace.estimatedSize() > 10, "the lists are stored in chunks");
      assertTrue(pages(s, "paged") > 0, "the long list's head names index pages");
    }
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      assertEquals(before, state(s.resp()));
      assertEquals(0, orphanChunks(s));
    }
    assertTrue(before.startsWith(":55"), before.substring(0, 20));
  }

  @Test
  void fromACheckpointAndTheLog(@TempDir Path dir) throws Exception {
    String before;
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      write(s.resp(), 0, 2_000);
      assertEquals("+OK\r\n", s.resp().cmd("SAVE"));
      write(s.resp(), 2_000, 3_000);
      before = state(s.resp());
    }
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      assertEquals(before, state(s.resp()));
      assertEquals(0, orphanChunks(s));
    }
  }

  @Test
  void evictedListsComeBackWholeOrNotAtAll(@TempDir Path dir) throws Exception {
    Map<String, String> small = Map.of("maxmemory", "2mb");
    List<String> lengths = new ArrayList<>();
    try (TestServer s = new TestServer(small, dir, START)) {
      TestServer.Connection c = s.resp();
      for (int list = 0; list < LISTS; list++) {
        for (int i = 0; i < 40; i++) {
          List<String> push = new ArrayList<>(List.of("RPUSH", "list:" + list));
          for (int j = 0; j < 50; j++) {
            // Every other list long enough for index pages. Each element starts with a hash of
            // its place, so that it shares no prefix with the one before it: front-coded chunks
            // would otherwise hold these lists in less than the bound and nothing would be evicted.
            String start = Integer.toHexString((list * 2_000 + i * 50 + j) * 0x9E3779B1);
            push.add(
                start
                    + (list % 2 == 0 ? "x".repeat(100) : "")
                    + "element:"
                    + list
                    + ":"
                    + i
                    + ":"
                    + j);
          }
          c.cmd(push.toArray(String[]::new));
        }
      }
      assertTrue(s.keyspace.stats()[3] > 0, "the bound evicted keys");
      for (int list = 0; list < LISTS; list++) {
        lengths.add(c.cmd("LLEN", "list:" + list));
      }
    }
    try (TestServer s = new TestServer(small, dir, START)) {
      TestServer.Connection c = s.resp();
      assertEquals(0, orphanChunks(s));
      int kept = 0;
      for (int list = 0; list < LISTS; list++) {
        String length = c.cmd("LLEN", "list:" + list);
        // A list evicted while it was being pushed to starts again with the next push of 50:
        // what the log holds, the restart gives back, never part of a list.
        assertEquals(lengths.get(list), length, "list " + list + " as before the restart");
        assertEquals(
            0, Integer.parseInt(length.substring(1, length.length() - 2)) % 50, "list " + list);
        if (length.equals(":2000\r\n")) {
          kept++;
        }
        if (length.equals(":2000\r\n")) {
          assertTrue(
              c.cmd("LINDEX", "list:" + list, "1999").endsWith("element:" + list + ":39:49\r\n"));
        }
      }
      assertTrue(kept > 0 && lengths.contains(":0\r\n"), "some kept, some evicted: " + lengths);
    }
  }
}
