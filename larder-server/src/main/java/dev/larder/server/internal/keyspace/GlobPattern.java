package dev.larder.server.internal.keyspace;

/**
 * Redis's glob-style patterns over bytes, as KEYS, SCAN MATCH and CONFIG GET use them: {@code *}
 * any run, {@code ?} any byte, {@code [abc]}, {@code [^a]} and {@code [a-z]} classes, {@code \}
 * escapes the next byte. Matching is iterative (backtracking only to the last {@code *}), so
 * hostile patterns cost at most pattern times subject steps.
 *
 * <p>Immutable and thread-safe.
 */
public final class GlobPattern {
  private final byte[] pattern;

  /**
   * @param pattern the pattern's bytes
   */
  public GlobPattern(byte[] pattern) {
    this.pattern = pattern.clone();
  }

  /** Returns whether the pattern is a lone {@code *}, which matches everything. */
  public boolean matchesAll() {
    return pattern.length == 1 && pattern[0] == '*';
  }

  /**
   * Returns whether the whole subject matches.
   *
   * @param s the subject
   * @param nocase whether to compare ASCII letters without case
   */
  public boolean matches(byte[] s, boolean nocase) {
    int p = 0;
    int i = 0;
    int starP = -1;
    int starI = -1;
    while (i < s.length) {
      if (p < pattern.length && pattern[p] == '*') {
        starP = ++p;
        starI = i;
        continue;
      }
      int next = p < pattern.length ? matchOne(p, s[i], nocase) : -1;
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
    while (p < pattern.length && pattern[p] == '*') {
      p++;
    }
    return p == pattern.length;
  }

  /** Matches one subject byte at pattern position p; returns the next position or -1. */
  private int matchOne(int p, byte c, boolean nocase) {
    byte pc = pattern[p];
    if (pc == '?') {
      return p + 1;
    }
    if (pc == '[') {
      return matchClass(p + 1, c, nocase);
    }
    if (pc == '\\' && p + 1 < pattern.length) {
      return same(pattern[p + 1], c, nocase) ? p + 2 : -1;
    }
    return same(pc, c, nocase) ? p + 1 : -1;
  }

  private int matchClass(int p, byte c, boolean nocase) {
    boolean not = p < pattern.length && pattern[p] == '^';
    if (not) {
      p++;
    }
    boolean match = false;
    while (p < pattern.length && pattern[p] != ']') {
      if (pattern[p] == '\\' && p + 1 < pattern.length) {
        match |= same(pattern[p + 1], c, nocase);
        p += 2;
      } else if (p + 2 < pattern.length && pattern[p + 1] == '-' && pattern[p + 2] != ']') {
        int lo = Math.min(pattern[p] & 0xFF, pattern[p + 2] & 0xFF);
        int hi = Math.max(pattern[p] & 0xFF, pattern[p + 2] & 0xFF);
        int v = (nocase ? lower(c) : c) & 0xFF;
        match |= (v >= lo && v <= hi) || ((c & 0xFF) >= lo && (c & 0xFF) <= hi);
        p += 3;
      } else {
        match |= same(pattern[p], c, nocase);
        p++;
      }
    }
    // An unterminated class ends at the pattern's end, as in Redis.
    return match != not ? Math.min(p + 1, pattern.length) : -1;
  }

  private static boolean same(byte a, byte b, boolean nocase) {
    return a == b || (nocase && lower(a) == lower(b));
  }

  private static byte lower(byte b) {
    return b >= 'A' && b <= 'Z' ? (byte) (b + 32) : b;
  }
}
