package dev.larder.internal.store;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One page of entries: a contiguous block of memory that entries are appended to, in the order
 * of the queue that owns it. Mutable fields are touched only under the segment's write lock;
 * readers use only the final fields.
 */
final class Page {

  final int number;
  final MemorySegment memory;
  /** The arena that owns off-heap memory, closed when the page is released; null on heap. */
  final Arena arena;
  final int capacity;

  /** Where the next entry goes. */
  int used;
  /** Bytes of entries on this page that the index still points to. */
  int live;
  /** Entries on this page that the index still points to. */
  int liveEntries;
  /** The queue this page belongs to, or null while pooled. */
  PageQueue queue;

  Page(int number, MemorySegment memory, Arena arena) {
    this.number = number;
    this.memory = memory;
    this.arena = arena;
    this.capacity = (int) memory.byteSize();
  }

  int free() {
    return capacity - used;
  }

  void clear() {
    used = 0;
    live = 0;
    liveEntries = 0;
    queue = null;
  }
}
