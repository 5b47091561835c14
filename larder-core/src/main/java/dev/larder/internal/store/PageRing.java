package dev.larder.internal.store;

import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * The pages of a {@link PageQueue}, oldest first: a double-ended queue in a circular array, as
 * {@link java.util.ArrayDeque} is, but one that holds no array until its first page and is one
 * object rather than two. A segment has three queues and a small cache uses one, so the others cost
 * a reference each. Not thread-safe: guarded by the segment's write lock, like its queue.
 */
final class PageRing implements Iterable<Page> {

  private static final Page[] NONE = new Page[0];

  /** The pages, from {@link #first} on, wrapping around; a power of two long, or empty. */
  private Page[] ring = NONE;

  private int first;
  private int count;

  int size() {
    return count;
  }

  boolean isEmpty() {
    return count == 0;
  }

  /** Returns the oldest page, or null if empty. */
  Page peekFirst() {
    return count == 0 ? null : ring[first];
  }

  /** Returns the newest page, or null if empty. */
  Page peekLast() {
    return count == 0 ? null : ring[at(count - 1)];
  }

  void addLast(Page page) {
    if (count == ring.length) {
      grow();
    }
    ring[at(count++)] = page;
  }

  /** Returns the oldest page, removed, or null if empty. */
  Page pollFirst() {
    if (count == 0) {
      return null;
    }
    Page page = ring[first];
    ring[first] = null;
    first = at(1);
    count--;
    return page;
  }

  /** Returns the newest page, removed, or null if empty. */
  Page pollLast() {
    if (count == 0) {
      return null;
    }
    int last = at(count - 1);
    Page page = ring[last];
    ring[last] = null;
    count--;
    return page;
  }

  /** Removes {@code page} (by identity) wherever it is, keeping the others' order. */
  void remove(Page page) {
    for (int i = 0; i < count; i++) {
      if (ring[at(i)] == page) {
        for (int j = i; j < count - 1; j++) {
          ring[at(j)] = ring[at(j + 1)];
        }
        ring[at(count - 1)] = null;
        count--;
        return;
      }
    }
  }

  void clear() {
    Arrays.fill(ring, null);
    first = 0;
    count = 0;
  }

  /** Returns the pages, oldest first; not to be used across a change. */
  @Override
  public Iterator<Page> iterator() {
    return new Iterator<>() {
      private int next;

      @Override
      public boolean hasNext() {
        return next < count;
      }

      @Override
      public Page next() {
        if (next >= count) {
          throw new NoSuchElementException();
        }
        return ring[at(next++)];
      }
    };
  }

  /** Returns the array index of the {@code i}-th page from the oldest. */
  private int at(int i) {
    return (first + i) & (ring.length - 1);
  }

  private void grow() {
    Page[] grown = new Page[Math.max(2, ring.length * 2)];
    for (int i = 0; i < count; i++) {
      grown[i] = ring[at(i)];
    }
    ring = grown;
    first = 0;
  }
}
