package dev.larder.internal.store;

import java.lang.foreign.MemorySegment;

/**
 * One page of entries: a contiguous block of memory that entries are appended to, in the order of
 * the queue that owns it. Mutable fields are touched only under the segment's write lock; readers
 * use only the final fields and {@link #memory}.
 *
 * <p>A page's memory may start shorter than its capacity and grow as entries are claimed ({@link
 * #ensureMemory}): a segment's first page (see {@link PageMemory#allocateFirst}). Growing copies
 * the bytes written so far to a longer array and publishes it in {@link #memory} before any entry
 * beyond the old end is written, and so before the index slot of such an entry is published (with a
 * release store). A reader that read the slot with an acquire load therefore reads the longer
 * memory, or a later one; a reader that still holds the old array reads the same bytes for every
 * entry written before the growth (entries do not change, except a deadline an access moves
 * forward, which such a reader sees as it was a moment before), and the collector frees the old
 * array once no reader holds it. Only heap memory is ever short, so the longer memory is a heap
 * array too.
 */
final class Page {

  /**
   * Bytes by which a short page's memory grows at least: an eighth of its length, so that it holds
   * at most an eighth more than its entries (about 6% on average) for about 20 copies on the way
   * from 1 KiB to 16 KiB.
   */
  private static final int GROWTH_SHIFT = 3;

  /** Short memory grows in multiples of this. */
  private static final int GROWTH_GRAIN = 256;

  final int number;

  /**
   * The page's bytes, from its segment's {@link PageMemory} ({@link #capacity} bytes), or a first
   * page's heap array, shorter until the page fills (see the class notes). Written only under the
   * segment's write lock.
   */
  MemorySegment memory;

  final int capacity;

  /** Where the next entry goes. */
  int used;

  /** Bytes of entries on this page that the index still points to. */
  int live;

  /** Entries on this page that the index still points to. */
  int liveEntries;

  /** The queue this page belongs to, or null while pooled. Read racily by the policy. */
  PageQueue queue;

  /**
   * Incremented each time the page is recycled or freed, before any new byte is written to its
   * memory, so that a lock-free reader who read the page across a recycle (or read memory that a
   * freed page's successor reuses) can tell.
   */
  private volatile int generation;

  /**
   * Where this page's first byte sits in its queue's flow (bytes appended to the queue before it);
   * see {@link PageQueue#tailPosition}. Read racily by the policy.
   */
  long flowStart;

  Page(int number, MemorySegment memory) {
    this(number, memory, (int) memory.byteSize());
  }

  /**
   * @param memory the page's memory, {@code capacity} bytes or fewer (heap memory only)
   * @param capacity the bytes the page takes in entries
   */
  Page(int number, MemorySegment memory, int capacity) {
    this.number = number;
    this.memory = memory;
    this.capacity = capacity;
  }

  int free() {
    return capacity - used;
  }

  /**
   * Makes the memory at least {@code end} bytes long (at most {@link #capacity}), growing short
   * memory by an eighth or to {@code end}, whichever is more; under the write lock, before anything
   * is written at or beyond the old end.
   */
  void ensureMemory(int end) {
    MemorySegment current = memory;
    if (end <= current.byteSize()) {
      return;
    }
    long wanted = Math.max(end, current.byteSize() + (current.byteSize() >> GROWTH_SHIFT));
    wanted = (wanted + GROWTH_GRAIN - 1) / GROWTH_GRAIN * GROWTH_GRAIN;
    int length = (int) Math.min(capacity, wanted);
    MemorySegment grown = MemorySegment.ofArray(new byte[length]);
    MemorySegment.copy(current, 0, grown, 0, used);
    memory = grown;
  }

  int generation() {
    return generation;
  }

  /**
   * Empties the page for reuse, or before its memory is freed. The fence keeps the new generation
   * ahead of new bytes. Called under the segment's write lock (the page store's guard), so the
   * generation has one writer at a time; it is volatile for the lock-free readers.
   */
  @SuppressWarnings("NonAtomicVolatileUpdate")
  void clear() {
    generation++;
    java.lang.invoke.VarHandle.storeStoreFence();
    used = 0;
    live = 0;
    liveEntries = 0;
    queue = null;
  }
}
