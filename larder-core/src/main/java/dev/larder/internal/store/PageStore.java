package dev.larder.internal.store;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

/**
 * The pages of one segment: allocation, page numbers, a pool of standard pages ready for reuse, and
 * the count of bytes they reserve.
 *
 * <p>Implementation notes. Standard pages are pooled rather than freed, since a bounded cache
 * reuses them at once, but at most {@value #STANDARD_POOL} of them: a segment whose pages empty
 * faster than it fills them (compaction of a store whose entries are rewritten whole, a collection
 * that shrank) would otherwise keep its peak for good, and a bounded segment takes at most two
 * pooled pages before it must evict anyway (one for the write, one as the relocations' slack), so a
 * released third page leaves its decisions as they were. Pages larger than standard (one oversized
 * entry each) are freed when their entry goes, except the last {@value #LARGE_POOL} of them, which
 * are pooled too: an entry of the same size (the next version of a large value, or a large value of
 * a fixed size that replaces an evicted one) takes the page back warm, where a freed page's memory
 * faults in again page by page (docs/design/memory.md). Pooled pages of both kinds count against
 * the bound and are freed before anything is evicted (over-size ones first, and the segment's
 * decisions count them as free room), so pooling changes no eviction decision. Freed memory goes
 * back to the {@link PageMemory}, which keeps it readable while any page of it is reachable, even
 * after {@link #close} (so a lock-free reader still holding a freed page never touches unmapped
 * memory), and gives it back to the system without stopping other threads. A page's generation is
 * raised before its memory is freed or reused, so that such a reader's validation fails. Guarded by
 * the segment's write lock, except {@link #page}, which readers call racily and validate
 * afterwards.
 */
final class PageStore {

  private final PageMemory memory;

  /**
   * On the way from the first standard size to the target, the standard size doubles whenever the
   * segment's pages reserve this many times the current size.
   */
  static final int PAGES_PER_SIZE = 4;

  /** Capacity of pooled pages; grows (see {@link PageSizing}) but never shrinks. */
  int standardSize;

  /** The standard size the bound calls for, which the segment's pages grow to as it fills. */
  private final int targetSize;

  // The page table, free-number list and pool start small and grow by doubling: most of a
  // small cache's fixed cost is objects like these (see docs/design/small-caches.md).
  private volatile Page[] pages = new Page[4];
  private int nextNumber = 1;
  private int[] freeNumbers = new int[4];
  private int freeNumberCount;
  private final ArrayDeque<Page> pooled = new ArrayDeque<>(STANDARD_POOL);

  /** Standard pages pooled at most; a page recycled beyond them is freed. */
  static final int STANDARD_POOL = 2;

  /** Over-size pages kept for reuse, newest last; at most {@link #LARGE_POOL}. */
  private final ArrayDeque<Page> pooledLarge = new ArrayDeque<>(LARGE_POOL);

  /** Over-size pages pooled at most. */
  static final int LARGE_POOL = 2;

  /** What the pooled over-size pages count against the bound. */
  private long pooledLargeBytes;

  private long reservedBytes;

  /** Whether a first standard page starts on the heap (PageMemory.allocateFirst). */
  private final boolean firstOnHeap;

  /**
   * @param settings the segment's settings: its storage, its first standard page size and the one
   *     its pages grow to as they fill
   */
  PageStore(StoreSettings settings) {
    this(PageMemory.of(settings.storage()), settings.firstPageSize(), settings.pageSize());
  }

  /** A store that takes every page from {@code memory}, its first included: for tests of it. */
  PageStore(PageMemory memory, int standardSize) {
    this(memory, standardSize, standardSize, false);
  }

  /** A segment's store: its first page on the heap (see {@link PageMemory#allocateFirst}). */
  PageStore(PageMemory memory, int firstSize, int targetSize) {
    this(memory, firstSize, targetSize, true);
  }

  private PageStore(PageMemory memory, int firstSize, int targetSize, boolean firstOnHeap) {
    this.memory = memory;
    this.standardSize = firstSize;
    this.targetSize = Math.max(firstSize, targetSize);
    this.firstOnHeap = firstOnHeap;
  }

  /** Racy read for optimistic readers; may return null or a stale page. */
  Page page(int number) {
    Page[] current = pages;
    return number < current.length ? current[number] : null;
  }

  /** Returns what a page of {@code capacity} bytes counts against the bound. */
  long footprint(int capacity) {
    return memory.footprint(capacity);
  }

  long reservedBytes() {
    return reservedBytes;
  }

  int pooledCount() {
    return pooled.size();
  }

  /**
   * Returns what the pooled pages of both kinds count against the bound: room, not content, so left
   * out of the dead bytes that compaction weighs and of the reserved bytes the standard size
   * follows.
   */
  long pooledBytes() {
    return pooled.size() * footprint(standardSize) + pooledLargeBytes;
  }

  boolean hasPooled() {
    return !pooled.isEmpty();
  }

  /**
   * Returns what the pooled over-size pages count against the bound: room the segment's decisions
   * treat as free, as they did when such pages were freed at once.
   */
  long pooledLargeBytes() {
    return pooledLargeBytes;
  }

  /** Returns the pooled over-size pages, oldest first; for tests. */
  List<Page> pooledLargePages() {
    return List.copyOf(pooledLarge);
  }

  /** Returns a pooled standard page, or null if none. */
  Page takePooled() {
    return pooled.pollFirst();
  }

