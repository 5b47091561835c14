package dev.larder.server.internal.resp;

import java.nio.charset.StandardCharsets;

/**
 * A SORT weight as Redis 7.0 reads it without ALPHA: C's {@code strtod} over the value as a C
 * string, which must end where the number ends. So leading white space, a sign, hexadecimal ({@code
 * 0x1p4}), {@code inf} and {@code infinity} are numbers; the empty string is 0 (strtod converts
 * nothing and stops at the terminating NUL); bytes after a NUL are not looked at; NaN and values
 * out of a double's normal range (strtod's {@code ERANGE}) are not weights.
 *
 * <p>Stateless and thread-safe.
 */
final class SortWeight {
  private SortWeight() {}

  /**
   * Returns the weight the bytes spell, or null if SORT refuses them.
   *
   * @param b a value's bytes
   */
  static Double parse(byte[] b) {
    int end = cStringEnd(b);
    int i = 0;
    while (i < end && space(b[i])) {
      i++;
    }
    if (i == end) {
      // strtod converts nothing; Redis accepts only if the string is empty
      return end == 0 ? Double.valueOf(0.0) : null;
    }
    boolean negative = b[i] == '-';
    int body = (b[i] == '-' || b[i] == '+') ? i + 1 : i;
    int named = infinity(b, body, end);
    if (named > 0) {
      if (body + named != end) {
        return null;
      }
      return negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
    }
    if (body + 1 < end
        && b[body] == '0'
        && (b[body + 1] | 0x20) == 'x'
        && hexDigitAt(b, body + 2, end)) {
      return hex(b, body + 2, end, negative);
    }
    return decimal(b, i, body, end);
  }

  private static Double decimal(byte[] b, int from, int body, int end) {
    int i = body;
    boolean nonZero = false;
    boolean dot = false;
    int digits = 0;
    while (i < end && (digit(b[i]) || (b[i] == '.' && !dot))) {
      dot |= b[i] == '.';
      if (digit(b[i])) {
        digits++;
        nonZero |= b[i] != '0';
      }
      i++;
    }
    if (digits == 0) {
      return null;
    }
    i = exponent(b, i, end, 'e');
    if (i != end) {
      return null;
    }
    return checked(new String(b, from, end - from, StandardCharsets.ISO_8859_1), nonZero);
  }

  private static Double hex(byte[] b, int digitsFrom, int end, boolean negative) {
    int i = digitsFrom;
    boolean nonZero = false;
    boolean dot = false;
    while (i < end && (hexDigit(b[i]) || (b[i] == '.' && !dot))) {
      dot |= b[i] == '.';
      nonZero |= hexDigit(b[i]) && b[i] != '0';
      i++;
    }
    int mantissaEnd = i;
    i = exponent(b, i, end, 'p');
    if (i != end) {
      return null;
    }
    String mantissa =
        new String(b, digitsFrom, mantissaEnd - digitsFrom, StandardCharsets.ISO_8859_1);
    String exp =
        mantissaEnd == end
            ? "0"
            : new String(b, mantissaEnd + 1, end - mantissaEnd - 1, StandardCharsets.ISO_8859_1);
    return checked((negative ? "-0x" : "0x") + mantissa + "p" + exp, nonZero);
  }

  /** Parses what the scan found to be a number, or null if it is out of range. */
  private static Double checked(String number, boolean nonZero) {
    double d;
    try {
      d = Double.parseDouble(number);
    } catch (NumberFormatException e) {
      // an exponent beyond what Java reads: far out of range either way
      return null;
    }
    return inRange(d, nonZero) ? d : null;
  }

  /** Returns where an exponent starting at {@code i} ends, or {@code i} if there is none. */
  private static int exponent(byte[] b, int i, int end, char marker) {
    if (i >= end || (b[i] | 0x20) != marker) {
      return i;
    }
    int j = i + 1;
    if (j < end && (b[j] == '+' || b[j] == '-')) {
      j++;
    }
    if (j >= end || !digit(b[j])) {
      return i;
    }
    while (j < end && digit(b[j])) {
      j++;
    }
    return j;
  }

  /**
   * strtod's ERANGE: an overflow to infinity, or a non-zero value too small for a normal double.
   */
  private static boolean inRange(double d, boolean nonZero) {
    double a = Math.abs(d);
    return !Double.isInfinite(d) && (!nonZero || a >= Double.MIN_NORMAL);
  }

  /** Returns the length of "inf" or "infinity" at {@code i} (any case), or 0. */
  private static int infinity(byte[] b, int i, int end) {
    if (matches(b, i, end, "infinity")) {
      return 8;
    }
    return matches(b, i, end, "inf") ? 3 : 0;
  }

  private static boolean matches(byte[] b, int i, int end, String word) {
    if (end - i < word.length()) {
      return false;
    }
    for (int k = 0; k < word.length(); k++) {
      if ((b[i + k] | 0x20) != word.charAt(k)) {
        return false;
      }
    }
    return true;
  }

  /** Where the C string ends: at the first NUL byte, or the end. */
  private static int cStringEnd(byte[] b) {
    for (int i = 0; i < b.length; i++) {
      if (b[i] == 0) {
        return i;
      }
    }
    return b.length;
  }

  private static boolean space(byte c) {
    return c == ' ' || (c >= '\t' && c <= '\r');
  }

  private static boolean digit(byte c) {
    return c >= '0' && c <= '9';
  }

  private static boolean hexDigit(byte c) {
    return digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
  }

  private static boolean hexDigitAt(byte[] b, int i, int end) {
    return (i < end && hexDigit(b[i])) || (i + 1 < end && b[i] == '.' && hexDigit(b[i + 1]));
  }
}
