package dev.larder.internal.store;

import dev.larder.Storage;
import java.lang.foreign.MemorySegment;

/**
 * Where one segment's pages get their memory, and how it is given back.
 *
 * <p>The contract that keeps lock-free readers safe: memory handed out stays readable (never
 * unmapped, never freed to the system's allocator) for as long as any thread can reach a
 * segment it was handed out as, even after {@link #free} and {@link #close}; a reader that still
 * holds a freed page reads stale or zeroed bytes, which its validation rejects, never unmapped
 * memory. No implementation stops other threads to free, empty or close. Guarded by the
 * segment's write lock.
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
   * @return the memory for one segment's pages
   */
  static PageMemory of(Storage storage) {
    if (storage == Storage.HEAP) {
      return new HeapPageMemory();
    }
    return NativeMemory.available() ? new MappedPageMemory() : new AutoPageMemory();
  }

  /**
   * @return zeroed or stale memory of exactly {@code capacity} bytes, readable while reachable
   * @throws IllegalStateException after {@link #close}, where the memory refuses (mapped)
   */
  MemorySegment allocate(int capacity);

  /** Takes back memory no page uses any more; readers may still read it (see the class notes). */
  void free(MemorySegment memory);

  /**
   * Takes back all memory handed out, as {@link #free} of every page would, perhaps faster and
   * perhaps in the background, but before any of it is handed out again; the caller holds no
   * page any more.
   */
  default void freeAll() {
    // Nothing beyond free: heap and automatic pages go when unreachable.
  }

  /** @return what a page of {@code capacity} bytes costs the process, for the bound */
  long footprint(int capacity);

  /**
   * Gives all memory back (what a reader still holding a page reads afterwards is stale or
   * zeros); the segment allocates nothing afterwards; later calls do nothing.
   */
  void close();
}
