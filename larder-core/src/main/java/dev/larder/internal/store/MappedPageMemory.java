package dev.larder.internal.store;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Off-heap pages in anonymous mappings ({@link NativeMemory}), given back to the system page by
 * page without stopping any thread, and unmapped together at close.
 *
 * <p>Implementation notes.
 * <ul>
 *   <li><b>Classes.</b> A page of {@code c} bytes lives at the start of a slot whose length is
 *       the power of two at or above {@code c} rounded to the system page: its class. Only its
 *       first {@code c} bytes are ever touched, so the rest of the slot costs address space,
 *       not memory. Slots of classes up to {@value #SLAB_CLASS_LIMIT} bytes are carved from
 *       slabs of {@value #SLAB} bytes, so that emptying or closing a segment of many small
 *       pages takes one system call per slab rather than one per page; larger classes get a
 *       mapping each.</li>
 *   <li><b>Freeing</b> discards the page's bytes ({@code MADV_DONTNEED}: the physical pages go
 *       back to the system at once) and keeps its slot on its class's free list, from which
 *       the next page of that class is taken. No mapping is unmapped while the segment is open,
 *       so a lock-free reader still holding a freed page reads zeros or a newer page's bytes,
 *       which its validation (the page generation, the slot) rejects, and never faults.
 *       Address space is bounded by the most pages of each class live at once: at most twice
 *       the segment's budget per class, plus a slab per class.</li>
 *   <li><b>Close.</b> Every page's {@link MemorySegment} belongs to one shared {@link Arena} per
 *       segment, created with the first page. Closing it makes every later access throw
 *       {@link IllegalStateException} and waits until no thread is inside an access (one
 *       handshake for the whole segment, where an arena per page cost one per page); then
 *       every mapping is unmapped.</li>
 * </ul>
 * Guarded by the segment's write lock.
 */
final class MappedPageMemory implements PageMemory {

  /** Bytes of a slab that small classes' slots are carved from. */
  static final long SLAB = 2L << 20;
  /** The largest class carved from slabs. */
  static final long SLAB_CLASS_LIMIT = 256L << 10;

  private Arena arena;
  /** Free slots by class length. */
  private final Map<Long, ArrayDeque<Long>> free = new HashMap<>();
  /** Address, length and slot class of every mapping made, in triples. */
  private long[] mappings = new long[12];
  private int mappingWords;
  private boolean closed;

  /** @return the length of the slot a page of {@code capacity} bytes lives in */
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
    long slot = classOf(capacity);
    ArrayDeque<Long> spare = free.get(slot);
    if (spare == null || spare.isEmpty()) {
      newMapping(slot);
      spare = free.get(slot);
    }
    return MemorySegment.ofAddress(spare.pop()).reinterpret(capacity, arena, null);
  }

  /** Maps a slab of slots of class {@code slot} (or one slot, if large) and frees its slots. */
  private void newMapping(long slot) {
    long length = slot <= SLAB_CLASS_LIMIT ? SLAB : slot;
    long address = NativeMemory.map(length);
    if (mappingWords == mappings.length) {
      mappings = Arrays.copyOf(mappings, mappings.length * 2);
    }
    mappings[mappingWords++] = address;
    mappings[mappingWords++] = length;
    mappings[mappingWords++] = slot;
    freeSlots(address, length, slot);
  }

  private void freeSlots(long address, long length, long slot) {
    ArrayDeque<Long> list = free.computeIfAbsent(slot, s -> new ArrayDeque<>());
    for (long at = address + length - slot; at >= address; at -= slot) {
      list.push(at);
    }
  }

  @Override
  public void free(MemorySegment memory) {
    NativeMemory.discard(memory.address(), NativeMemory.roundUp(memory.byteSize()));
    free.computeIfAbsent(classOf(memory.byteSize()), slot -> new ArrayDeque<>())
        .push(memory.address());
  }

  /**
   * Takes back every page at once, with one discard per mapping: the caller has let go of all
   * pages (emptying the segment).
   */
  @Override
  public void freeAll() {
    free.clear();
    for (int i = 0; i < mappingWords; i += 3) {
      NativeMemory.discard(mappings[i], mappings[i + 1]);
      freeSlots(mappings[i], mappings[i + 1], mappings[i + 2]);
    }
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
    for (int i = 0; i < mappingWords; i += 3) {
      NativeMemory.unmap(mappings[i], mappings[i + 1]);
    }
    mappingWords = 0;
    free.clear();
  }

  /** @return address and length of every mapping now mapped, in pairs; for tests */
  long[] mappings() {
    long[] pairs = new long[mappingWords / 3 * 2];
    for (int i = 0, j = 0; i < mappingWords; i += 3) {
      pairs[j++] = mappings[i];
      pairs[j++] = mappings[i + 1];
    }
    return pairs;
  }
}
