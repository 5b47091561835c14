package dev.larder.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The pool of over-size pages: the last {@link PageStore#LARGE_POOL} are kept, counted and
 * warm, for an entry of about their size, and given up first when room is needed.
 */
class PageStorePoolTest {

  private static final int STANDARD = 64 * 1024;
  private static final int LARGE = 256 * 1024;

  @Test
  void aRecycledOverSizePageIsTakenBackByAnEntryOfAboutItsSize() {
    PageStore store = new PageStore(new HeapPageMemory(), STANDARD);
    Page page = store.allocate(LARGE);
    long reserved = store.reservedBytes();
    store.recycle(page);
    assertEquals(reserved, store.reservedBytes(), "a pooled page still counts");
    assertTrue(store.hasPooled());
    assertNull(store.takePooledLarge(LARGE + 1), "too small for it");
    assertNull(store.takePooledLarge(LARGE / 2), "would waste half of it");
    assertSame(page, store.takePooledLarge(LARGE - LARGE / 9), "close enough");
    assertFalse(store.hasPooled());
    store.close();
  }

  @Test
  void theOldestIsFreedBeyondThePoolAndStandardPagesGoFirst() {
    PageStore store = new PageStore(new HeapPageMemory(), STANDARD);
    Page standard = store.allocate(STANDARD);
    Page[] large = new Page[PageStore.LARGE_POOL + 1];
    for (int i = 0; i < large.length; i++) {
      large[i] = store.allocate(LARGE + i * 4096);
    }
    long all = store.reservedBytes();
    for (Page p : large) {
      store.recycle(p);
    }
    assertEquals(all - store.footprint(LARGE), store.reservedBytes(), "the oldest was freed");
    assertEquals(List.of(large).subList(1, large.length), store.pooledLargePages());
    store.recycle(standard);
    assertTrue(store.releaseOnePooled());
    assertEquals(0, store.pooledCount(), "a standard page is freed before an over-size one");
    assertEquals(PageStore.LARGE_POOL, store.pooledLargePages().size());
    assertTrue(store.releaseOnePooledLarge());
    assertEquals(List.of(large[2]), store.pooledLargePages(), "the oldest goes first");
    store.releaseAll();
    assertEquals(0, store.reservedBytes());
    assertEquals(List.of(), store.pooledLargePages());
    store.close();
  }
}
