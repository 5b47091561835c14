package dev.larder.internal.store;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Off-heap pages in anonymous mappings of their own ({@link NativeMemory}), given back to the
 * system page by page without stopping any thread, and unmapped together at close.
 *
 * <p>Implementation notes.
 * <ul>
 *   <li><b>Mappings.</b> A page of {@code c} bytes lives at the start of a mapping whose length
 *       is the power of two at or above {@code c} rounded to the system page: its class. Only
 *       the first {@code c} bytes are ever touched, so the rest costs address space, not
 *       memory.</li>
 *   <li><b>Freeing</b> discards the page's bytes ({@code MADV_DONTNEED}: resident memory goes
 *       back to the system at once) and keeps the mapping on its class's free list, from which
 *       the next page of that class is taken. No mapping is unmapped while the segment is open,
 *       so a lock-free reader still holding a freed page reads zeros or a newer page's bytes,
 *       which its validation (the page generation, the slot) rejects, and never faults.
 *       Address space is bounded by the most pages of each class live at once, at most twice
 *       the segment's budget per class.</li>
 *   <li><b>Close.</b> Every page's {@link MemorySegment} belongs to one shared {@link Arena} per
 *       segment, created with the first page. Closing it makes every later access throw
 *       {@link IllegalStateException} and waits until no thread is inside an access (one
 *       handshake for the whole segment, where an arena per page cost one per page); then
 *       every mapping is unmapped.</li>
 * </ul>
 * Guarded by the segment's write lock.
 */
final class MappedPageMemory implements PageMemory {

  private Arena arena;
  /** Free mappings by class length. */
  private final Map<Long, ArrayDeque<Long>> free = new HashMap<>();
  /** Address and length of every mapping made, for close. */
  private long[] mappings = new long[8];
  private int mappingWords;
  private boolean closed;

  /** @return the length of the mapping a page of {@code capacity} bytes lives in */
  static long classOf(long capacity) {
    long rounded = NativeMemory.roundUp(Math.max(1, capacity));
    long power = Long.highestOneBit(rounded);
    return power == rounded ? rounded : power << 1;
  }

  @Override
  @SuppressWarnings("restricted") // native access is checked once, in NativeMemory
  public MemorySegment allocate(int capacity) {
    if (closed) {
      throw new IllegalStateException("cache is closed");
    }
    if (arena == null) {
      arena = Arena.ofShared();
    }
    long length = classOf(capacity);
    ArrayDeque<Long> spare = free.get(length);
    long address = spare == null || spare.isEmpty() ? newMapping(length) : spare.pop();
    return MemorySegment.ofAddress(address).reinterpret(capacity, arena, null);
  }

  private long newMapping(long length) {
    long address = NativeMemory.map(length);
    if (mappingWords == mappings.length) {
      mappings = Arrays.copyOf(mappings, mappings.length * 2);
    }
    mappings[mappingWords++] = address;
    mappings[mappingWords++] = length;
    return address;
  }

  @Override
  public void free(MemorySegment memory) {
    NativeMemory.discard(memory.address(), NativeMemory.roundUp(memory.byteSize()));
    free.computeIfAbsent(classOf(memory.byteSize()), length -> new ArrayDeque<>())
        .push(memory.address());
  }

  @Override
  public long footprint(int capacity) {
    return NativeMemory.roundUp(capacity) + PAGE_OVERHEAD;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (arena != null) {
      arena.close();
    }
    for (int i = 0; i < mappingWords; i += 2) {
      NativeMemory.unmap(mappings[i], mappings[i + 1]);
    }
    mappingWords = 0;
    free.clear();
  }

  /** @return address and length of every mapping now mapped, in pairs; for tests */
  long[] mappings() {
    return Arrays.copyOf(mappings, mappingWords);
  }
}
