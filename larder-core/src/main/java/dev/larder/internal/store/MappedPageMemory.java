package dev.larder.internal.store;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
 *       mappings that double with the class's slots (one slot, then one, two, four...) up to
 *       slabs of {@value #SLAB} bytes, so that emptying or closing a segment of many small
 *       pages takes one system call per slab rather than one per page, while a segment that
 *       holds one small page maps one; larger classes get a mapping each.</li>
 *   <li><b>Freeing</b> discards the page's bytes ({@code MADV_DONTNEED}: the physical pages go
 *       back to the system at once) and keeps its slot on its class's free list, from which
 *       the next page of that class is taken. No mapping is unmapped while the segment is open,
 *       so a lock-free reader still holding a freed page reads zeros or a newer page's bytes,
 *       which its validation (the page generation, the slot) rejects, and never faults.
 *       Address space is bounded by the most pages of each class live at once: at most twice
 *       the segment's budget per class, plus a slab per class.</li>
 *   <li><b>Close.</b> Every page's {@link MemorySegment} belongs to the shared {@link Arena} of
 *       the cache's {@link PageScope}. Closing it, when the last segment closes, makes every
 *       later access throw {@link IllegalStateException} and waits until no thread is inside
 *       an access (one handshake for the whole cache, where an arena per page cost one per
 *       page); then every mapping is unmapped.</li>
 * </ul>
 * Guarded by the segment's write lock.
 */
final class MappedPageMemory implements PageMemory {

  /** Bytes of a slab that small classes' slots are carved from. */
  static final long SLAB = 2L << 20;
  /** The largest class carved from slabs. */
  static final long SLAB_CLASS_LIMIT = 256L << 10;

  private final PageScope scope;
  /** The slot classes in use, by slot length. */
  private final Map<Long, SlotClass> classes = new HashMap<>();
  private boolean closed;

  /** @param scope the arena shared with the cache's other segments */
  MappedPageMemory(PageScope scope) {
    this.scope = scope;
  }

  /** A segment of its own: for tests. */
  MappedPageMemory() {
    this(new PageScope(1));
  }

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
    long slot = classOf(capacity);
    long address = classes.computeIfAbsent(slot, SlotClass::new).take();
    return MemorySegment.ofAddress(address).reinterpret(capacity, scope.arena(), null);
  }

  @Override
  public void free(MemorySegment memory) {
    NativeMemory.discard(memory.address(), NativeMemory.roundUp(memory.byteSize()));
    classes.get(classOf(memory.byteSize())).give(memory.address());
  }

  /**
   * Takes back every page at once, with one discard per mapping: the caller has let go of all
   * pages (emptying the segment).
   */
  @Override
  public void freeAll() {
    for (SlotClass slotClass : classes.values()) {
      slotClass.discardAll();
    }
  }

  @Override
  public long footprint(int capacity) {
    return (long) capacity + PAGE_OVERHEAD;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    scope.close(this::unmapAll);
  }

  private void unmapAll() {
    for (SlotClass slotClass : classes.values()) {
      slotClass.unmapAll();
    }
    classes.clear();
  }

  /** @return address and length of every mapping now mapped, in pairs; for tests */
  long[] mappings() {
    long[] pairs = new long[0];
    for (SlotClass slotClass : classes.values()) {
      int at = pairs.length;
      pairs = Arrays.copyOf(pairs, at + 2 * slotClass.mappingCount);
      for (int i = 0; i < slotClass.mappingCount; i++) {
        pairs[at + 2 * i] = slotClass.mappings[i];
        pairs[at + 2 * i + 1] = slotClass.lengths[i];
      }
    }
    return pairs;
  }

  /**
   * The slots of one length: the mappings they are carved from, a cursor through the slots not
   * handed out since the mappings were made or last emptied, and a stack of freed slots.
   * Primitive arrays only, so that the bookkeeping costs a few bytes a mapping, not an object a
   * slot.
   */
  private static final class SlotClass {
    final long slot;
    long[] mappings = new long[2];
    long[] lengths = new long[2];
    int mappingCount;
    /** Slots from mappings[cursorMapping] at cursorOffset onwards are untouched. */
    int cursorMapping;
    long cursorOffset;
    long[] freed = new long[4];
    int freedCount;

    SlotClass(long slot) {
      this.slot = slot;
    }

    long take() {
      if (freedCount > 0) {
        return freed[--freedCount];
      }
      if (cursorMapping == mappingCount) {
        map();
      }
      long address = mappings[cursorMapping] + cursorOffset;
      cursorOffset += slot;
      if (cursorOffset == lengths[cursorMapping]) {
        cursorMapping++;
        cursorOffset = 0;
      }
      return address;
    }

    /**
     * Maps room for more slots: as many as the class has so far (one at first), up to a slab,
     * so that a segment holding one small page maps one small page.
     */
    private void map() {
      if (mappingCount == mappings.length) {
        mappings = Arrays.copyOf(mappings, mappingCount * 2);
        lengths = Arrays.copyOf(lengths, mappingCount * 2);
      }
      long length = slot;
      if (slot <= SLAB_CLASS_LIMIT) {
        long slots = 0;
        for (int i = 0; i < mappingCount; i++) {
          slots += lengths[i] / slot;
        }
        length = Math.min(SLAB, slot * Math.max(1, slots));
      }
      mappings[mappingCount] = NativeMemory.map(length);
      lengths[mappingCount++] = length;
    }

    void give(long address) {
      if (freedCount == freed.length) {
        freed = Arrays.copyOf(freed, freedCount * 2);
      }
      freed[freedCount++] = address;
    }

    void discardAll() {
      for (int i = 0; i < mappingCount; i++) {
        NativeMemory.discard(mappings[i], lengths[i]);
      }
      freedCount = 0;
      cursorMapping = 0;
      cursorOffset = 0;
    }

    void unmapAll() {
      for (int i = 0; i < mappingCount; i++) {
        NativeMemory.unmap(mappings[i], lengths[i]);
      }
      mappingCount = 0;
    }
  }
}
