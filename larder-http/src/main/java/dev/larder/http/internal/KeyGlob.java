package dev.larder.http.internal;

/**
 * The key browser's patterns, Redis's glob syntax over a key's text: {@code *} any run, {@code ?}
 * any one character, {@code [abc]}, {@code [^a]} and {@code [a-z]} classes, and {@code \} escaping
 * the next character. Matching is iterative, backtracking only to the last {@code *}, so a hostile
 * pattern costs at most pattern length times key length steps. Immutable and thread-safe.
 */
final class KeyGlob {

  private final String pattern;

  /**
   * @param pattern the pattern; empty or {@code *} matches every key
   */
  KeyGlob(String pattern) {
    this.pattern = pattern.isEmpty() ? "*" : pattern;
  }

  boolean matchesAll() {
    return pattern.equals("*");
  }

  /**
   * Returns whether the whole text matches.
   *
   * @param s a key's text
   */
  boolean matches(String s) {
    int p = 0;
    int i = 0;
    int starP = -1;
    int starI = -1;
    while (i < s.length()) {
      if (p < pattern.length() && pattern.charAt(p) == '*') {
        starP = ++p;
        starI = i;
        continue;
      }
      int next = p < pattern.length() ? matchOne(p, s.charAt(i)) : -1;
      if (next >= 0) {
        p = next;
        i++;
      } else if (starP >= 0) {
        p = starP;
        i = ++starI;
      } else {
        return false;
      }
    }
    while (p < pattern.length() && pattern.charAt(p) == '*') {
      p++;
    }
    return p == pattern.length();
  }

  /** Returns the pattern index after the element at {@code p} if it matches {@code c}, else -1. */
  private int matchOne(int p, char c) {
    char e = pattern.charAt(p);
    if (e == '?') {
      return p + 1;
    }
    if (e == '\\' && p + 1 < pattern.length()) {
      return pattern.charAt(p + 1) == c ? p + 2 : -1;
    }
    if (e == '[') {
      return matchClass(p + 1, c);
    }
    return e == c ? p + 1 : -1;
  }

  private int matchClass(int p, char c) {
    boolean negate = p < pattern.length() && pattern.charAt(p) == '^';
    if (negate) {
      p++;
    }
    boolean matched = false;
    while (p < pattern.length() && pattern.charAt(p) != ']') {
      char lo = pattern.charAt(p);
      if (lo == '\\' && p + 1 < pattern.length()) {
        lo = pattern.charAt(++p);
      }
      if (p + 2 < pattern.length()
          && pattern.charAt(p + 1) == '-'
          && pattern.charAt(p + 2) != ']') {
        char hi = pattern.charAt(p + 2);
        matched |= lo <= hi ? c >= lo && c <= hi : c >= hi && c <= lo;
        p += 3;
      } else {
        matched |= lo == c;
        p++;
      }
    }
    // An unclosed class runs to the end of the pattern, as in Redis.
    return matched != negate ? Math.min(p + 1, pattern.length()) : -1;
  }
}
