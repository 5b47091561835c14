package dev.larder.server.internal.memcache;

/**
 * Number tokens read as memcached 1.6 reads them (its {@code safe_strtol}, {@code safe_strtoul} and
 * {@code safe_strtoull}, which wrap C's {@code strtol} family): leading white space and a sign
 * allowed, the digits must be followed by the end of the token or a white-space byte, and the value
 * must fit. Meta flags' tokens use these, so that Larder refuses and accepts the same tokens.
 * Stateless.
 */
final class CNumbers {
  /** The value of a token that is not a number. */
  static final long INVALID = Long.MIN_VALUE;

  private CNumbers() {}

  private static boolean space(byte b) {
    return b == ' ' || (b >= '\t' && b <= '\r');
  }

  /**
   * Parses a signed decimal as {@code safe_strtol} does into its 32-bit result: C's 64-bit {@code
   * strtol} must not overflow, and the value keeps its low 32 bits (memcached does not check the
   * range, so {@code 4294967297} reads as 1).
   *
   * @return the value, or {@link #INVALID}
   */
  static long int32(byte[] t, int from) {
    Parsed p = parse(t, from);
    if (p == null
        || p.overflow
        || Long.compareUnsigned(p.magnitude, p.negative ? Long.MIN_VALUE : Long.MAX_VALUE) > 0) {
      return INVALID;
    }
    return (int) (p.negative ? -p.magnitude : p.magnitude);
  }

  /**
   * Parses an unsigned decimal as {@code safe_strtoul} into a 32-bit field: a minus sign refuses a
   * value whose 64-bit reading is negative, and a value past 32 bits keeps its low 32 bits.
   *
   * @return the value in [0, 2^32), or {@link #INVALID}
   */
  static long uint32(byte[] t, int from) {
    Long v = uint64(t, from);
    return v == null ? INVALID : v & 0xFFFF_FFFFL;
  }

  /**
   * Parses an unsigned 64-bit decimal ({@code safe_strtoull}).
   *
   * @return the value (unsigned), or null
   */
  static Long uint64(byte[] t, int from) {
    Parsed p = parse(t, from);
    if (p == null || p.overflow) {
      return null;
    }
    long v = p.negative ? -p.magnitude : p.magnitude;
    // strtoull negates a "-n" reading; memcached refuses it when the result reads negative
    if (p.negative && v < 0) {
      return null;
    }
    return v;
  }

  private record Parsed(boolean negative, long magnitude, boolean overflow) {}

  private static Parsed parse(byte[] t, int from) {
    int i = from;
    while (i < t.length && space(t[i])) {
      i++;
    }
    boolean negative = false;
    if (i < t.length && (t[i] == '+' || t[i] == '-')) {
      negative = t[i] == '-';
      i++;
    }
    int digits = i;
    long v = 0;
    boolean overflow = false;
    while (i < t.length && t[i] >= '0' && t[i] <= '9') {
      int d = t[i] - '0';
      if (Long.compareUnsigned(v, Long.divideUnsigned(-1L - d, 10)) > 0) {
        overflow = true;
      } else {
        v = v * 10 + d;
      }
      i++;
    }
    if (i == digits || (i < t.length && !space(t[i]))) {
      return null;
    }
    return new Parsed(negative, v, overflow);
  }
}
