package dev.larder.internal;

import dev.larder.internal.store.Segment;
import java.lang.ref.Cleaner;

/**
 * Frees the pages of a cache's segments: when the cache is closed, and, for a cache whose pages are
 * off the heap, when it becomes unreachable without having been closed. A forgotten cache's
 * off-heap mappings would otherwise be given back only once the collector found each segment's page
 * arena unreachable too; a {@link Cleaner} gives their memory back as soon as the cache is found
 * unreachable, and a warning says so, since the collector may take long to notice. Holds the
 * segments, never the cache, so that the cache can become unreachable. Frees at most once.
 * Thread-safe.
 */
final class SegmentRelease {

  private static final Cleaner CLEANER =
      Cleaner.create(
          runnable -> {
            Thread thread = new Thread(runnable, "larder-cleaner");
            thread.setDaemon(true);
            return thread;
          });
  private static final System.Logger LOG = System.getLogger(SegmentRelease.class.getName());

  private final Freeing freeing;
  private final Cleaner.Cleanable cleanable;

  /**
   * @param owner the cache whose unreachability frees the segments, if {@code whenUnreachable}
   * @param segments the cache's segments
   * @param whenUnreachable whether to free them when the owner becomes unreachable unclosed
   */
  SegmentRelease(Object owner, SegmentTable segments, boolean whenUnreachable) {
    this.freeing = new Freeing(segments);
    this.cleanable = whenUnreachable ? CLEANER.register(owner, freeing) : null;
  }

  /** Frees the segments now, as the owner's close does; later calls do nothing. */
  void close() {
    freeing.closed = true;
    if (cleanable != null) {
      cleanable.clean();
    } else {
      freeing.run();
    }
  }

  /** The freeing itself; must not refer to the owner, or the owner would never be collected. */
  private static final class Freeing implements Runnable {
    private final SegmentTable segments;
    private volatile boolean closed;

    Freeing(SegmentTable segments) {
      this.segments = segments;
    }

    @Override
    public void run() {
      if (!closed) {
        long bytes = 0;
        for (Segment segment : segments) {
          bytes += segment.memoryUsed();
        }
        LOG.log(
            System.Logger.Level.WARNING,
            "a Larder cache became unreachable without being"
                + " closed; its {0} bytes off the heap are freed now (close caches when done)",
            bytes);
      }
      segments.close();
    }
  }
}
