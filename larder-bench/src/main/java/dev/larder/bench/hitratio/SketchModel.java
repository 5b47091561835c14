package dev.larder.bench.hitratio;

/**
 * A count-min sketch of 4-bit counters (four counters per key, one per hash function, in a
 * table of 64-bit words of sixteen counters) with periodic aging: after {@code sampleSize}
 * increments every counter is halved. The same structure the store keeps per segment, here
 * for the policy simulator.
 */
final class SketchModel {
  private static final long[] SEEDS = {
      0x97CB3127B6F5E3A1L, 0xB492B66FBE98F273L, 0x9AE16A3B2F90404FL, 0xCBF29CE484222325L};

  private final long[] table;
  private final int mask;
  private final int sampleSize;
  private int additions;

  /** @param counters at least the number of counters wanted, rounded up to a power of two */
  SketchModel(long counters, int sampleSize) {
    int words = (int) Math.max(8, Long.highestOneBit(Math.max(1, (counters + 15) / 16 - 1)) << 1);
    table = new long[words];
    mask = words - 1;
    this.sampleSize = Math.max(1, sampleSize);
  }

  int frequency(long hash) {
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

  private void halve() {
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
