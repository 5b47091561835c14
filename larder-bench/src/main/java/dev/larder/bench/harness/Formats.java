package dev.larder.bench.harness;

import java.util.Locale;

/** Number formatting for tables and terminal lines. */
final class Formats {

  private Formats() {}

  /**
   * Returns a human-readable form: grouped integers, a few significant decimals for small numbers.
   *
   * @param value a cell value
   */
  static String cell(Object value) {
    return switch (value) {
      case null -> "";
      case Long l -> String.format(Locale.ROOT, "%,d", l);
      case Integer i -> String.format(Locale.ROOT, "%,d", i);
      case Double d -> decimal(d);
      case Float f -> decimal(f);
      default -> String.valueOf(value).replace("|", "\\|").replace("\n", " ");
    };
  }

  private static String decimal(double d) {
    if (!Double.isFinite(d)) {
      return "";
    }
    double abs = Math.abs(d);
    if (d == Math.rint(d) && abs < 1e15) {
      return String.format(Locale.ROOT, "%,d", (long) d);
    }
    if (abs >= 1000) {
      return String.format(Locale.ROOT, "%,.0f", d);
    }
    if (abs >= 10) {
      return String.format(Locale.ROOT, "%.1f", d);
    }
    return String.format(Locale.ROOT, "%.3f", d);
  }

  /**
   * Returns seconds with one decimal, e.g. {@code "12.3 s"}.
   *
   * @param nanos a duration
   */
  static String seconds(long nanos) {
    return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
  }
}
