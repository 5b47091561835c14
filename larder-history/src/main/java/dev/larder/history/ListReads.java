package dev.larder.history;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the values of a history's list reads ({@link Op.ReadList}) so that reads of one key that
 * agree hold each element once: a read that is a prefix of the key's longest read so far is a
 * length over that read's array, and a read that extends it appends to that array. A recorder of a
 * long run whose lists keep growing otherwise holds every element once per read of it, memory that
 * grows with the square of the run's length. A read that disagrees with the key's longest read (an
 * incompatible order, which the checker reports) gets an array of its own.
 *
 * <pre>{@code
 * ListReads shared = new ListReads();
 * Op read = new Op.ReadList("k1", shared.parse("k1", "3,7,12"));
 * }</pre>
 *
 * <p>Not thread-safe: one per history being read; the lists it returns are immutable and may be
 * read from any thread once published safely.
 */
public final class ListReads {

  /** A key's longest read so far: {@code size} elements of {@code elements}. */
  private static final class Longest {
    long[] elements = new long[16];
    int size;
  }

  private final Map<String, Longest> byKey = new HashMap<>();
  private long[] scratch = new long[16];

  /** Creates an empty one. */
  public ListReads() {}

  /**
   * Returns the first {@code length} elements of {@code values} as a read of {@code key}'s list,
   * sharing its elements with the key's earlier reads where they agree. {@code values} is copied
   * (the caller may reuse it).
   *
   * @throws IndexOutOfBoundsException if {@code length} is negative or above {@code values.length}
   */
  public List<Long> read(String key, long[] values, int length) {
    java.util.Objects.checkFromIndexSize(0, length, values.length);
    Longest l = byKey.computeIfAbsent(key, k -> new Longest());
    int common = Math.min(l.size, length);
    if (!java.util.Arrays.equals(l.elements, 0, common, values, 0, common)) {
      return new LongPrefix(java.util.Arrays.copyOf(values, length), length);
    }
    if (length > l.size) {
      if (length > l.elements.length) {
        // earlier reads keep the old array: nothing below their size changes in either
        l.elements = java.util.Arrays.copyOf(l.elements, Math.max(length, 2 * l.elements.length));
      }
      System.arraycopy(values, l.size, l.elements, l.size, length - l.size);
      l.size = length;
    }
    return new LongPrefix(l.elements, length);
  }

  /**
   * Parses comma-separated decimal values ({@code "3,7,12"}; empty for an empty list) as {@link
   * #read} does.
   *
   * @throws NumberFormatException if an element is not a decimal long
   */
  public List<Long> parse(String key, CharSequence csv) {
    int n = 0;
    int len = csv.length();
    int start = 0;
    while (start < len) {
      int end = start;
      while (end < len && csv.charAt(end) != ',') {
        end++;
      }
      if (n == scratch.length) {
        scratch = java.util.Arrays.copyOf(scratch, 2 * n);
      }
      scratch[n++] = Long.parseLong(csv, start, end, 10);
      start = end + 1;
      if (end == len - 1) {
        throw new NumberFormatException("a list ends with a comma: " + csv);
      }
    }
    return read(key, scratch, n);
  }
}
