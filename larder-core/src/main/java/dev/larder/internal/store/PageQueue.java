package dev.larder.internal.store;

/**
 * A FIFO queue of entries laid out in a chain of pages: new entries are appended at the head page,
 * and the policy consumes entries one at a time at the tail cursor. A page leaves the queue when
 * the tail cursor has passed all of it. Guarded by the segment's write lock.
 *
 * <p>The page behind the head stays open while it has room (the <em>spare</em>): when an entry did
 * not fit the head's end, a new head was started and the old one's end would otherwise be lost
 * until the page is consumed. With entries of very different sizes that loss is far more than half
 * an average entry a page (a large entry leaves the room that smaller ones could have used: on the
 * adaptsize CDN trace at 128 MiB, payload held 0.89 of the bound without the spare, 0.92 with it).
 * Later entries that fit the spare go there first. They are consumed up to a page earlier than
 * strict FIFO order would (a reordering of at most one page, small next to a queue's length), and
 * the head's flow position moves up by their size, so that positions stay in queue order.
 */
final class PageQueue {

  final String name;

  /** Oldest first; the last page is the head that entries are appended to. */
  private final PageRing pages = new PageRing();

  /** Offset of the next entry to consume in the tail page. */
  int tailOffset;

  long liveBytes;
  long liveEntries;

  /**
   * The queue's flow: every page appended gets the position where the previous head page ended, so
   * that an entry's position is its page's {@link Page#flowStart} plus its offset, and the distance
   * from an entry to the tail is a subtraction. The eviction policy reads these racily from the
   * read path, so they are plain fields updated under the write lock.
   */
  private long flowEnd;

  /** {@link Page#flowStart} of the tail page, or {@link #flowEnd} when empty. */
  private long tailStart;

  /**
   * The page just behind the head while it may still take entries, else null. Never the tail page,
   * whose entries the policy is consuming.
   */
  private Page spare;

  PageQueue(String name) {
    this.name = name;
  }

  Page head() {
    return pages.peekLast();
  }

  Page tail() {
    return pages.peekFirst();
  }

  boolean isEmpty() {
    return pages.isEmpty();
  }

  int pageCount() {
    return pages.size();
  }

  /**
   * Returns the page that should take an entry of {@code bytes}: the spare if it fits there, else
   * the head if it fits there, else null (a new page is needed).
   */
  Page roomFor(int bytes) {
    if (spare != null && spare.free() >= bytes) {
      return spare;
    }
    Page head = pages.peekLast();
    return head != null && head.free() >= bytes ? head : null;
  }

  /**
   * Claims {@code bytes} at the end of {@code page}, which {@link #roomFor} returned.
   *
   * @return the offset of the claimed room in the page
   */
  int claim(Page page, int bytes) {
    int offset = page.used;
    page.ensureMemory(offset + bytes);
    page.used += bytes;
    if (page == spare) {
      pages.peekLast().flowStart += bytes;
    }
    return offset;
  }

  /** Returns the spare page, or null; compaction must not evacuate it. */
  Page spare() {
    return spare;
  }

  void appendPage(Page page) {
    Page head = pages.peekLast();
    if (head != null) {
      flowEnd = Math.max(flowEnd, head.flowStart + head.used);
    }
    spare = head != null && head.free() > 0 && head != pages.peekFirst() ? head : null;
    page.flowStart = flowEnd;
    page.queue = this;
    if (pages.isEmpty()) {
      tailOffset = 0;
      tailStart = page.flowStart;
    }
    pages.addLast(page);
  }

  /**
   * Returns the position of the tail cursor in the queue's flow (bytes ever appended to the queue
   * before the next entry to be consumed); racy when read without the lock.
   */
  long tailPosition() {
    return tailStart + tailOffset;
  }

  /** Removes the fully consumed tail page and resets the cursor. */
  Page removeTail() {
    Page page = pages.pollFirst();
    if (pages.peekFirst() == spare) {
      spare = null; // it is the tail now (or the queue is empty)
    }
    tailOffset = 0;
    if (page != null) {
      liveBytes -= page.live;
      liveEntries -= page.liveEntries;
      flowEnd = Math.max(flowEnd, page.flowStart + page.used);
    }
    Page next = pages.peekFirst();
    tailStart = next != null ? next.flowStart : flowEnd;
    return page;
  }

  /** Puts a full page just behind the head page, so the head keeps its free space. */
  void insertBeforeHead(Page page) {
    // the spare would no longer be next to the head, where its entries' positions belong
    spare = null;
    Page head = pages.pollLast();
    page.queue = this;
    if (head == null) {
      tailOffset = 0;
      page.flowStart = flowEnd;
      tailStart = flowEnd;
    } else {
      // the page takes the head's place in the flow and the head moves up by its length
      page.flowStart = head.flowStart;
      head.flowStart += page.used;
    }
    pages.addLast(page);
    if (head != null) {
      pages.addLast(head);
    }
    liveBytes += page.live;
    liveEntries += page.liveEntries;
  }

  /** Takes a page out of the middle of the queue (compaction); it must hold no live entry. */
  void remove(Page page) {
    if (page == spare) {
      spare = null;
    }
    if (page == pages.peekFirst()) {
      removeTail();
    } else {
      pages.remove(page);
    }
  }

  Iterable<Page> pages() {
    return pages;
  }

  void clear() {
    pages.clear();
    spare = null;
    tailOffset = 0;
    tailStart = flowEnd;
    liveBytes = 0;
    liveEntries = 0;
  }

  void addLive(int bytes) {
    liveBytes += bytes;
    liveEntries++;
  }

  void removeLive(int bytes) {
    liveBytes -= bytes;
    liveEntries--;
  }
}
