package dev.larder.internal.store;

import java.lang.foreign.MemorySegment;

/**
 * Pages in {@code byte[]}s on the Java heap: the collector frees a page once no reader holds it,
 * which is what keeps readers safe. Guarded by the segment's write lock.
 */
final class HeapPageMemory implements PageMemory {

  @Override
  public MemorySegment allocate(int capacity) {
    return MemorySegment.ofArray(new byte[capacity]);
  }

  @Override
  public void free(MemorySegment memory) {
    // The array becomes garbage when the last reader drops it.
  }

  @Override
  public long footprint(int capacity) {
    return (long) capacity + PAGE_OVERHEAD;
  }

  @Override
  public void close() {
    // Nothing to give back beyond what the collector takes.
  }
}
