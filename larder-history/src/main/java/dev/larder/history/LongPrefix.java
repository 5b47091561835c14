package dev.larder.history;

import java.util.AbstractList;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * An immutable list of longs: the first {@code size} elements of an array that nothing writes below
 * {@code size} again (others may share the array and append above). Eight bytes per element where a
 * list of boxed values takes about twenty, and nothing at all for a read that {@link ListReads}
 * found to be a prefix of one it holds. Thread-safe once published safely.
 */
final class LongPrefix extends AbstractList<Long> implements RandomAccess {

  private final long[] elements;
  private final int size;

  LongPrefix(long[] elements, int size) {
    this.elements = elements;
    this.size = size;
  }

  /**
   * Returns {@code values} as is if it is one, else a copy.
   *
   * @throws NullPointerException if an element is null
   */
  static LongPrefix of(List<Long> values) {
    if (values instanceof LongPrefix p) {
      return p;
    }
    long[] a = new long[values.size()];
    int i = 0;
    for (Long v : values) {
      a[i++] = Objects.requireNonNull(v, "a read list's element");
    }
    return new LongPrefix(a, a.length);
  }

  @Override
  public Long get(int index) {
    Objects.checkIndex(index, size);
    return elements[index];
  }

  @Override
  public int size() {
    return size;
  }

  /** Returns true if this list and {@code other} are views of one array (tests). */
  @SuppressWarnings("ReferenceEquality") // the same array, not equal contents
  boolean sharesElementsWith(LongPrefix other) {
    return elements == other.elements;
  }

  /** Returns the array this list is a view of (tests). */
  long[] elementsForTests() {
    return elements;
  }

  /** Returns true if {@code a} is a prefix of {@code b} (or equal to it). */
  @SuppressWarnings("ReferenceEquality") // views of one array agree below the shorter size
  static boolean isPrefix(LongPrefix a, LongPrefix b) {
    if (a.size > b.size) {
      return false;
    }
    if (a.elements == b.elements) {
      return true;
    }
    return java.util.Arrays.equals(a.elements, 0, a.size, b.elements, 0, a.size);
  }
}
