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
    page.queue = this;
    if (pages.isEmpty()) {
      tailOffset = 0;
    }
    pages.addLast(page);
  }

  /** Removes the fully consumed tail page and resets the cursor. */
  Page removeTail() {
    Page page = pages.pollFirst();
    tailOffset = 0;
    if (page != null) {
      liveBytes -= page.live;
      liveEntries -= page.liveEntries;
    }
    return page;
  }

  /** Puts a full page just behind the head page, so the head keeps its free space. */
  void insertBeforeHead(Page page) {
    Page head = pages.pollLast();
    page.queue = this;
    if (head == null) {
      tailOffset = 0;
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