  /**
   * Returns a pooled over-size page of exactly that capacity, or null. Exactly: a larger page would
   * take later entries into its spare end, and the pages' layout, and so eviction, would differ
   * from a store that frees over-size pages (with an eighth of slack, two of the six adaptsize
   * cells moved by 0.1-0.3 points).
   *
   * @param bytes an over-size entry's length
   */
  Page takePooledLarge(int bytes) {
    for (Iterator<Page> it = pooledLarge.descendingIterator(); it.hasNext(); ) {
      Page page = it.next();
      if (page.capacity == bytes) {
        it.remove();
        pooledLargeBytes -= footprint(page.capacity);
        return page;
      }
    }
    return null;
  }

  /**
   * Allocates a new page. The caller has checked the budget.
   *
   * @throws IllegalStateException if the segment has used all page numbers
   */
  Page allocate(int capacity) {
    int number = takeNumber();
    Page page;
    try {
      // a store's first standard page starts short, on the heap, and grows as it fills: a
      // segment that holds less than a page should not hold a whole page
      boolean first =
          firstOnHeap
              && reservedBytes == 0
              && capacity == standardSize
              && capacity <= PageMemory.MOST_FIRST_BYTES;
      page =
          new Page(
              number,
              first ? PageMemory.allocateFirst(capacity) : memory.allocate(capacity),
              capacity);
    } catch (RuntimeException | OutOfMemoryError e) {
      giveBackNumber(number);
      throw e;
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

  /**
   * Returns a page nobody points to any more: pooled if standard or over-size and its pool has room
   * (the oldest pooled over-size page is freed when there are too many), else freed.
   */
  void recycle(Page page) {
    page.clear();
    if (page.capacity == standardSize) {
      if (pooled.size() < STANDARD_POOL) {
        pooled.addLast(page);
      } else {
        release(page);
      }
    } else if (page.capacity > standardSize) {
      if (pooledLarge.size() == LARGE_POOL) {
        releaseOnePooledLarge();
      }
      pooledLarge.addLast(page);
      pooledLargeBytes += footprint(page.capacity);
    } else {
      release(page);
    }
  }

  /**
   * Makes {@code size} the standard page size and frees the pooled pages (of both kinds); pages of
   * the old size still in use are freed rather than pooled when they empty.
   *
   * @param size the size the entries call for ({@link PageSizing}), taken if larger than the
   *     current one and than what {@code held} calls for
   * @param held what the pages hold: see {@link #sizeForContents}
   */
  void growStandardSize(int size, long held) {
    size = Math.max(size, sizeForContents(held));
    if (size <= standardSize) {
      return;
    }
    standardSize = size;
    while (releaseOnePooled()) {
      // standard pooled pages all have the old size; over-size ones may be standard now
    }
  }

  /** Returns whether the standard size may still grow with what the pages hold. */
  boolean growing() {
    return standardSize < targetSize;
  }

  /**
   * The standard size that what the pages hold calls for: the largest power of two at most
   * 1/{@value #PAGES_PER_SIZE} of it, between the current size and the target. A segment of a large
   * bound that holds little thus keeps small pages (a bound is a ceiling, not a reservation), and
   * its pages reach the bound's size once it holds that many of them.
   *
   * @param held what the pages reserve less pooled pages and dead entries (live entries, room not
   *     yet written, page ends lost). Not all they reserve: pooled pages and dead entries are room
   *     the segment had, and counted they fed back (compaction lets dead bytes reach a standard
   *     page or more, so the size doubled, the dead bytes allowed with it, and the size again,
   *     while the contents stayed the same)
   */
  int sizeForContents(long held) {
    if (standardSize >= targetSize) {
      return standardSize;
    }
    long wanted = Long.highestOneBit(Math.max(1, held / PAGES_PER_SIZE));
    return (int) Math.min(targetSize, Math.max(standardSize, wanted));
  }

  /**
   * Frees one pooled page, if any, to make room in the budget: an over-size one first, since the
   * segment's decisions count those as free already.
   */
  boolean releaseOnePooled() {
    if (releaseOnePooledLarge()) {
      return true;
    }
    Page page = pooled.pollLast();
    if (page == null) {
      return false;
    }
    release(page);
    return true;
  }

  /** Frees the oldest pooled over-size page, if any, to make room in the budget. */
  boolean releaseOnePooledLarge() {
    Page page = pooledLarge.pollFirst();
    if (page == null) {
      return false;
    }
    pooledLargeBytes -= footprint(page.capacity);
    release(page);
    return true;
  }

  /** Releases every page, giving their memory back at once. */
  void releaseAll() {
    forgetAll();
    memory.freeAll();
  }

  /**
   * Releases every page and gives their memory back for good; the store is unusable afterwards. A
   * reader still holding a page reads stale bytes or zeros, which its validation rejects (see
   * {@link PageMemory}).
   */
  void close() {
    forgetAll();
    memory.close();
  }

  /** Unpublishes every page, raising each one's generation, and empties the pools. */
  private void forgetAll() {
    for (Page page : pages) {
      if (page != null) {
        forget(page);
      }
    }
    pooled.clear();
    pooledLarge.clear();
    pooledLargeBytes = 0;
  }

  private void release(Page page) {
    // heap memory, whatever the storage (a first page: PageMemory.allocateFirst), is the
    // collector's to free once no reader holds it
    if (forget(page) && page.memory.isNative()) {
      memory.free(page.memory);
    }
  }

  /**
   * Unpublishes a page and raises its generation, so that its memory may be reused.
   *
   * @return false if the page was already released
   */
  private boolean forget(Page page) {
    Page[] current = pages;
    if (current[page.number] != page) {
      return false;
    }
    current[page.number] = null;
    giveBackNumber(page.number);
    reservedBytes -= footprint(page.capacity);
    page.clear();
    return true;
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
