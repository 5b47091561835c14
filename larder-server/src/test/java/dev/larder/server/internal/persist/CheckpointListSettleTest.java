package dev.larder.server.internal.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.Cache;
import dev.larder.server.internal.TestServer;
import dev.larder.server.internal.keyspace.ChunkKey;
import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.ListChunks;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chunked lists loaded from a checkpoint are settled as recovery documents ({@code
 * Keyspace.restoreSettle}): a checkpoint that holds chunks no list's head names, and a list one of
 * whose chunks is missing, comes back without the orphan chunks and without the broken list (its
 * head and its other chunks), while a whole list comes back whole. The checkpoint is made by the
 * server's own SAVE over a store edited behind the log's back, so that only the checkpoint (no log
 * record after it) holds the damage: the load's bulk path alone must notice the chunks.
 */
class CheckpointListSettleTest {
  private static final long START = TestServer.START;

  /** RPUSHes elements of 1,000 bytes until the list is stored in several chunks. */
  private static void bigList(TestServer.Connection c, String key) {
    for (int i = 0; i < 40; i++) {
      c.cmd("RPUSH", key, key + ":" + i + ":" + "x".repeat(1_000));
    }
  }

  /** RPUSHes elements of 1,000 bytes until the list's head names index pages. */
  private static void pagedList(TestServer.Connection c, String key) {
    for (int i = 0; i < 200; i++) {
      c.cmd("RPUSH", key, key + ":" + i + ":" + "x".repeat(1_000));
    }
  }

  /** The stored key of an index page of {@code key}'s list. */
  private static byte[] somePage(Cache<byte[], byte[]> store, String key) {
    byte[] head = store.getIfPresent(stored(key));
    ListChunks.Index index =
        ListChunks.Index.decode(
            Arrays.copyOfRange(
                head,
                dev.larder.server.internal.keyspace.ValueLayout.header(head).payloadOffset(),
                head.length));
    for (int i = 0; i < index.entries(); i++) {
      if (index.isPage(i)) {
        return ChunkKey.of(stored(key), index.id(), index.number(i));
      }
    }
    throw new AssertionError("no index page");
  }

  private static byte[] stored(String key) {
    return Keyspace.storedKey(0, key.getBytes(StandardCharsets.US_ASCII));
  }

  /** The stored keys of the chunks whose head key is {@code key}'s. */
  private static List<byte[]> chunksOf(Cache<byte[], byte[]> store, String key) {
    byte[] head = stored(key);
    List<byte[]> chunks = new ArrayList<>();
    for (byte[] k : store.asMap().keySet()) {
      if (ChunkKey.isChunkKey(k) && Arrays.equals(ChunkKey.headKeyOf(k), head)) {
        chunks.add(k);
      }
    }
    return chunks;
  }

  @Test
  void orphanChunksAndAListMissingAChunkAreSettledAfterACheckpointLoad(@TempDir Path dir)
      throws Exception {
    String whole;
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      TestServer.Connection c = s.resp();
      bigList(c, "orphaned");
      bigList(c, "broken");
      bigList(c, "whole");
      pagedList(c, "pageless");
      whole = c.cmd("LRANGE", "whole", "0", "-1");
      Cache<byte[], byte[]> store = s.keyspace.store();
      assertTrue(chunksOf(store, "orphaned").size() > 1, "the lists are chunked");
      List<byte[]> broken = chunksOf(store, "broken");
      assertTrue(broken.size() > 1, "the broken list has chunks to lose one of");
      // Behind the log's back: the head of one list goes (its chunks are orphans) and one chunk
      // of another (its head names a chunk that is missing); SAVE writes both into a checkpoint.
      store.invalidate(stored("orphaned"));
      store.invalidate(broken.get(broken.size() / 2));
      // And an index page of a third: its head names a page that is missing, whose chunks no
      // head names.
      store.invalidate(somePage(store, "pageless"));
      assertEquals("+OK\r\n", c.cmd("SAVE"));
    }
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      Cache<byte[], byte[]> store = s.keyspace.store();
      assertEquals(List.of(), chunksOf(store, "orphaned"), "orphan chunks removed");
      assertNull(store.getIfPresent(stored("broken")), "the list missing a chunk is removed");
      assertEquals(List.of(), chunksOf(store, "broken"), "its other chunks with it");
      assertNull(store.getIfPresent(stored("pageless")), "the list missing a page is removed");
      assertEquals(List.of(), chunksOf(store, "pageless"), "its chunks and pages with it");
      assertNotNull(store.getIfPresent(stored("whole")));
      TestServer.Connection c = s.resp();
      assertEquals(whole, c.cmd("LRANGE", "whole", "0", "-1"));
      assertEquals(":0\r\n", c.cmd("EXISTS", "orphaned", "broken", "pageless"));
      assertEquals(":1\r\n", c.cmd("DBSIZE"));
    }
  }
}
