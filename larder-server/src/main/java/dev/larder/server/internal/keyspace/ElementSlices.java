package dev.larder.server.internal.keyspace;

import java.util.Arrays;

/**
 * Elements named where they lie: each an array, an offset and a length, in the payloads a read
 * loaded ({@link ListBody#range(int, int, ElementSlices)}), so that a reply writes them from those
 * bytes without a copy of each element first. Payloads are never changed once made (every list
 * operation returns a new array), so the slices stay valid after the read that made them.
 *
 * <p>Not thread-safe: one command's.
 */
public final class ElementSlices {
  private byte[][] arrays;
  private int[] offsets;
  private int[] lengths;
  private int size;

  /**
   * An empty collection of slices with room for a number of them.
   *
   * @param expected how many are expected (it grows past that), at least 0
   */
  public ElementSlices(int expected) {
    int n = Math.max(expected, 4);
    arrays = new byte[n][];
    offsets = new int[n];
    lengths = new int[n];
  }

  void add(byte[] array, int offset, int length) {
    if (size == arrays.length) {
      int n = size * 2;
      arrays = Arrays.copyOf(arrays, n);
      offsets = Arrays.copyOf(offsets, n);
      lengths = Arrays.copyOf(lengths, n);
    }
    arrays[size] = array;
    offsets[size] = offset;
    lengths[size] = length;
    size++;
  }

  /** Reverses the order of the slices from {@code from} to the last. */
  void reverseFrom(int from) {
    for (int i = from, j = size - 1; i < j; i++, j--) {
      byte[] a = arrays[i];
      arrays[i] = arrays[j];
      arrays[j] = a;
      int o = offsets[i];
      offsets[i] = offsets[j];
      offsets[j] = o;
      int l = lengths[i];
      lengths[i] = lengths[j];
      lengths[j] = l;
    }
  }

  /** Returns how many elements it names. */
  public int size() {
    return size;
  }

  /** Returns the array holding element {@code i} (not a copy: not to be changed). */
  public byte[] array(int i) {
    return arrays[i];
  }

  /** Returns where element {@code i} starts in its array. */
  public int offset(int i) {
    return offsets[i];
  }

  /** Returns the length of element {@code i}. */
  public int length(int i) {
    return lengths[i];
  }

  /** Returns a copy of element {@code i}. */
  public byte[] copy(int i) {
    return Arrays.copyOfRange(arrays[i], offsets[i], offsets[i] + lengths[i]);
  }
}
