package dev.larder.internal.store;

import dev.larder.Storage;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * The pages of one segment: allocation, page numbers, a pool of standard pages ready for reuse,
 * and the count of bytes they reserve.
 *
 * <p>Implementation notes. Standard pages are pooled rather than freed, since a bounded cache
 * reuses them at once. Pages larger than standard (one oversized entry each) are freed when
 * their entry goes. Off-heap pages each own a shared {@link Arena}: closing it frees the memory,
 * and a reader still reading the page then gets an {@link IllegalStateException} instead of
 * reading freed memory, which is what lets readers go without locks. Guarded by the segment's
 * write lock, except {@link #page}, which readers call racily and validate afterwards.
 */
final class PageStore {

  /**
   * Bytes a page costs beyond its capacity: the Page and MemorySegment objects, the arena and
   * its session (off-heap) or the array header (heap), and malloc's chunk header.
   */
  static final int PAGE_OVERHEAD = 224;

  private final Storage storage;
  /** Capacity of pooled pages; grows (see {@link PageSizing}) but never shrinks. */
  int standardSize;
  private volatile Page[] pages = new Page[16];
  private int nextNumber = 1;
  private int[] freeNumbers = new int[16];
  private int freeNumberCount;
  private final ArrayDeque<Page> pooled = new ArrayDeque<>();
  private long reservedBytes;

  PageStore(Storage storage, int standardSize) {
    this.storage = storage;
    this.standardSize = standardSize;
  }

  /** Racy read for optimistic readers; may return null or a stale page. */
  Page page(int number) {
    Page[] current = pages;
    return number < current.length ? current[number] : null;
  }

  static long footprint(int capacity) {
    return (long) capacity + PAGE_OVERHEAD;
  }

  long reservedBytes() {
    return reservedBytes;
  }

  int pooledCount() {
    return pooled.size();
  }

  boolean hasPooled() {
    return !pooled.isEmpty();
  }

  /** @return a pooled standard page, or null if none */
  Page takePooled() {
    return pooled.pollFirst();
  }

  /**
   * Allocates a new page. The caller has checked the budget.
   *
   * @throws IllegalStateException if the segment has used all page numbers
   */
  Page allocate(int capacity) {
    int number = takeNumber();
    Page page;
    if (storage == Storage.OFF_HEAP) {
      Arena arena = Arena.ofShared();
      page = new Page(number, arena.allocate(capacity, 8), arena);
    } else {
      page = new Page(number, MemorySegment.ofArray(new byte[capacity]), null);
    }
    Page[] current = pages;
    if (number >= current.length) {
      current = Arrays.copyOf(current, Math.max(number + 1, current.length * 2));
    }
    current[number] = page;
    pages = current;
    reservedBytes += footprint(capacity);
    return page;
  }

  /** Returns a page nobody points to any more: pooled if standard, else freed. */
  void recycle(Page page) {
    page.clear();
    if (page.capacity == standardSize) {
      pooled.addLast(page);
    } else {
      release(page);
    }
  }

  /**
   * Makes {@code size} the standard page size and frees the pooled pages of the old size;
   * pages of the old size still in use are freed rather than pooled when they empty.
   */
  void growStandardSize(int size) {
    if (size <= standardSize) {
      return;
    }
    standardSize = size;
    while (releaseOnePooled()) {
      // pooled pages all have the old size
    }
  }

  /** Frees one pooled page, if any, to make room in the budget. */
  boolean releaseOnePooled() {
    Page page = pooled.pollLast();
    if (page == null) {
      return false;
    }
    release(page);
    return true;
  }

  void releaseAll() {
    for (Page page : pages) {
      if (page != null) {
        release(page);
      }
    }
    pooled.clear();
  }

  private void release(Page page) {
    Page[] current = pages;
    if (current[page.number] == page) {
      current[page.number] = null;
      giveBackNumber(page.number);
      reservedBytes -= footprint(page.capacity);
      if (page.arena != null) {
        page.arena.close();
      }
    }
  }

  private int takeNumber() {
    if (freeNumberCount > 0) {
      return freeNumbers[--freeNumberCount];
    }
    if (nextNumber >= IndexSlot.MAX_PAGES) {
      throw new IllegalStateException("segment has used all " + IndexSlot.MAX_PAGES + " pages");
    }
    return nextNumber++;
  }

  private void giveBackNumber(int number) {
    if (freeNumberCount == freeNumbers.length) {
      freeNumbers = Arrays.copyOf(freeNumbers, freeNumbers.length * 2);
    }
    freeNumbers[freeNumberCount++] = number;
  }
}
