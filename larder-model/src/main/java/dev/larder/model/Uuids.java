package dev.larder.model;

/**
 * Recognises UUIDs in their canonical text form ({@code 8-4-4-4-12} lower-case hex digits),
 * the form {@link java.util.UUID#toString()} produces, so that a codec can store such a string
 * as 16 bytes and rebuild exactly the same string.
 */
final class Uuids {

  private Uuids() {}

  /**
   * @param s any string
   * @return {most, least} significant bits if {@code s} is a canonical UUID, else null
   */
  static long[] parseCanonical(String s) {
    if (s.length() != 36) {
      return null;
    }
    long hi = 0;
    long lo = 0;
    int digits = 0;
    for (int i = 0; i < 36; i++) {
      char c = s.charAt(i);
      if (i == 8 || i == 13 || i == 18 || i == 23) {
        if (c != '-') {
          return null;
        }
        continue;
      }
      int v = hex(c);
      if (v < 0) {
        return null;
      }
      if (digits < 16) {
        hi = hi << 4 | v;
      } else {
        lo = lo << 4 | v;
      }
      digits++;
    }
    return new long[] {hi, lo};
  }

  private static int hex(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    return -1;
  }
}
