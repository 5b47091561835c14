package dev.larder.internal.store;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Off-heap pages in anonymous mappings ({@link NativeMemory}), given back to the system page by
 * page and at close without stopping any thread, and unmapped once nothing can reach them.
 *
 * <p>Implementation notes.
 *
 * <ul>
 *   <li><b>Classes.</b> A page of {@code c} bytes lives at the start of a slot whose length is the
 *       power of two at or above {@code c} rounded to the system page: its class. Only its first
 *       {@code c} bytes are ever touched, so the rest of the slot costs address space, not memory.
 *       Slots of classes up to {@value #SLAB_CLASS_LIMIT} bytes are carved from mappings that
 *       double with the class's slots (one slot, then one, two, four...) up to slabs of {@value
 *       #SLAB} bytes, so that emptying or closing a segment of many small pages takes one system
 *       call per slab rather than one per page, while a segment that holds one small page maps one;
 *       larger classes get a mapping each.
 *   <li><b>Freeing</b> discards the page's bytes ({@code MADV_DONTNEED}: the physical pages go back
 *       to the system at once) and keeps its slot on its class's free list, from which the next
 *       page of that class is taken. Address space is bounded by the most pages of each class live
 *       at once: at most twice the segment's budget per class, plus a slab per class.
 *   <li><b>Emptying and close</b> hand the discard of every mapping to a {@link MappingDiscard},
 *       which a background thread runs at once, so that {@code invalidateAll()} and close return
 *       without waiting for the kernel to free the memory; emptying keeps the mappings for reuse,
 *       and the next allocation runs the discard itself, or waits for it, before taking a slot.
 *       Close then forgets the mappings; it unmaps nothing and waits for no thread.
 *   <li><b>Unmapping.</b> Every page's {@link MemorySegment} belongs to the segment's own automatic
 *       {@link Arena}, which this object holds until close, and every mapping is registered when it
 *       is made to be unmapped when that arena is cleaned ({@link
 *       NativeMemory#unmapWhenUnreachable}): once the collector has found the arena unreachable,
 *       which is after close and after the last page object and the last access through one are
 *       gone.
 * </ul>
 *
 * <p>Why no reader can touch unmapped memory, whatever it races (a free, {@code invalidateAll},
 * close). A lock-free reader reaches page bytes only through a {@link Page}'s {@link
 * MemorySegment}, whose scope is the arena's: every access through it (the JDK's scoped memory
 * access) keeps that scope reachable until the access ends, and a reader holds the page across its
 * copy, since it validates against the page's generation afterwards. So while any thread can still
 * start or is still inside an access, the arena is reachable and its mappings are mapped.
 * Everything else that works on raw addresses holds the arena too: this class (discard, reuse)
 * under the segment's write lock and only before close, after which it holds no address and refuses
 * to allocate; a {@link MappingDiscard}, until it has run. Until the arena is unreachable a reader
 * of a freed, emptied or closed page reads the old bytes, zeros (after a discard) or a newer page's
 * bytes, which its validation rejects (the page's generation is raised, and the table replaced at
 * close, before any discard), and on its next attempt it finds the segment closed and throws {@link
 * IllegalStateException}.
 *
 * <p>Why not a shared arena closed at close: closing one is meant to wait, with a handshake, until
 * no thread is inside an access and to make later accesses throw, but on JDK 25 a reader compiled
 * by C2 copied from pages after that close returned and the mappings were unmapped, and the JVM
 * died with {@code SIGSEGV} in an array-copy stub (within tens of seconds, three readers racing
 * close); the handshake also made a busy close take up to seconds. Reachability is the collector's
 * invariant, not a race the JIT can lose. The cost: a closed cache's address space (not its memory)
 * is given back only after a collection.
 *
 * <p>Guarded by the segment's write lock (a {@link MappingDiscard} synchronizes itself).
 */
final class MappedPageMemory implements PageMemory {

  /** Bytes of a slab that small classes' slots are carved from. */
  static final long SLAB = 2L << 20;

  /** The largest class carved from slabs. */
  static final long SLAB_CLASS_LIMIT = 256L << 10;

