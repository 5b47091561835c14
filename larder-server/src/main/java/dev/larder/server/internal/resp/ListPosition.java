package dev.larder.server.internal.resp;

import dev.larder.server.internal.keyspace.ListBody;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * LPOS: the positions of an element in a list, with Redis 7.0's RANK, COUNT and MAXLEN options and
 * its error replies. Stateless.
 */
final class ListPosition {
  private ListPosition() {}

  static void lpos(RespCall c) {
    long rank = 1;
    long count = -1;
    long maxlen = 0;
    for (int i = 3; i < c.argc(); i++) {
      boolean more = i + 1 < c.argc();
      String option = c.option(i);
      if (option.equals("rank") && more) {
        rank = Math.max(c.integer(++i), -Long.MAX_VALUE);
        if (rank == 0) {
          throw new RespError(
              "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ..."
                  + " or use negative to start from the end of the list");
        }
      } else if (option.equals("count") && more) {
        count = nonNegative(c, ++i, "ERR COUNT can't be negative");
      } else if (option.equals("maxlen") && more) {
        maxlen = nonNegative(c, ++i, "ERR MAXLEN can't be negative");
      } else {
        throw new RespError(RespError.SYNTAX);
      }
    }
    long r = rank;
    long n = count;
    long m = maxlen;
    List<Long> found =
        ListAccess.read(
            c, c.arg(1), l -> l == null ? List.<Long>of() : matches(l, c.arg(2), r, n, m));
    if (count < 0) {
      if (found.isEmpty()) {
        c.out().bulk((byte[]) null);
      } else {
        c.out().integer(found.getFirst());
      }
      return;
    }
    c.out().array(found.size());
    found.forEach(c.out()::integer);
  }

  private static long nonNegative(RespCall c, int i, String error) {
    long n = c.integer(i);
    if (n < 0) {
      throw new RespError(error);
    }
    return n;
  }

  /**
   * Returns the indexes of matches: skipping the first |rank|-1 of them, from the head for a
   * positive rank and the tail for a negative one, at most {@code count} (0 for all, -1 for one),
   * looking at no more than {@code maxlen} elements (0 for all).
   */
  private static List<Long> matches(
      ListBody list, byte[] wanted, long rank, long count, long maxlen) {
    int n = list.size();
    long skip = Math.abs(rank) - 1;
    long limit = count < 0 ? 1 : count == 0 ? Long.MAX_VALUE : count;
    long looked = maxlen == 0 ? Long.MAX_VALUE : maxlen;
    List<Long> out = new ArrayList<>();
    // Segment by segment from the end the rank names, so that MAXLEN reads only what it looks at.
    int segments = list.segmentCount();
    int step = 0;
    int first = rank > 0 ? 0 : n;
    for (int k = 0; k < segments && step < looked && out.size() < limit; k++) {
      int s = rank > 0 ? k : segments - 1 - k;
      List<byte[]> elements = list.segmentElements(s);
      int size = elements.size();
      if (rank < 0) {
        first -= size;
      }
      for (int j = 0; j < size && step < looked && out.size() < limit; j++, step++) {
        int at = rank > 0 ? j : size - 1 - j;
        if (Arrays.equals(elements.get(at), wanted)) {
          if (skip > 0) {
            skip--;
          } else {
            out.add((long) first + at);
          }
        }
      }
      if (rank > 0) {
        first += size;
      }
    }
    return out;
  }
}
