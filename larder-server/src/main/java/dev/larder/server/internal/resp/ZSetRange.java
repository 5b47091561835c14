package dev.larder.server.internal.resp;

import dev.larder.server.internal.keyspace.ZSetBody;
import java.util.Arrays;

/**
 * The three ways a sorted-set command names a run of entries (by rank, by score, by member), parsed
 * as Redis 7.0 parses them and resolved on a {@link ZSetPayload.View} to ranks by binary search.
 *
 * <p>Immutable and thread-safe.
 */
final class ZSetRange {
  static final String NOT_FLOAT = "ERR min or max is not a float";
  static final String NOT_LEX = "ERR min or max not valid string range item";

  private ZSetRange() {}

  /**
   * A run of ranks, both ends included; empty when {@code from > to}.
   *
   * @param from first rank
   * @param to last rank
   */
  record Ranks(int from, int to) {
    static final Ranks EMPTY = new Ranks(0, -1);

    int length() {
      return Math.max(0, to - from + 1);
    }

    /**
     * Applies LIMIT in the given direction.
     *
     * @param reverse whether the run is read from {@code to} down
     * @param offset entries to skip; negative gives none
     * @param count entries to keep; negative for all
     */
    Ranks limit(boolean reverse, long offset, long count) {
      if (offset < 0 || offset >= length()) {
        return EMPTY;
      }
      long keep = count < 0 ? length() - offset : Math.min(count, length() - offset);
      if (keep <= 0) {
        return EMPTY;
      }
      return reverse
          ? new Ranks((int) (to - offset - keep + 1), (int) (to - offset))
          : new Ranks((int) (from + offset), (int) (from + offset + keep - 1));
    }
  }

  /** A bound read from a command: a score range end, or a member range end. */
  sealed interface Bound permits ScoreBound, LexBound {}

  /**
   * A score bound: {@code (1.5} excludes, {@code 1.5} includes, {@code -inf}/{@code +inf}.
   *
   * @param value the score
   * @param exclusive whether the score itself is outside the range
   */
  record ScoreBound(double value, boolean exclusive) implements Bound {
    static ScoreBound parse(byte[] b) {
      boolean ex = b.length > 0 && b[0] == '(';
      Double d = Score.parse(ex ? Arrays.copyOfRange(b, 1, b.length) : b);
      if (d == null) {
        throw new RespError(NOT_FLOAT);
      }
      return new ScoreBound(d, ex);
    }
  }

  /**
   * A member bound: {@code [m} includes, {@code (m} excludes, {@code -} and {@code +} are the ends.
   *
   * @param member the member, null for an end
   * @param exclusive whether the member itself is outside the range
   * @param plus for an end: true for {@code +}
   */
  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  record LexBound(byte[] member, boolean exclusive, boolean plus) implements Bound {
    static LexBound parse(byte[] b) {
      if (b.length == 1 && b[0] == '-') {
        return new LexBound(null, false, false);
      }
      if (b.length == 1 && b[0] == '+') {
        return new LexBound(null, false, true);
      }
      if (b.length == 0 || (b[0] != '[' && b[0] != '(')) {
        throw new RespError(NOT_LEX);
      }
      return new LexBound(Arrays.copyOfRange(b, 1, b.length), b[0] == '(', false);
    }
  }

  /**
   * Resolves ZRANGE's rank indexes (negative from the end) to ranks.
   *
   * @param n the set's size
   * @param start the first index
   * @param stop the last index
   * @param reverse whether indexes count from the highest score
   */
  static Ranks byIndex(int n, long start, long stop, boolean reverse) {
    if (start < 0) {
      start += n;
    }
    if (stop < 0) {
      stop += n;
    }
    if (start < 0) {
      start = 0;
    }
    if (start > stop || start >= n) {
      return Ranks.EMPTY;
    }
    if (stop >= n) {
      stop = n - 1L;
    }
    return reverse
        ? new Ranks((int) (n - 1 - stop), (int) (n - 1 - start))
        : new Ranks((int) start, (int) stop);
  }

  /**
   * Resolves a score range to ranks.
   *
   * @param b the set
   * @param min the low bound
   * @param max the high bound
   */
  static Ranks byScore(ZSetBody b, ScoreBound min, ScoreBound max) {
    int from = b.firstRank(e -> aboveMin(e.score(), min));
    int to = b.firstRank(e -> !belowMax(e.score(), max)) - 1;
    return from > to ? Ranks.EMPTY : new Ranks(from, to);
  }

  /**
   * Resolves a member range to ranks (meaningful when every score is equal, as in Redis).
   *
   * @param b the set
   * @param min the low bound
   * @param max the high bound
   */
  static Ranks byLex(ZSetBody b, LexBound min, LexBound max) {
    int from = b.firstRank(e -> lexAboveMin(e.member(), min));
    int to = b.firstRank(e -> !lexBelowMax(e.member(), max)) - 1;
    return from > to ? Ranks.EMPTY : new Ranks(from, to);
  }

  static boolean aboveMin(double score, ScoreBound min) {
    return min.exclusive() ? score > min.value() : score >= min.value();
  }

  static boolean belowMax(double score, ScoreBound max) {
    return max.exclusive() ? score < max.value() : score <= max.value();
  }

  private static boolean lexAboveMin(byte[] member, LexBound min) {
    if (min.member() == null) {
      return !min.plus();
    }
    int c = Arrays.compareUnsigned(member, min.member());
    return min.exclusive() ? c > 0 : c >= 0;
  }

  private static boolean lexBelowMax(byte[] member, LexBound max) {
    if (max.member() == null) {
      return max.plus();
    }
    int c = Arrays.compareUnsigned(member, max.member());
    return max.exclusive() ? c < 0 : c <= 0;
  }
}
