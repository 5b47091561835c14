package dev.larder.internal.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.Storage;
import dev.larder.internal.bulk.EncodedEntries;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * A segment's bulk restore ({@link Segment#restore}) leaves what a put of each entry leaves: the
 * same size, live bytes, reserved memory, index and pages; and it stops, storing nothing of it, at
 * an entry that only a put may store (a present key, a full segment, an entry larger than a page).
 */
class SegmentRestoreTest {

  private static final int VALUE_BYTES = 100;

  private static Segment segment(long budgetBytes, long maxEntries, long lifetimeNanos) {
    return new Segment(
        new StoreSettings(
            Storage.HEAP, 64 * 1024, budgetBytes, maxEntries, lifetimeNanos, -1, false));
  }

  private static byte[] key(long i) {
    return ByteBuffer.allocate(8).putLong(0, i).array();
  }

  private static byte[] value(long i, int length) {
    byte[] value = new byte[length];
    for (int b = 0; b < length; b++) {
      value[b] = (byte) (i * 31 + b);
    }
    return value;
  }

  /** Entries [from, to) with values of {@code length} bytes. */
  private static EncodedEntries batch(long from, long to, int length) {
    EncodedEntries entries = new EncodedEntries(1, 1);
    for (long i = from; i < to; i++) {
      entries.add(key(i), value(i, length));
    }
    return entries;
  }

  private static long[] hashes(EncodedEntries entries) {
    long[] hashes = new long[entries.size()];
    for (int e = 0; e < hashes.length; e++) {
      hashes[e] = Segment.hash(entries.bytes(), entries.keyOffset(e), entries.keyLength(e));
    }
    return hashes;
  }

  private static int[] inOrder(int n) {
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    return order;
  }

  /** Restores the whole batch, putting what restore leaves, as the cache does. */
  private static void restoreAll(Segment s, EncodedEntries entries, long now) {
    long[] hashes = hashes(entries);
    int[] order = inOrder(entries.size());
    for (int at = 0; at < order.length; ) {
      at = s.restore(entries, hashes, order, at, order.length, now);
      if (at < order.length) {
        int e = order[at++];
        byte[] key = slice(entries, entries.keyOffset(e), entries.keyLength(e));
        byte[] value =
            slice(entries, entries.keyOffset(e) + entries.keyLength(e), entries.valueLength(e));
        s.put(key, key.length, value, value.length, hashes[e], PutMode.ALWAYS, null, false, now);
      }
    }
  }

  private static byte[] slice(EncodedEntries entries, int from, int length) {
    return java.util.Arrays.copyOfRange(entries.bytes(), from, from + length);
  }

  private static void putAll(Segment s, long from, long to, int length, long now) {
    for (long i = from; i < to; i++) {
      byte[] key = key(i);
      byte[] value = value(i, length);
      s.put(key, 8, value, length, Segment.hash(key, 8), PutMode.ALWAYS, null, false, now);
    }
  }

  private static void assertSameState(Segment put, Segment restored) {
    assertEquals(put.size(), restored.size(), "size");
    assertEquals(put.liveBytes(), restored.liveBytes(), "live bytes");
    assertEquals(put.memoryUsed(), restored.memoryUsed(), "memory used");
    assertEquals(put.indexCapacity(), restored.indexCapacity(), "index capacity");
    assertEquals(put.policyBytes(), restored.policyBytes(), "policy tables");
  }

  private static void assertHolds(Segment s, long from, long to, int length, long now) {
    for (long i = from; i < to; i++) {
      byte[] key = key(i);
      assertArrayEquals(
          value(i, length), s.get(key, 8, Segment.hash(key, 8), now, true), "key " + i);
    }
  }

  @Test
  void aRestoreLeavesWhatPutsLeave() {
    int n = 20_000;
    Segment put = segment(Long.MAX_VALUE, Long.MAX_VALUE, -1);
    Segment restored = segment(Long.MAX_VALUE, Long.MAX_VALUE, -1);
    putAll(put, 0, n, VALUE_BYTES, 0);
    // in batches of a checkpoint block's size, as the server restores
    for (int from = 0; from < n; from += 600) {
      EncodedEntries entries = batch(from, Math.min(n, from + 600), VALUE_BYTES);
      int[] order = inOrder(entries.size());
      assertEquals(
          order.length,
          restored.restore(entries, hashes(entries), order, 0, order.length, 0),
          "every new key stored in one call");
    }
    assertSameState(put, restored);
    assertHolds(restored, 0, n, VALUE_BYTES, 0);
    put.close();
    restored.close();
  }

