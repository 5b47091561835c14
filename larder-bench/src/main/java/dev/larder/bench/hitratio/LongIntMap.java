package dev.larder.bench.hitratio;

import java.util.Arrays;

/**
 * An open-addressing map from {@code long} keys to dense {@code int} ids, so that replaying a trace
 * of millions of requests does not box a key per request. Not thread-safe.
 */
final class LongIntMap {
  private long[] keys;
  private int[] values;
  private boolean[] used;
  private int size;

  LongIntMap(int expected) {
    int capacity = Integer.highestOneBit(Math.max(4, expected * 2) - 1) << 1;
    keys = new long[capacity];
    values = new int[capacity];
    used = new boolean[capacity];
  }

  int size() {
    return size;
  }

  /** Returns the key's id, assigning the next id ({@link #size()}) to a new key. */
  int getOrAssign(long key) {
    int mask = keys.length - 1;
    int i = spread(key) & mask;
    while (used[i]) {
      if (keys[i] == key) {
        return values[i];
      }
      i = (i + 1) & mask;
    }
    used[i] = true;
    keys[i] = key;
    values[i] = size;
    size++;
    if (size * 2 > keys.length) {
      grow();
    }
    return size - 1;
  }

  private void grow() {
    long[] oldKeys = keys;
    int[] oldValues = values;
    boolean[] oldUsed = used;
    keys = new long[oldKeys.length * 2];
    values = new int[oldKeys.length * 2];
    used = new boolean[oldKeys.length * 2];
    int mask = keys.length - 1;
    for (int j = 0; j < oldKeys.length; j++) {
      if (oldUsed[j]) {
        int i = spread(oldKeys[j]) & mask;
        while (used[i]) {
          i = (i + 1) & mask;
        }
        used[i] = true;
        keys[i] = oldKeys[j];
        values[i] = oldValues[j];
      }
    }
    Arrays.fill(oldUsed, false);
  }

  static int spread(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }
}
