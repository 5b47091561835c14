package dev.larder.internal.store;

/**
 * Grows a segment's standard page size when its entries turn out to be large for it.
 *
 * <p>Why: an entry never spans two pages, so a page loses the room left at its end when the next
 * entry does not fit: about half an entry a page. The initial size (from the bound, see {@code
 * StoreSizing}) is chosen before any entry is seen; with large values the loss reaches a third of
 * the memory (20 KB entries in 32 KiB pages fit one a page). Entries larger than a standard page
 * are not affected: each gets a page of its own size.
 *
 * <p>Rule: once the segment holds {@value #MIN_SAMPLE} entries, if a standard page holds fewer than
 * {@value #FEW_ENTRIES} average entries (but at least one), the page size grows to the smallest
 * multiple of {@value #GRAIN} bytes that holds {@value #MANY_ENTRIES}, capped so that a bounded
 * segment keeps at least {@value #MIN_PAGES} pages (pages are also its unit of partly filled heads
 * and of compaction, whose cost grows with their size) and so that an index slot can address it. A
 * capped size is taken only if it still holds {@value #FEW_ENTRIES} entries. Sizes never shrink, so
 * a workload whose entry sizes wander does not leave pages of many sizes that the pool cannot
 * reuse.
 */
final class PageSizing {

  /** Entries a segment holds before their average is trusted. */
  static final int MIN_SAMPLE = 32;

  /** Average entries a page must hold for its end loss to be small (at most 1/16). */
  static final int FEW_ENTRIES = 8;

  /** Average entries a grown page is sized for. */
  static final int MANY_ENTRIES = 16;

  /** Pages a bounded segment keeps at least, when its pages grow. */
  static final int MIN_PAGES = 64;

  /** Page sizes are multiples of this. */
  static final int GRAIN = 4096;

  /** The largest page an index slot can address. */
  static final int MAX_PAGE = IndexSlot.MAX_OFFSET + 1;

  private PageSizing() {}

  /**
   * Returns the standard page size to use from now on; never below {@code current}.
   *
   * @param current the segment's standard page size now
   * @param liveBytes bytes of the segment's live entries
   * @param liveEntries number of live entries
   * @param settings the segment's bounds
   */
  static int standardSize(int current, long liveBytes, long liveEntries, StoreSettings settings) {
    if (liveEntries < MIN_SAMPLE) {
      return current;
    }
    long average = Math.max(1, liveBytes / liveEntries);
    if (average > current || average * FEW_ENTRIES <= current) {
      return current;
    }
    long wanted = roundUp(average * MANY_ENTRIES);
    long size = Math.min(wanted, Math.min(MAX_PAGE, cap(settings, average)));
    return size >= average * FEW_ENTRIES && size > current ? (int) size : current;
  }

  private static long cap(StoreSettings settings, long average) {
    long bound = Long.MAX_VALUE;
    if (settings.budgetBytes() != Long.MAX_VALUE) {
      bound = settings.budgetBytes();
    } else if (settings.maxEntries() != Long.MAX_VALUE) {
      bound =
          average > Long.MAX_VALUE / settings.maxEntries()
              ? Long.MAX_VALUE
              : average * settings.maxEntries();
    }
    return bound == Long.MAX_VALUE ? Long.MAX_VALUE : bound / MIN_PAGES / GRAIN * GRAIN;
  }

  private static long roundUp(long bytes) {
    return (bytes + GRAIN - 1) / GRAIN * GRAIN;
  }
}