  @Test
  void aPresentKeyIsLeftToPut() {
    Segment s = segment(Long.MAX_VALUE, Long.MAX_VALUE, -1);
    putAll(s, 5, 6, VALUE_BYTES, 0);
    EncodedEntries entries = batch(0, 10, 7);
    int[] order = inOrder(10);
    long[] hashes = hashes(entries);
    assertEquals(5, s.restore(entries, hashes, order, 0, 10, 0), "stops at the present key 5");
    assertEquals(6, s.size());
    assertArrayEquals(value(5, VALUE_BYTES), s.get(key(5), 8, hashes[5], 0, true), "untouched");
    assertEquals(10, s.restore(entries, hashes, order, 6, 10, 0));
    assertEquals(10, s.size());
    s.close();
  }

  @Test
  void aDuplicateInTheBatchIsLeftToPutSoTheLaterValueWins() {
    Segment s = segment(Long.MAX_VALUE, Long.MAX_VALUE, -1);
    EncodedEntries entries = new EncodedEntries(4, 64);
    entries.add(key(1), value(1, 3));
    entries.add(key(2), value(2, 3));
    entries.add(key(1), value(1, 9));
    restoreAll(s, entries, 0);
    assertEquals(2, s.size());
    assertArrayEquals(value(1, 9), s.get(key(1), 8, Segment.hash(key(1), 8), 0, true));
    s.close();
  }

  @Test
  void aRestorePastTheBoundEvictsOnlyThroughPut() {
    long budget = 1L << 20;
    Segment s = segment(budget, Long.MAX_VALUE, -1);
    EncodedEntries entries = batch(0, 20_000, VALUE_BYTES); // about 2.5 MB
    long[] hashes = hashes(entries);
    int[] order = inOrder(entries.size());
    int stored = s.restore(entries, hashes, order, 0, order.length, 0);
    assertTrue(stored > 1000 && stored < order.length, "stored before the bound: " + stored);
    assertEquals(stored, s.size(), "nothing evicted by restore");
    assertTrue(s.memoryUsed() <= budget, "memory " + s.memoryUsed());
    restoreAll(s, entries, 0);
    assertTrue(s.memoryUsed() <= budget, "memory " + s.memoryUsed());
    assertTrue(s.size() < entries.size());
    assertHolds(s, entries.size() - 1, entries.size(), VALUE_BYTES, 0);
    s.close();
  }

  @Test
  void anEntryBoundIsKept() {
    Segment s = segment(Long.MAX_VALUE, 100, -1);
    EncodedEntries entries = batch(0, 300, 10);
    int[] order = inOrder(300);
    assertEquals(100, s.restore(entries, hashes(entries), order, 0, 300, 0));
    restoreAll(s, entries, 0);
    assertEquals(100, s.size());
    s.close();
  }

  @Test
  void anEntryLargerThanAPageIsLeftToPut() {
    Segment s = segment(Long.MAX_VALUE, Long.MAX_VALUE, -1);
    EncodedEntries entries = new EncodedEntries(2, 16);
    entries.add(key(1), value(1, 10));
    entries.add(key(2), value(2, 1 << 20));
    entries.add(key(3), value(3, 10));
    assertEquals(1, s.restore(entries, hashes(entries), inOrder(3), 0, 3, 0));
    restoreAll(s, entries, 0);
    assertHolds(s, 2, 3, 1 << 20, 0);
    assertHolds(s, 3, 4, 10, 0);
    s.close();
  }

  @Test
  void restoredEntriesExpireAsPutOnes() {
    long lifetime = 1_000;
    Segment s = segment(Long.MAX_VALUE, Long.MAX_VALUE, lifetime);
    restoreAll(s, batch(0, 100, 10), 5_000);
    assertHolds(s, 0, 100, 10, 5_000 + lifetime - 1);
    byte[] key = key(7);
    assertEquals(null, s.get(key, 8, Segment.hash(key, 8), 5_000 + lifetime, true));
    s.close();
  }

  @Test
  void aRetiredSegmentStoresNothing() {
    Segment s = segment(Long.MAX_VALUE, Long.MAX_VALUE, -1);
    s.close();
    EncodedEntries entries = batch(0, 3, 10);
    assertEquals(0, s.restore(entries, hashes(entries), inOrder(3), 0, 3, 0));
  }
}
