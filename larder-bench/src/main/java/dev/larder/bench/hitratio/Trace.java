package dev.larder.bench.hitratio;

import java.util.Arrays;

/**
 * A trace in memory: the keys in request order and, per request, the object's size in bytes (1 for
 * formats that carry no size).
 *
 * @param name the trace's short name
 * @param keys the requested keys, in order
 * @param weights each request's object size; same length as {@code keys}
 */
@SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
public record Trace(String name, long[] keys, int[] weights) {

  public Trace {
    if (keys.length != weights.length) {
      throw new IllegalArgumentException("keys and weights differ in length");
    }
  }

  /** Returns the number of requests. */
  public int length() {
    return keys.length;
  }

  /** Returns true if any request has a size other than 1. */
  public boolean hasSizes() {
    for (int weight : weights) {
      if (weight != 1) {
        return true;
      }
    }
    return false;
  }

  /** Returns the keys renumbered densely (0..distinct-1) in order of first appearance. */
  public int[] denseIds() {
    LongIntMap ids = new LongIntMap(Math.max(16, keys.length / 4));
    int[] dense = new int[keys.length];
    for (int i = 0; i < keys.length; i++) {
      dense[i] = ids.getOrAssign(keys[i]);
    }
    return dense;
  }

  /** Grows the arrays of a trace while it is read. Not thread-safe. */
  static final class Builder {
    private long[] keys = new long[1 << 16];
    private int[] weights = new int[1 << 16];
    private int size;

    void add(long key, int weight) {
      if (size == keys.length) {
        keys = Arrays.copyOf(keys, size * 2);
        weights = Arrays.copyOf(weights, size * 2);
      }
      keys[size] = key;
      weights[size] = weight;
      size++;
    }

    Trace build(String name) {
      return new Trace(name, Arrays.copyOf(keys, size), Arrays.copyOf(weights, size));
    }
  }
}
