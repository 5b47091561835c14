package dev.larder.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.Storage;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Standard pages are pooled up to {@link PageStore#STANDARD_POOL} and freed beyond; pooled pages
 * count as reserved (they are the segment's memory) but not as dead bytes for compaction, and the
 * standard size follows what the pages hold, dead entries and pooled pages left out: so a segment
 * whose entries are rewritten whole, or that shrinks, gives its emptied pages back instead of
 * keeping its peak.
 */
class PooledPagesTest {

  private static final int STANDARD = 16 * 1024;

  @Test
  void standardPagesArePooledUpToTheBoundAndFreedBeyond() {
    PageStore store = new PageStore(new HeapPageMemory(), STANDARD);
    Page[] pages = new Page[PageStore.STANDARD_POOL + 3];
    for (int i = 0; i < pages.length; i++) {
      pages[i] = store.allocate(STANDARD);
    }
    long page = store.footprint(STANDARD);
    assertEquals(pages.length * page, store.reservedBytes());
    for (int i = 0; i < pages.length; i++) {
      store.recycle(pages[i]);
      int pooled = Math.min(i + 1, PageStore.STANDARD_POOL);
      assertEquals(pooled, store.pooledCount());
      assertEquals(pooled * page, store.pooledBytes());
      assertEquals((pages.length - (i + 1) + pooled) * page, store.reservedBytes());
    }
    for (int i = 0; i < PageStore.STANDARD_POOL; i++) {
      assertTrue(store.takePooled() != null);
    }
    assertEquals(0, store.pooledBytes());
    assertEquals(PageStore.STANDARD_POOL * page, store.reservedBytes(), "taken pages still count");
    store.close();
  }

  @Test
  void pooledBytesCountBothKindsAndStillCountAsReserved() {
    PageStore store = new PageStore(new HeapPageMemory(), 4096, 1 << 20);
    Page large = store.allocate(64 * 1024);
    Page[] standard = new Page[PageStore.STANDARD_POOL];
    for (int i = 0; i < standard.length; i++) {
      standard[i] = store.allocate(4096);
    }
    long reserved = store.reservedBytes();
    store.recycle(large);
    assertEquals(store.footprint(64 * 1024), store.pooledLargeBytes());
    assertEquals(store.footprint(64 * 1024), store.pooledBytes());
    assertEquals(reserved, store.reservedBytes(), "a pooled page still counts against the bound");
    for (Page p : standard) {
      store.recycle(p);
    }
    assertEquals(
        store.footprint(64 * 1024) + PageStore.STANDARD_POOL * store.footprint(4096),
        store.pooledBytes());
    assertEquals(reserved, store.reservedBytes());
    store.close();
  }

  @Test
  void theStandardSizeFollowsWhatThePagesHoldUpToTheTargetAndNeverShrinks() {
    PageStore store = new PageStore(new HeapPageMemory(), 4096, 256 * 1024);
    assertEquals(4096, store.sizeForContents(0));
    assertEquals(4096, store.sizeForContents(PageStore.PAGES_PER_SIZE * 8192L - 1));
    assertEquals(8192, store.sizeForContents(PageStore.PAGES_PER_SIZE * 8192L));
    assertEquals(256 * 1024, store.sizeForContents(1L << 40), "at most the target");
    store.growStandardSize(4096, PageStore.PAGES_PER_SIZE * 65536L);
    assertEquals(65536, store.standardSize);
    store.growStandardSize(4096, 0);
    assertEquals(65536, store.standardSize, "sizes never shrink");
    store.close();
  }

  /**
   * A segment of an unbounded cache whose values are rewritten whole (as a collection's chunks are)
   * reserves a small multiple of what it holds; with the pool counted as dead bytes and never
   * shrinking, it kept several times that (its peak of pooled pages, then grown pages).
   */
  @Test
  void rewritingValuesWholeKeepsReservedBytesNearTheLiveOnes() {
    Segment segment = unboundedSegment();
    int keys = 200;
    for (int round = 0; round < 60; round++) {
      for (int k = 0; k < keys; k++) {
        // values grow and shrink across rounds, as chunks split and merge
        int length = 1000 + ((k * 7 + round * 13) % 40) * 100;
        put(segment, k, length, round);
      }
    }
    long live = segment.liveBytes();
    long used = segment.memoryUsed();
    assertTrue(
        used < 2 * live,
        "reserved " + used + " B for " + live + " B live: emptied pages were kept");
    segment.close();
  }

  /** A segment that held much and then little gives back the pages it emptied. */
  @Test
  void aSegmentThatShrinksGivesItsEmptiedPagesBack() {
    Segment segment =
        new Segment(
            new StoreSettings(
                Storage.HEAP, 64 * 1024, Long.MAX_VALUE, Long.MAX_VALUE, -1, -1, false));
    int keys = 4000;
    for (int k = 0; k < keys; k++) {
      put(segment, k, 2000, 0);
    }
    long peak = segment.memoryUsed();
    for (int k = 0; k < keys; k++) {
      if (k % 10 != 0) {
        byte[] key = key(k);
        segment.remove(key, key.length, Segment.hash(key, key.length), null, false, 0);
      }
    }
    long live = segment.liveBytes();
    long used = segment.memoryUsed();
    assertTrue(
        used < peak / 4,
        "reserved " + used + " B after shrinking from " + peak + " B to " + live + " B live");
    segment.close();
  }

  /**
   * A page that holds one entry of its own size (written when the standard pages were smaller than
   * it) is whole for as long as that entry lives; compaction still finds the sparse pages beside
   * it. It took the page with the fewest live bytes as its only candidate, and such a page, whole
   * and small, hid the others: the segment stopped compacting and kept every dead copy.
   */
  @Test
  void aWholePageOfOneEntryDoesNotStopCompaction() {
    Segment segment = unboundedSegment();
    put(segment, -1, 4200, 0); // above the first 4 KiB pages: a page of its own, live throughout
    SplittableRandom random = new SplittableRandom(1);
    for (int round = 0; round < 100; round++) {
      for (int k = 0; k < 300; k++) {
        put(segment, random.nextInt(300), 500, round); // random order: pages die partly
      }
    }
    long live = segment.liveBytes();
    long used = segment.memoryUsed();
    assertTrue(
        used < 2.5 * live,
        "reserved " + used + " B for " + live + " B live: dead copies were kept");
    segment.close();
  }

  private static Segment unboundedSegment() {
    return new Segment(
        new StoreSettings(Storage.HEAP, 1 << 20, Long.MAX_VALUE, Long.MAX_VALUE, -1, -1, false));
  }

  private static void put(Segment segment, int k, int length, int round) {
    byte[] key = key(k);
    byte[] value = new byte[length];
    value[0] = (byte) round;
    segment.put(
        key,
        key.length,
        value,
        value.length,
        Segment.hash(key, key.length),
        PutMode.ALWAYS,
        null,
        false,
        0);
  }

  private static byte[] key(int k) {
    return ByteBuffer.allocate(8).putLong(0, k).array();
  }
}
