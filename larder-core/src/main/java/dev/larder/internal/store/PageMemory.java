package dev.larder.internal.store;

import dev.larder.Storage;
import java.lang.foreign.MemorySegment;

/**
 * Where one segment's pages get their memory, and how it is given back.
 *
 * <p>The contract that keeps lock-free readers safe: memory handed out stays readable (never
 * unmapped, never freed to the system's allocator) for as long as any thread can reach a segment it
 * was handed out as, even after {@link #free} and {@link #close}; a reader that still holds a freed
 * page reads stale or zeroed bytes, which its validation rejects, never unmapped memory. No
 * implementation stops other threads to free, empty or close. Guarded by the segment's write lock.
 */
sealed interface PageMemory permits HeapPageMemory, MappedPageMemory, AutoPageMemory {

  /**
   * Bytes a page costs beyond its capacity in every mode: the Page and MemorySegment objects and
   * their slot in the page table, plus the allocator's own (the array header, or the kernel's
   * page-table entries for a 64 KiB page: 8 bytes per 4 KiB). An off-heap over-size page's rounding
   * to whole 4 KiB system pages is not counted (see docs/design/memory.md).
   */
  int PAGE_OVERHEAD = 224;

  /**
   * Returns the memory for one segment's pages.
   *
   * @param storage the storage mode
   */
  static PageMemory of(Storage storage) {
    if (storage == Storage.HEAP) {
      return new HeapPageMemory();
    }
    return NativeMemory.available() ? new MappedPageMemory() : new AutoPageMemory();
  }

  /**
   * Returns zeroed or stale memory of exactly {@code capacity} bytes, readable while reachable.
   *
   * @throws IllegalStateException after {@link #close}, where the memory refuses (mapped)
   */
  MemorySegment allocate(int capacity);

  /** Bytes a segment's first page starts with, at most. */
  int FIRST_BYTES = 1024;

  /**
   * The largest first page kept on the heap: the largest standard page a segment starts with
   * ({@code StoreSettings.EAGER_PAGE}). A segment whose pages grew larger for large entries and was
   * then emptied takes its next first page from its memory like any other.
   */
  int MOST_FIRST_BYTES = StoreSettings.EAGER_PAGE;

  /**
   * Memory for a segment's first standard page (one allocated while the segment has no other): a
   * heap array of at most {@value #FIRST_BYTES} bytes, whatever the storage, which grows as the
   * page fills ({@link Page#ensureMemory}). So a segment that holds less than a page holds what it
   * holds, not a page: an off-heap page would be resident in whole 4 KiB system pages and cost a
   * mapping and its bookkeeping objects (about 1 KB more than its entries for a cache of 100 small
   * entries). Only for pages of at most {@value #MOST_FIRST_BYTES} bytes, so an off-heap cache
   * keeps at most that on the heap per segment; the store frees it as it frees any heap page, by
   * forgetting it ({@link PageStore}).
   *
   * @param capacity the page's capacity
   * @return zeroed heap memory of at most {@code capacity} bytes
   */
  static MemorySegment allocateFirst(int capacity) {
    return MemorySegment.ofArray(new byte[Math.min(capacity, FIRST_BYTES)]);
  }

  /** Takes back memory no page uses any more; readers may still read it (see the class notes). */
  void free(MemorySegment memory);

  /**
   * Takes back all memory handed out, as {@link #free} of every page would, perhaps faster and
   * perhaps in the background, but before any of it is handed out again; the caller holds no page
   * any more.
   */
  default void freeAll() {
    // Nothing beyond free: heap and automatic pages go when unreachable.
  }

  /** Returns what a page of {@code capacity} bytes costs the process, for the bound. */
  long footprint(int capacity);

  /**
   * Gives all memory back (what a reader still holding a page reads afterwards is stale or zeros);
   * the segment allocates nothing afterwards; later calls do nothing.
   */
  void close();
}
