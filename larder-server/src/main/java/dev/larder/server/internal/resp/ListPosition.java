package dev.larder.server.internal.resp;

import dev.larder.server.internal.keyspace.ListPayload;
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
    byte[] p = ListAccess.read(c, c.arg(1));
    List<Long> found =
        p == null ? List.of() : matches(ListPayload.decode(p), c.arg(2), rank, count, maxlen);
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
      List<byte[]> elements, byte[] wanted, long rank, long count, long maxlen) {
    int n = elements.size();
    long skip = Math.abs(rank) - 1;
    long limit = count < 0 ? 1 : count == 0 ? Long.MAX_VALUE : count;
    long looked = maxlen == 0 ? Long.MAX_VALUE : maxlen;
    List<Long> out = new ArrayList<>();
    for (int step = 0; step < n && step < looked && out.size() < limit; step++) {
      int i = rank > 0 ? step : n - 1 - step;
      if (Arrays.equals(elements.get(i), wanted)) {
        if (skip > 0) {
          skip--;
        } else {
          out.add((long) i);
        }
      }
    }
    return out;
  }
}
