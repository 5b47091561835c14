package dev.larder.server.internal.resp;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Sorted-set scores as Redis 7.0 reads and writes them: read as C's {@code strtod} does (with
 * {@code inf}, {@code +inf}, {@code -inf} and {@code infinity}; no blanks, no NaN, nothing after
 * the number, no overflow), written as C's {@code %.17g} (17 significant digits, trailing zeros
 * dropped, {@code inf} and {@code -inf}).
 *
 * <p>Stateless and thread-safe.
 */
final class Score {
  private static final MathContext SEVENTEEN = new MathContext(17, RoundingMode.HALF_EVEN);

  private Score() {}

  /**
   * Returns the double they spell, or null if they spell none.
   *
   * @param b bytes
   */
  static Double parse(byte[] b) {
    String s = new String(b, StandardCharsets.ISO_8859_1);
    if (s.isEmpty() || s.length() > 400) {
      return null;
    }
    String lower = s.toLowerCase(Locale.ROOT);
    String unsigned = lower.startsWith("+") || lower.startsWith("-") ? lower.substring(1) : lower;
    if (unsigned.equals("inf") || unsigned.equals("infinity")) {
      return lower.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
    }
    // Java's parser also takes blanks around the number, "NaN", "Infinity" and type suffixes
    for (int i = 0; i < unsigned.length(); i++) {
      char ch = unsigned.charAt(i);
      if (!((ch >= '0' && ch <= '9') || ch == '.' || ch == 'e' || ch == '+' || ch == '-')) {
        return null;
      }
    }
    try {
      double d = Double.parseDouble(s);
      return Double.isInfinite(d) ? null : d;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /**
   * Returns the double they spell.
   *
   * @param b bytes
   * @param error the error line if they spell none
   * @throws RespError with {@code error}
   */
  static double parse(byte[] b, String error) {
    Double d = parse(b);
    if (d == null) {
      throw new RespError(error);
    }
    return d;
  }

  /**
   * Returns its text as Redis 7.0 replies it ({@code %.17g}).
   *
   * @param d a double, not NaN
   */
  static String format(double d) {
    if (Double.isInfinite(d)) {
      return d > 0 ? "inf" : "-inf";
    }
    if (d == 0) {
      return Double.doubleToRawLongBits(d) < 0 ? "-0" : "0";
    }
    BigDecimal r = new BigDecimal(d).round(SEVENTEEN);
    int exponent = r.precision() - r.scale() - 1;
    if (exponent < -4 || exponent >= 17) {
      BigDecimal digits = r.movePointLeft(exponent).stripTrailingZeros();
      String mantissa = digits.toPlainString();
      String sign = exponent < 0 ? "-" : "+";
      int abs = Math.abs(exponent);
      return mantissa + "e" + sign + (abs < 10 ? "0" : "") + abs;
    }
    String plain = r.stripTrailingZeros().toPlainString();
    return plain;
  }
}
