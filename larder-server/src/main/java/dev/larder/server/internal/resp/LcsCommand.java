package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.READONLY;

import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import java.util.ArrayList;
import java.util.List;

/**
 * LCS: the longest common subsequence of two strings, its length (LEN), or the matching ranges
 * (IDX, with MINMATCHLEN and WITHMATCHLEN), with Redis 7.0's replies.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>The classic dynamic programme: a table of (a+1)(b+1) lengths, where cell (i, j) is the length
 * of the LCS of the first i bytes of a and the first j bytes of b, then a walk back from the
 * corner. The walk prefers to drop a byte of b when both directions keep the same length, and it
 * gathers a range while matches are contiguous in both strings, closing it at the first gap (or
 * when either string's first byte matched): the same choices as Redis, so the IDX ranges are the
 * ones Redis reports, from the end of the strings towards their start. The table is refused when it
 * would take more than {@code proto-max-bulk-len} bytes at four bytes a cell, as Redis does.
 *
 * <p>Stateless.
 */
final class LcsCommand {
  private LcsCommand() {}

  static void register(RespCommandTable t) {
    t.command("lcs", -3)
        .flags(READONLY)
        .keys(1, 2, 1)
        .doc(
            "string",
            "Finds the longest common substring.",
            "key1:key key2:key ?len:pure-token ?idx:pure-token ?min-match-len:integer"
                + " ?withmatchlen:pure-token")
        .run(LcsCommand::lcs);
  }

  private static void lcs(RespCall c) {
    StoredValue va = c.keyspace().get(c.db(), c.arg(1));
    StoredValue vb = c.keyspace().get(c.db(), c.arg(2));
    if ((va != null && va.type() != ValueType.STRING)
        || (vb != null && vb.type() != ValueType.STRING)) {
      throw new RespError("ERR The specified keys must contain string values");
    }
    Options o = Options.parse(c);
    byte[] a = va == null ? new byte[0] : va.payload();
    byte[] b = vb == null ? new byte[0] : vb.payload();
    long cells = (a.length + 1L) * (b.length + 1L);
    if (cells * 4 > c.server().config().maxRequestBytes() || cells > Integer.MAX_VALUE - 8) {
      throw new RespError(
          "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
    }
    int[] table = table(a, b);
    int length = table[table.length - 1];
    if (o.len() && !o.idx()) {
      c.out().integer(length);
      return;
    }
    Walk walk = walk(a, b, table, length, o.minMatchLen());
    if (!o.idx()) {
      c.out().bulk(walk.common());
      return;
    }
    RespWriter out = c.out();
    out.map(2);
    out.bulk("matches");
    out.array(walk.ranges().size());
    for (long[] r : walk.ranges()) {
      out.array(o.withMatchLen() ? 3 : 2);
      out.array(2);
      out.integer(r[0]);
      out.integer(r[1]);
      out.array(2);
      out.integer(r[2]);
      out.integer(r[3]);
      if (o.withMatchLen()) {
        out.integer(r[1] - r[0] + 1);
      }
    }
    out.bulk("len");
    out.integer(length);
  }

  /** The lengths table, row i for the first i bytes of a, (b.length + 1) cells a row. */
  private static int[] table(byte[] a, byte[] b) {
    int w = b.length + 1;
    int[] t = new int[(a.length + 1) * w];
    for (int i = 1; i <= a.length; i++) {
      for (int j = 1; j <= b.length; j++) {
        t[i * w + j] =
            a[i - 1] == b[j - 1]
                ? t[(i - 1) * w + j - 1] + 1
                : Math.max(t[(i - 1) * w + j], t[i * w + j - 1]);
      }
    }
    return t;
  }

  /**
   * The common subsequence, and its ranges as {a start, a end, b start, b end}, last first.
   *
   * @param common the subsequence's bytes
   * @param ranges the contiguous matches of at least the minimum length
   */
  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  private record Walk(byte[] common, List<long[]> ranges) {}

  private static Walk walk(byte[] a, byte[] b, int[] t, int length, long minMatchLen) {
    int w = b.length + 1;
    byte[] common = new byte[length];
    List<long[]> ranges = new ArrayList<>();
    int idx = length;
    int i = a.length;
    int j = b.length;
    // The open range; aStart == a.length means none is open.
    int aStart = a.length;
    int aEnd = 0;
    int bStart = 0;
    int bEnd = 0;
    while (i > 0 && j > 0) {
      boolean emit = false;
      if (a[i - 1] == b[j - 1]) {
        common[--idx] = a[i - 1];
        if (aStart == a.length) {
          aStart = i - 1;
          aEnd = i - 1;
          bStart = j - 1;
          bEnd = j - 1;
        } else if (aStart == i && bStart == j) {
          aStart--;
          bStart--;
        } else {
          emit = true;
        }
        if (aStart == 0 || bStart == 0) {
          emit = true;
        }
        i--;
        j--;
      } else {
        if (t[(i - 1) * w + j] > t[i * w + j - 1]) {
          i--;
        } else {
          j--;
        }
        emit = aStart != a.length;
      }
      if (emit) {
        if (minMatchLen == 0 || aEnd - aStart + 1 >= minMatchLen) {
          ranges.add(new long[] {aStart, aEnd, bStart, bEnd});
        }
        aStart = a.length;
      }
    }
    return new Walk(common, ranges);
  }

  /** LCS's options. */
  private record Options(boolean len, boolean idx, boolean withMatchLen, long minMatchLen) {
    static Options parse(RespCall c) {
      boolean len = false;
      boolean idx = false;
      boolean withMatchLen = false;
      long minMatchLen = 0;
      for (int i = 3; i < c.argc(); i++) {
        switch (c.option(i)) {
          case "idx" -> idx = true;
          case "len" -> len = true;
          case "withmatchlen" -> withMatchLen = true;
          case "minmatchlen" -> {
            if (i + 1 >= c.argc()) {
              throw new RespError(RespError.SYNTAX);
            }
            minMatchLen = Math.max(0, c.integer(++i));
          }
          default -> throw new RespError(RespError.SYNTAX);
        }
      }
      if (len && idx) {
        throw new RespError("ERR If you want both the length and indexes, please just use IDX.");
      }
      return new Options(len, idx, withMatchLen, minMatchLen);
    }
  }
}
