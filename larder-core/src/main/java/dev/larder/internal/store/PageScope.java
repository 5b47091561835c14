package dev.larder.internal.store;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;

/**
 * The one shared {@link Arena} that the off-heap pages of all of a cache's segments belong to,
 * closed once, when the last segment closes.
 *
 * <p>Why one for the cache: closing a shared arena waits until no thread is inside an access to
 * its memory (a handshake with every Java thread), and on a busy machine each handshake waits
 * for threads that are not running to be scheduled. One arena per segment made a busy close of
 * a 16-segment cache take 16 of them. Segments that close earlier (the cache closes them one by
 * one) hand over what they must do once no reader can touch their memory, which is unmapping
 * it; the last close runs it all after the arena is closed. Thread-safe.
 */
public final class PageScope {

  private int open;
  private Arena arena;
  private final List<Runnable> afterClose = new ArrayList<>();

  /** @param segments the segments that will each {@link #close} this scope once */
  public PageScope(int segments) {
    if (segments < 1) {
      throw new IllegalArgumentException("segments must be positive: " + segments);
    }
    this.open = segments;
  }

  /**
   * Counts {@code members} segments that were never made as closed: the stripes of a cache
   * closed before it split its first segment.
   */
  public synchronized void closeUnopened(int members) {
    for (int i = 0; i < members; i++) {
      close(() -> { });
    }
  }

  /** @return the arena, created on first use */
  synchronized Arena arena() {
    if (open == 0) {
      throw new IllegalStateException("cache is closed");
    }
    if (arena == null) {
      arena = Arena.ofShared();
    }
    return arena;
  }

  /**
   * One segment's close. The last closes the arena (so that every access to a page throws, and
   * none is in progress) and then runs every segment's {@code afterArenaClosed}.
   *
   * @param afterArenaClosed what must wait until no reader can touch the segment's memory
   */
  synchronized void close(Runnable afterArenaClosed) {
    if (open == 0) {
      throw new IllegalStateException("every segment of this scope has closed");
    }
    afterClose.add(afterArenaClosed);
    if (--open > 0) {
      return;
    }
    if (arena != null) {
      arena.close();
    }
    afterClose.forEach(Runnable::run);
    afterClose.clear();
  }
}
