package dev.larder.simulator;

import java.util.Arrays;

/**
 * A count-min sketch of 4-bit counters (four counters per key, one per hash function, in a table of
 * 64-bit words of sixteen counters) with periodic aging: after {@code sampleSize} increments every
 * counter is halved. The same structure the store keeps per segment, here for the policy simulator.
 *
 * <p>Two experiment switches, off by default (the store has neither; docs/design/eviction.md
 * records what they gave): {@code sim.doorkeeper=N}, a Bloom filter of N bits per counter word
 * (three hash functions) that a key must pass before the counters count it, cleared at each halving
 * (TinyLFU's doorkeeper); and {@code sim.conservative=true}, conservative update (only the key's
 * counters that hold its current minimum are raised).
 */
final class SketchModel {
  /** Doorkeeper bits per 64-bit counter word (0: none). */
  static final int DOORKEEPER = Integer.getInteger("sim.doorkeeper", 0);

  /** Conservative update: raise only the counters at the key's current minimum. */
  static final boolean CONSERVATIVE = Boolean.getBoolean("sim.conservative");

  private static final long[] SEEDS = {
    0x97CB3127B6F5E3A1L, 0xB492B66FBE98F273L, 0x9AE16A3B2F90404FL, 0xCBF29CE484222325L
  };

  private final long[] table;
  private final int mask;
  private int sampleSize;
  private int additions;

  /** The doorkeeper's bits, or null without one. */
  private final long[] door;

  /**
   * @param counters at least the number of counters wanted, rounded up to a power of two
   */
  SketchModel(long counters, int sampleSize) {
    int words = (int) Math.max(8, Long.highestOneBit(Math.max(1, (counters + 15) / 16 - 1)) << 1);
    table = new long[words];
    mask = words - 1;
    this.sampleSize = Math.max(1, sampleSize);
    door = DOORKEEPER > 0 ? new long[Math.max(1, words * DOORKEEPER / 64)] : null;
  }

  /** Changes the number of increments between halvings (adaptive aging experiments). */
  void sampleSize(int size) {
    sampleSize = Math.max(1, size);
  }

  private boolean doorContains(long hash) {
    for (int i = 0; i < 3; i++) {
      long h = mix(hash ^ 0x5DEECE66DL, i);
      int bit = (int) Long.remainderUnsigned(h >>> 1, (long) door.length * 64);
      if ((door[bit >>> 6] & (1L << bit)) == 0) {
        return false;
      }
    }
    return true;
  }

  private void doorAdd(long hash) {
    for (int i = 0; i < 3; i++) {
      long h = mix(hash ^ 0x5DEECE66DL, i);
      int bit = (int) Long.remainderUnsigned(h >>> 1, (long) door.length * 64);
      door[bit >>> 6] |= 1L << bit;
    }
  }

  int frequency(long hash) {
    if (door != null) {
      return doorContains(hash) ? frequency0(hash) + 1 : 0;
    }
    return frequency0(hash);
  }

  private int frequency0(long hash) {
    int min = 15;
    for (int i = 0; i < 4; i++) {
      long h = mix(hash, i);
      int index = (int) (h >>> 32) & mask;
      int shift = ((int) h & 15) << 2;
      min = Math.min(min, (int) (table[index] >>> shift) & 15);
    }
    return min;
  }

  void increment(long hash) {
    if (door != null && !doorContains(hash)) {
      // a key's first occurrence since the last halving only sets its doorkeeper bits
      doorAdd(hash);
      if (++additions >= sampleSize) {
        halve();
      }
      return;
    }
    if (CONSERVATIVE) {
      incrementConservative(hash);
      return;
    }
    boolean added = false;
    for (int i = 0; i < 4; i++) {
      long h = mix(hash, i);
      int index = (int) (h >>> 32) & mask;
      int shift = ((int) h & 15) << 2;
      if (((table[index] >>> shift) & 15) != 15) {
        table[index] += 1L << shift;
        added = true;
      }
    }
    if (added && ++additions >= sampleSize) {
      halve();
    }
  }

  private void incrementConservative(long hash) {
    int min = frequency0(hash);
    if (min == 15) {
      return;
    }
    for (int i = 0; i < 4; i++) {
      long h = mix(hash, i);
      int index = (int) (h >>> 32) & mask;
      int shift = ((int) h & 15) << 2;
      if (((table[index] >>> shift) & 15) == min) {
        table[index] += 1L << shift;
      }
    }
    if (++additions >= sampleSize) {
      halve();
    }
  }

  private void halve() {
    if (door != null) {
      Arrays.fill(door, 0L);
    }
    for (int i = 0; i < table.length; i++) {
      table[i] = (table[i] >>> 1) & 0x7777_7777_7777_7777L;
    }
    additions /= 2;
  }

  private static long mix(long hash, int i) {
    long h = (hash + SEEDS[i]) * SEEDS[(i + 1) & 3];
    return h ^ (h >>> 29);
  }
}
