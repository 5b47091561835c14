package dev.larder.bench.scenarios;

import java.util.SplittableRandom;

/** Keys and values as the scenarios generate them. */
final class Keys {

  /** Length of the String keys of the per-entry overhead study. */
  static final int KEY_CHARS = 10;

  private Keys() {}

  /**
   * Returns a 10-character key, e.g. {@code "0000000042"}.
   *
   * @param i an index, below 10^10
   */
  static String key(long i) {
    String digits = Long.toString(i);
    return "0".repeat(KEY_CHARS - digits.length()) + digits;
  }

  /**
   * Returns a fresh array of random bytes.
   *
   * @param random the source
   * @param size the length
   */
  static byte[] value(SplittableRandom random, int size) {
    byte[] b = new byte[size];
    random.nextBytes(b);
    return b;
  }
}
