package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Test support: the chunk entries (chunks and index pages) a keyspace's store holds, counted by
 * whether the head of their collection names them, whatever the collection's type. A chunk is named
 * when its key's head holds a chunked collection of the chunk's collection id whose index (the head
 * and the index pages present) lists the chunk's number; any other chunk entry is an orphan, which
 * no command will ever remove.
 *
 * @param named chunk entries a head names
 * @param orphans chunk entries no head names
 */
public record ChunkCensus(int named, int orphans) {
  /**
   * Counts the chunk entries of a keyspace's store.
   *
   * @param ks the keyspace, not changing while it is counted
   */
  public static ChunkCensus of(Keyspace ks) {
    ks.closeOpenCollections(); // their changes are in the store once they close
    int named = 0;
    int orphans = 0;
    Map<String, Set<Integer>> namedBy = new HashMap<>();
    for (byte[] k : ks.store().asMap().keySet()) {
      if (!ChunkKey.isChunkKey(k)) {
        continue;
      }
      byte[] headKey = ChunkKey.headKeyOf(k);
      byte[] head = ks.store().getIfPresent(headKey);
      boolean listed = false;
      if (head != null && ChunkStore.isHeadValue(head)) {
        ChunkIndex index = ChunkStore.indexOf(head);
        Set<Integer> numbers =
            namedBy.computeIfAbsent(
                Arrays.toString(headKey) + "#" + index.id(), x -> numbersNamed(ks, headKey, index));
        listed = index.id() == ChunkKey.idOf(k) && numbers.contains(ChunkKey.numberOf(k));
      }
      if (listed) {
        named++;
      } else {
        orphans++;
      }
    }
    return new ChunkCensus(named, orphans);
  }

  /** The numbers of the chunks and index pages a head names, through the pages present. */
  private static Set<Integer> numbersNamed(Keyspace ks, byte[] headKey, ChunkIndex index) {
    Set<Integer> out = new HashSet<>();
    index.forEachNumber(n -> storedPayload(ks, headKey, index.id(), n), out::add);
    return out;
  }

  /**
   * Returns the payload of a stored chunk or index page (of the collection {@code id} at {@code
   * headKey}, under {@code number}), or null if the store does not hold it.
   *
   * @param ks the keyspace
   * @param headKey the collection's stored key
   * @param id its collection id
   * @param number the chunk's or page's number
   */
  static byte[] storedPayload(Keyspace ks, byte[] headKey, long id, int number) {
    byte[] v = ks.store().getIfPresent(ChunkKey.of(headKey, id, number));
    return v == null ? null : ValueLayout.decode(v).payload();
  }

  /**
   * Removes one chunk entry from the store behind the keyspace's back (the last its walk meets), as
   * an eviction whose follow-up has not run yet leaves it.
   *
   * @param ks a keyspace holding at least one chunk entry
   */
  static void dropOneChunk(Keyspace ks) {
    byte[] someChunk = null;
    for (byte[] k : ks.store().asMap().keySet()) {
      if (ChunkKey.isChunkKey(k)) {
        someChunk = k;
      }
    }
    assertNotNull(someChunk, "a chunk entry to drop");
    ks.store().invalidate(someChunk);
  }

  /**
   * Writes strings of 200 bytes beside a chunked collection until the store's bound evicts it (at
   * most 200,000), then checks that it went whole: its key reads as absent, no chunk entry is left,
   * and the eviction was counted.
   *
   * @param ks a keyspace whose bound is small enough
   * @param key the collection's key, in database 0
   * @param what the collection's name in messages ("the list")
   */
  static void assertEvictedWhole(Keyspace ks, byte[] key, String what) {
    byte[] filler = new byte[200];
    int i = 0;
    while (ks.peekHeader(0, key) != null && i < 200_000) {
      ks.putString(0, ("filler:" + i++).getBytes(StandardCharsets.UTF_8), filler);
    }
    assertNull(ks.peekHeader(0, key), what + " was evicted within " + i + " writes");
    assertEquals(0, of(ks).total(), "none of its chunks is left");
    assertTrue(ks.stats()[3] > 0, "evictions counted");
  }

  /** Returns every chunk entry, named or not. */
  int total() {
    return named + orphans;
  }

  /** Returns the counts as the chunked tests read them: {@code {named, orphans}}. */
  int[] asArray() {
    return new int[] {named, orphans};
  }
}
