package dev.larder.internal.store;

import java.util.ArrayDeque;

/**
 * A FIFO queue of entries laid out in a chain of pages: new entries are appended at the head
 * page, and the policy consumes entries one at a time at the tail cursor. A page leaves the
 * queue when the tail cursor has passed all of it. Guarded by the segment's write lock.
 */
final class PageQueue {

  final String name;
  /** Oldest first; the last page is the head that entries are appended to. */
  private final ArrayDeque<Page> pages = new ArrayDeque<>();
  /** Offset of the next entry to consume in the tail page. */
  int tailOffset;
  long liveBytes;
  long liveEntries;
  /**
   * The queue's flow: every page appended gets the position where the previous head page
   * ended, so that an entry's position is its page's {@link Page#flowStart} plus its offset,
   * and the distance from an entry to the tail is a subtraction. The eviction policy reads
   * these racily from the read path, so they are plain fields updated under the write lock.
   */
  private long flowEnd;
  /** {@link Page#flowStart} of the tail page, or {@link #flowEnd} when empty. */
  private long tailStart;

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

  void appendPage(Page page) {
    Page head = pages.peekLast();
    if (head != null) {
      flowEnd = Math.max(flowEnd, head.flowStart + head.used);
    }
    page.flowStart = flowEnd;
    page.queue = this;
    if (pages.isEmpty()) {
      tailOffset = 0;
      tailStart = page.flowStart;
    }
    pages.addLast(page);
  }

  /**
   * @return the position of the tail cursor in the queue's flow (bytes ever appended to the
   *     queue before the next entry to be consumed); racy when read without the lock
   */
  long tailPosition() {
    return tailStart + tailOffset;
  }

  /** Removes the fully consumed tail page and resets the cursor. */
  Page removeTail() {
    Page page = pages.pollFirst();
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
