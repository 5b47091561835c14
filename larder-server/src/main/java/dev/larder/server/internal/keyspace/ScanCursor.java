package dev.larder.server.internal.keyspace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * SCAN and HSCAN cursors. A cursor is a position in the order of the items' 32-bit hashes: a call
 * returns the items whose hash is at least the cursor, about {@code count} of them in ascending
 * hash order (never splitting a group of equal hashes), and the next cursor is one past the last
 * hash returned; 0 when done.
 *
 * <p>So, as Redis promises, an item present from the first call to the last is returned at least
 * once, whatever is added or removed meanwhile, and an item may be returned twice only if it was
 * removed and added again. Each call walks every item: the cost of a full scan is quadratic in the
 * number of items over {@code count}.
 *
 * <p>Not thread-safe; one instance serves one call.
 */
public final class ScanCursor {
  private final long start;
  private final int count;
  private final List<long[]> order = new ArrayList<>();
  private final List<byte[]> items = new ArrayList<>();

  /**
   * @param start the cursor the client gave
   * @param count how many items to aim for, at least 1
   */
  public ScanCursor(long start, int count) {
    this.start = start;
    this.count = Math.max(1, count);
  }

  /**
   * Offers one item to the page being collected.
   *
   * @param item an item (a key or a field); it is offered once per call
   */
  public void offer(byte[] item) {
    long hash = hash(item);
    if (hash >= start) {
      order.add(new long[] {hash, items.size()});
      items.add(item);
    }
  }

  /**
   * Returns the next cursor, 0 when the scan is complete.
   *
   * @param out receives the items of this call, in hash order
   */
  public long finish(List<byte[]> out) {
    order.sort(Comparator.comparingLong(a -> a[0]));
    int taken = 0;
    long last = -1;
    for (long[] o : order) {
      if (taken >= count && o[0] != last) {
        return last + 1;
      }
      out.add(items.get((int) o[1]));
      last = o[0];
      taken++;
    }
    return 0;
  }

  /**
   * Returns their cursor hash, 0 to 2^32-1.
   *
   * @param item bytes
   */
  public static long hash(byte[] item) {
    return mix(Arrays.hashCode(item));
  }

  /**
   * Returns {@link #hash(byte[])} of the bytes from {@code from} to {@code to} (exclusive) of an
   * array, without copying them out.
   */
  static long hash(byte[] array, int from, int to) {
    // Arrays.hashCode's recurrence h = 31 * h + b, four bytes a step: the same value (int
    // arithmetic wraps the same way), without one multiply's wait per byte.
    int h = 1;
    int i = from;
    for (; i + 3 < to; i += 4) {
      h =
          923_521 * h // 31^4
              + 29_791 * array[i] // 31^3
              + 961 * array[i + 1] // 31^2
              + 31 * array[i + 2]
              + array[i + 3];
    }
    for (; i < to; i++) {
      h = 31 * h + array[i];
    }
    return mix(h);
  }

  private static long mix(int h) {
    h ^= h >>> 16;
    h *= 0x85EBCA6B;
    h ^= h >>> 13;
    return Integer.toUnsignedLong(h);
  }
}
