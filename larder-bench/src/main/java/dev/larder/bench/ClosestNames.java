package dev.larder.bench;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The names a mistyped one was probably meant to be: those within a small edit distance
 * (Levenshtein, case-insensitive; at most a third of the typed name's length, at least 1) or that
 * start with what was typed. Stateless.
 */
final class ClosestNames {

  private ClosestNames() {}

  /**
   * Returns {@code ", did you mean 'a' or 'b'?"} (closest first), or "" when none is close.
   *
   * @param typed what the user gave, not null
   * @param known the names it could have meant, not null
   */
  static String didYouMean(String typed, List<String> known) {
    String t = typed.toLowerCase(Locale.ROOT);
    int allowed = Math.max(1, t.length() / 3);
    List<String> close =
        known.stream()
            .filter(
                name ->
                    name.toLowerCase(Locale.ROOT).startsWith(t)
                        || distance(t, name.toLowerCase(Locale.ROOT)) <= allowed)
            .sorted(Comparator.comparingInt(name -> distance(t, name.toLowerCase(Locale.ROOT))))
            .map(name -> "'" + name + "'")
            .toList();
    return close.isEmpty() ? "" : ", did you mean " + String.join(" or ", close) + "?";
  }

  /** Levenshtein distance: insertions, deletions and substitutions, each costing 1. */
  static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
