package dev.larder.internal.store;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Off-heap pages where {@link NativeMemory} is not available (not Linux, or native access denied):
 * each page from {@link Arena#ofAuto()}, freed by the collector once no page and no reader refers
 * to it. Freeing stops no thread, and a reader holding a page keeps its memory alive. The cost:
 * memory comes back only when the collector notices, so the resident set can lag behind {@code
 * memoryUsed()} until the next collection of the old generation. Guarded by the segment's write
 * lock.
 */
final class AutoPageMemory implements PageMemory {

  @Override
  public MemorySegment allocate(int capacity) {
    return Arena.ofAuto().allocate(capacity, Long.BYTES);
  }

  @Override
  public void free(MemorySegment memory) {
    // The arena's cleaner frees it once unreachable.
  }

  @Override
  public long footprint(int capacity) {
    return (long) capacity + PAGE_OVERHEAD;
  }

  @Override
  public void close() {
    // As in free: the collector gives the memory back.
  }
}
