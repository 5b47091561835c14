package dev.larder.bench.measure;

/**
 * The process's memory at one moment, taken after the heap settled.
 *
 * @param heapUsedBytes heap in use after garbage collection
 * @param residentBytes VmRSS, or -1 if unknown
 * @param nmtCommittedBytes NMT's committed total, or -1 if tracking is off
 * @param stable true if the heap settled within the GC round limit
 * @param gcRounds how many {@code System.gc()} rounds it took
 */
public record MemorySnapshot(
    long heapUsedBytes, long residentBytes, long nmtCommittedBytes, boolean stable, int gcRounds) {

  /**
   * Returns heap growth since {@code before}.
   *
   * @param before the earlier snapshot
   */
  public long heapDelta(MemorySnapshot before) {
    return heapUsedBytes - before.heapUsedBytes;
  }

  /**
   * Memory gained outside the heap. The heap is pre-touched ({@code -Xms} = {@code -Xmx} and {@code
   * -XX:+AlwaysPreTouch}), so its pages are resident from the start and the growth of the resident
   * set is memory held off the heap.
   *
   * @param before the earlier snapshot
   * @return resident-set growth since {@code before}, or 0 if unknown
   */
  public long nativeDelta(MemorySnapshot before) {
    if (residentBytes < 0 || before.residentBytes < 0) {
      return 0;
    }
    return residentBytes - before.residentBytes;
  }

  /**
   * Returns NMT committed growth since {@code before}, or -1 if unknown.
   *
   * @param before the earlier snapshot
   */
  public long nmtDelta(MemorySnapshot before) {
    if (nmtCommittedBytes < 0 || before.nmtCommittedBytes < 0) {
      return -1;
    }
    return nmtCommittedBytes - before.nmtCommittedBytes;
  }
}
