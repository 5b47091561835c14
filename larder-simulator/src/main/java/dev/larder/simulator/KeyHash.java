package dev.larder.simulator;

/** The 64-bit key hash the simulator gives its sketch (a murmur3-style finaliser). */
final class KeyHash {
  private KeyHash() {}

  static long mix(long key) {
    long h = key * 0xC2B2AE3D27D4EB4FL;
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    h *= 0xC4CEB9FE1A85EC53L;
    return h ^ (h >>> 33);
  }
}
