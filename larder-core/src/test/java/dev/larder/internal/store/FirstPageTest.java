package dev.larder.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * A segment's first standard page starts as a short heap array, but only up to {@link
 * PageMemory#MOST_FIRST_BYTES}: a larger first page (a segment whose pages grew for large entries
 * and was then emptied) comes from the store's memory whole.
 */
class FirstPageTest {

  @Test
  void aSegmentsFirstPageStartsShort() {
    PageStore store = new PageStore(new HeapPageMemory(), 64 * 1024, 64 * 1024);
    Page page = store.allocate(64 * 1024);
    assertEquals(PageMemory.FIRST_BYTES, page.memory.byteSize());
    store.close();
  }

  @Test
  void aFirstPageLargerThanTheLargestKeptOnTheHeapComesFromTheMemory() {
    int size = 2 * PageMemory.MOST_FIRST_BYTES;
    PageStore store = new PageStore(new HeapPageMemory(), size, size);
    Page page = store.allocate(size);
    assertEquals(size, page.memory.byteSize());
    store.close();
  }

  @Test
  void aStoreOverAGivenMemoryTakesEveryPageFromIt() {
    PageStore store = new PageStore(new HeapPageMemory(), 64 * 1024);
    assertEquals(64 * 1024, store.allocate(64 * 1024).memory.byteSize());
    store.close();
  }
}