  /**
   * The scope of every page's segment, and the owner of every mapping's unmapping; created with the
   * first page, null after close.
   */
  private Arena arena;

  /** The slot classes in use, by slot length. */
  private final Map<Long, SlotClass> classes = new HashMap<>();

  /**
   * The discard of every mapping that the last emptying (or close) started, until an allocation has
   * made sure it ran; null when no slot awaits its discard.
   */
  private MappingDiscard emptying;

  private boolean closed;

  /** Returns the length of the slot a page of {@code capacity} bytes lives in. */
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
      arena = Arena.ofAuto();
    }
    if (emptying != null) {
      emptying.run(); // every slot is free now, but none may be reused before its discard
      emptying = null;
    }
    long slot = classOf(capacity);
    long address = classes.computeIfAbsent(slot, SlotClass::new).take(arena);
    return MemorySegment.ofAddress(address).reinterpret(capacity, arena, null);
  }

  @Override
  public void free(MemorySegment memory) {
    if (closed) {
      return; // every mapping was discarded at close, and this object holds no address now
    }
    NativeMemory.discard(memory.address(), NativeMemory.roundUp(memory.byteSize()));
    classes.get(classOf(memory.byteSize())).give(memory.address());
  }

  /**
   * Takes back every page at once, with one discard per mapping, in the background: the caller has
   * let go of all pages (emptying the segment). Every slot is free again once the discard has run,
   * which the next {@link #allocate} makes sure of.
   */
  @Override
  public void freeAll() {
    if (closed || emptying != null) {
      return; // nothing was allocated since the last emptying: its discard covers everything
    }
    emptying = discardEverything();
    for (SlotClass slotClass : classes.values()) {
      slotClass.forgetSlots();
    }
  }

  /** Returns the discard of every mapping, started in the background; null if none. */
  private MappingDiscard discardEverything() {
    long[] pairs = mappings();
    if (pairs.length == 0) {
      return null;
    }
    long[] addresses = new long[pairs.length / 2];
    long[] lengths = new long[pairs.length / 2];
    for (int i = 0; i < addresses.length; i++) {
      addresses[i] = pairs[2 * i];
      lengths[i] = pairs[2 * i + 1];
    }
    return MappingDiscard.start(arena, addresses, lengths);
  }

  @Override
  public long footprint(int capacity) {
    return (long) capacity + PAGE_OVERHEAD;
  }

  /**
   * Gives every mapping's memory back, in the background, and lets go of the arena, so that the
   * mappings are unmapped once no page is reachable; the pages' bytes read as their old bytes or
   * zeros meanwhile.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    if (emptying == null) {
      emptying = discardEverything();
    }
    closed = true;
    classes.clear();
    arena = null;
  }

  /**
   * Returns the discard that the last emptying or close started, or null; for tests, which wait for
   * it.
   */
  MappingDiscard pendingDiscard() {
    return emptying;
  }

  /**
   * Returns address and length of every mapping this memory holds (none after close), in pairs; for
   * tests.
   */
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
   * handed out since the mappings were made or last emptied, and a stack of freed slots. Primitive
   * arrays only, so that the bookkeeping costs a few bytes a mapping, not an object a slot.
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

    /**
     * @param arena the arena whose cleaning unmaps a mapping made now
     */
    long take(Arena arena) {
      if (freedCount > 0) {
        return freed[--freedCount];
      }
      if (cursorMapping == mappingCount) {
        map(arena);
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
     * Maps room for more slots: as many as the class has so far (one at first), up to a slab, so
     * that a segment holding one small page maps one small page.
     */
    private void map(Arena arena) {
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
      long address = NativeMemory.map(length);
      NativeMemory.unmapWhenUnreachable(address, length, arena);
      mappings[mappingCount] = address;
      lengths[mappingCount++] = length;
    }

    void give(long address) {
      if (freedCount == freed.length) {
        freed = Arrays.copyOf(freed, freedCount * 2);
      }
      freed[freedCount++] = address;
    }

    /**
     * Makes every slot free, as in new mappings; the caller has started the discard of their bytes,
     * which must have run before a slot is taken.
     */
    void forgetSlots() {
      freedCount = 0;
      cursorMapping = 0;
      cursorOffset = 0;
    }
  }
}
