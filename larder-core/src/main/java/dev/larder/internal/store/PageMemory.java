package dev.larder.internal.store;

import dev.larder.Storage;
import java.lang.foreign.MemorySegment;

/**
 * Where one segment's pages get their memory, and how it is given back.
 *
 * <p>The contract that keeps lock-free readers safe: memory handed out stays readable (never
 * unmapped, never freed to the system's allocator) until {@link #close}, even after
 * {@link #free}; a reader that still holds a freed page reads stale or zeroed bytes, which its
 * validation rejects, never unmapped memory. Only {@link #close} makes the memory unreadable, and
 * it does so at most once per segment, not once per page. Guarded by the segment's write lock.
 */
sealed interface PageMemory permits HeapPageMemory, MappedPageMemory, AutoPageMemory {

  /**
   * Bytes a page costs beyond its capacity in every mode: the Page and MemorySegment objects and
   * their slot in the page table, plus the allocator's own (the array header, or the kernel's
   * page-table entries for a 64 KiB page: 8 bytes per 4 KiB). An off-heap over-size page's
   * rounding to whole 4 KiB system pages is not counted (see docs/design/memory.md).
   */
  int PAGE_OVERHEAD = 224;

  /**
   * @param storage the storage mode
   * @param scope the arena of the cache's off-heap pages
   * @return the memory for one segment's pages
   */
  static PageMemory of(Storage storage, PageScope scope) {
    if (storage == Storage.HEAP) {
      return new HeapPageMemory();
    }
    return NativeMemory.available() ? new MappedPageMemory(scope) : new AutoPageMemory();
  }

  /** @return zeroed or stale memory of exactly {@code capacity} bytes, readable until close */
  MemorySegment allocate(int capacity);

  /**
   * Memory for a segment's only page, which may be shorter than {@code capacity} and grow as
   * the page fills ({@link Page#ensureMemory}), so that a segment holding less than a page does
   * not hold a whole page. Shorter only where memory is committed as soon as it is allocated
   * (heap arrays); mapped memory is committed a system page at a time as it is first touched,
   * which is the same thing done by the kernel.
   *
   * @return zeroed or stale memory of at most {@code capacity} bytes, by default exactly
   */
  default MemorySegment allocateFirst(int capacity) {
    return allocate(capacity);
  }

  /** Takes back memory no page uses any more; readers may still read it (see the class notes). */
  void free(MemorySegment memory);

  /**
   * Takes back all memory handed out, as {@link #free} of every page would, perhaps faster; the
   * caller holds no page any more.
   */
  default void freeAll() {
    // Nothing beyond free: heap and automatic pages go when unreachable.
  }

  /** @return what a page of {@code capacity} bytes costs the process, for the bound */
  long footprint(int capacity);

  /** Makes all memory unreadable and gives it back; later calls do nothing. */
  void close();
}
