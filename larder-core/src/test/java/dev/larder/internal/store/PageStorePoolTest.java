package dev.larder.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The pool of over-size pages: the last {@link PageStore#LARGE_POOL} are kept, counted and warm,
 * for an entry of their size, and given up first when room is needed (the segment's decisions count
 * them as free room, as they did when such pages were freed).
 */
class PageStorePoolTest {

  private static final int STANDARD = 64 * 1024;
  private static final int LARGE = 256 * 1024;

  @Test
  void aRecycledOverSizePageIsTakenBackByAnEntryOfItsSize() {
    PageStore store = new PageStore(new HeapPageMemory(), STANDARD);
    Page page = store.allocate(LARGE);
    long reserved = store.reservedBytes();
    store.recycle(page);
    assertEquals(reserved, store.reservedBytes(), "a pooled page still counts");
    assertEquals(store.footprint(LARGE), store.pooledLargeBytes());
    assertNull(store.takePooledLarge(LARGE + 1), "too small for it");
    assertNull(store.takePooledLarge(LARGE - 1), "its spare end would change the layout");
    assertSame(page, store.takePooledLarge(LARGE));
    assertEquals(0, store.pooledLargeBytes());
    store.close();
  }

  @Test
  void theOldestIsFreedBeyondThePoolAndOverSizePagesGoFirst() {
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
    assertEquals(List.of(large[2]), store.pooledLargePages(), "the oldest over-size page first");
    assertEquals(1, store.pooledCount());
    assertTrue(store.releaseOnePooled());
    assertEquals(List.of(), store.pooledLargePages());
    assertEquals(1, store.pooledCount(), "standard pages last");
    assertTrue(store.releaseOnePooled());
    assertEquals(0, store.pooledCount());
    assertFalse(store.releaseOnePooled());
    store.releaseAll();
    assertEquals(0, store.reservedBytes());
    assertEquals(List.of(), store.pooledLargePages());
    store.close();
  }
}
