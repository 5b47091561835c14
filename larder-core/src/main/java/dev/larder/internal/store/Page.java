package dev.larder.internal.store;

import java.lang.foreign.MemorySegment;

/**
 * One page of entries: a contiguous block of memory that entries are appended to, in the order
 * of the queue that owns it. Mutable fields are touched only under the segment's write lock;
 * readers use only the final fields.
 */
final class Page {

  final int number;
  /** The page's bytes, from its segment's {@link PageMemory}. */
  final MemorySegment memory;
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
   * memory, so that a lock-free reader who read the page across a recycle (or read memory that
   * a freed page's successor reuses) can tell.
   */
  private volatile int generation;
  /**
   * Where this page's first byte sits in its queue's flow (bytes appended to the queue before
   * it); see {@link PageQueue#tailPosition}. Read racily by the policy.
   */
  long flowStart;

  Page(int number, MemorySegment memory) {
    this.number = number;
    this.memory = memory;
    this.capacity = (int) memory.byteSize();
  }

  int free() {
    return capacity - used;
  }

  int generation() {
    return generation;
  }

  /**
   * Empties the page for reuse, or before its memory is freed. The fence keeps the new generation
   * ahead of new bytes.
   */
  void clear() {
    generation++;
    java.lang.invoke.VarHandle.storeStoreFence();
    used = 0;
    live = 0;
    liveEntries = 0;
    queue = null;
  }
}
