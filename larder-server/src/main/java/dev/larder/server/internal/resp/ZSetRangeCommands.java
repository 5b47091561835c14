package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.DENYOOM;
import static dev.larder.server.internal.resp.RespCommand.Flag.EXCLUSIVE;
import static dev.larder.server.internal.resp.RespCommand.Flag.FAST;
import static dev.larder.server.internal.resp.RespCommand.Flag.READONLY;
import static dev.larder.server.internal.resp.RespCommand.Flag.WRITE;

import dev.larder.server.internal.keyspace.ValueType;
import dev.larder.server.internal.keyspace.ZSetBody;
import dev.larder.server.internal.keyspace.ZSetPayload.Entry;
import dev.larder.server.internal.resp.ZSetRange.LexBound;
import dev.larder.server.internal.resp.ZSetRange.Ranks;
import dev.larder.server.internal.resp.ZSetRange.ScoreBound;
import java.util.List;

/**
 * The sorted-set commands that read, count, store or remove a run of entries by rank, score or
 * member: ZRANGE and its older forms, ZRANGESTORE, ZCOUNT, ZLEXCOUNT, ZREMRANGEBY*. Options are
 * parsed in Redis 7.0's order and with its error lines.
 */
final class ZSetRangeCommands {
  private ZSetRangeCommands() {}

  /** How a range's two ends are read. */
  private enum Kind {
    AUTO,
    RANK,
    SCORE,
    LEX
  }

  static void register(RespCommandTable t) {
    t.command("zrange", -4)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc(
            "sorted_set",
            "Returns members in a sorted set within a range of indexes.",
            "key:key start:string stop:string ?sortby:oneof ?rev:pure-token ?limit:block"
                + " ?withscores:pure-token")
        .run(c -> range(c, 1, Kind.AUTO, null, false));
    t.command("zrangestore", -5)
        .flags(WRITE, DENYOOM, EXCLUSIVE)
        .keys(1, 2, 1)
        .doc(
            "sorted_set",
            "Stores a range of members from sorted set in a key.",
            "dst:key src:key min:string max:string ?sortby:oneof ?rev:pure-token ?limit:block")
        .run(c -> range(c, 2, Kind.AUTO, null, true));
    t.command("zrevrange", -4)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc(
            "sorted_set",
            "Returns members in a sorted set within a range of indexes in reverse order.",
            "key:key start:integer stop:integer ?withscores:pure-token")
        .run(c -> range(c, 1, Kind.RANK, true, false));
    t.command("zrangebyscore", -4)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc(
            "sorted_set",
            "Returns members in a sorted set within a range of scores.",
            "key:key min:double max:double ?withscores:pure-token ?limit:block")
        .run(c -> range(c, 1, Kind.SCORE, false, false));
    t.command("zrevrangebyscore", -4)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc(
            "sorted_set",
            "Returns members in a sorted set within a range of scores in reverse order.",
            "key:key max:double min:double ?withscores:pure-token ?limit:block")
        .run(c -> range(c, 1, Kind.SCORE, true, false));
    t.command("zrangebylex", -4)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc(
            "sorted_set",
            "Returns members in a sorted set within a lexicographical range.",
            "key:key min:string max:string ?limit:block")
        .run(c -> range(c, 1, Kind.LEX, false, false));
    t.command("zrevrangebylex", -4)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc(
            "sorted_set",
            "Returns members in a sorted set within a lexicographical range in reverse order.",
            "key:key max:string min:string ?limit:block")
        .run(c -> range(c, 1, Kind.LEX, true, false));
    t.command("zcount", 4)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc(
            "sorted_set",
            "Returns the count of members in a sorted set that have scores within a range.",
            "key:key min:double max:double")
        .run(c -> c.out().integer(ranks(c, Kind.SCORE, 2, 3, false).length()));
    t.command("zlexcount", 4)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc(
            "sorted_set",
            "Returns the number of members in a sorted set within a lexicographical range.",
            "key:key min:string max:string")
        .run(c -> c.out().integer(ranks(c, Kind.LEX, 2, 3, false).length()));
    t.command("zremrangebyrank", 4)
        .flags(WRITE)
        .keys(1, 1, 1)
        .doc(
            "sorted_set",
            "Removes members in a sorted set within a range of indexes. Deletes the sorted set if"
                + " all members were removed.",
            "key:key start:integer stop:integer")
        .run(c -> removeRange(c, Kind.RANK));
    t.command("zremrangebyscore", 4)
        .flags(WRITE)
        .keys(1, 1, 1)
        .doc(
            "sorted_set",
            "Removes members in a sorted set within a range of scores. Deletes the sorted set if"
                + " all members were removed.",
            "key:key min:double max:double")
        .run(c -> removeRange(c, Kind.SCORE));
    t.command("zremrangebylex", 4)
        .flags(WRITE)
        .keys(1, 1, 1)
        .doc(
            "sorted_set",
            "Removes members in a sorted set within a lexicographical range. Deletes the sorted"
                + " set if all members were removed.",
            "key:key min:string max:string")
        .run(c -> removeRange(c, Kind.LEX));
  }

  /** A parsed range, resolvable on any view. */
  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  private record Spec(Kind kind, byte[] min, byte[] max) {
    /** Parses both ends (so errors come before the key is read, as in Redis). */
    Spec checked() {
      switch (kind) {
        case RANK -> {
          RespCall.parseLong(min);
          RespCall.parseLong(max);
        }
        case SCORE -> {
          ScoreBound.parse(min);
          ScoreBound.parse(max);
        }
        default -> {
          LexBound.parse(min);
          LexBound.parse(max);
        }
      }
      return this;
    }

    Ranks on(ZSetBody v, boolean reverse) {
      return switch (kind) {
        case RANK ->
            ZSetRange.byIndex(v.size(), RespCall.parseLong(min), RespCall.parseLong(max), reverse);
        case SCORE -> ZSetRange.byScore(v, ScoreBound.parse(min), ScoreBound.parse(max));
        default -> ZSetRange.byLex(v, LexBound.parse(min), LexBound.parse(max));
      };
    }
  }

  /** The ranks of the range at arguments minAt and maxAt of the key at argument 1. */
  private static Ranks ranks(RespCall c, Kind kind, int minAt, int maxAt, boolean reverse) {
    Spec spec = new Spec(kind, c.arg(minAt), c.arg(maxAt)).checked();
    return ZSetCommands.read(c, c.arg(1), b -> b == null ? Ranks.EMPTY : spec.on(b, reverse));
  }

  /**
   * Every ZRANGE form.
   *
   * @param c the call
   * @param keyAt the source key's position (2 for ZRANGESTORE)
   * @param preset the range kind the command fixes, or AUTO (ZRANGE's BYSCORE/BYLEX)
   * @param reverse the direction the command fixes, or null (ZRANGE's REV)
   * @param store whether the result is stored at argument 1
   */
  private static void range(RespCall c, int keyAt, Kind preset, Boolean reverse, boolean store) {
    Kind kind = preset;
    Boolean rev = reverse;
    boolean withScores = false;
    long offset = 0;
    long limit = -1;
    for (int j = keyAt + 3; j < c.argc(); j++) {
      int left = c.argc() - j - 1;
      String word = c.option(j);
      if (!store && word.equals("withscores")) {
        withScores = true;
      } else if (word.equals("limit") && left >= 2) {
        offset = c.integer(j + 1);
        limit = c.integer(j + 2);
        j += 2;
      } else if (rev == null && word.equals("rev")) {
        rev = true;
      } else if (kind == Kind.AUTO && word.equals("bylex")) {
        kind = Kind.LEX;
      } else if (kind == Kind.AUTO && word.equals("byscore")) {
        kind = Kind.SCORE;
      } else {
        throw new RespError(RespError.SYNTAX);
      }
    }
    kind = kind == Kind.AUTO ? Kind.RANK : kind;
    boolean backwards = rev != null && rev;
    if ((offset != 0 || limit != -1) && kind == Kind.RANK) {
      throw new RespError(
          "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
    }
    if (withScores && kind == Kind.LEX) {
      throw new RespError("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
    }
    // reversed score and member ranges name the high end first
    boolean swap = backwards && kind != Kind.RANK;
    Spec spec =
        new Spec(kind, c.arg(keyAt + (swap ? 2 : 1)), c.arg(keyAt + (swap ? 1 : 2))).checked();
    Kind by = kind;
    long skip = offset;
    long keep = limit;
    List<Entry> out =
        ZSetCommands.read(
            c,
            c.arg(keyAt),
            b -> {
              if (b == null) {
                return List.of();
              }
              Ranks r = spec.on(b, backwards);
              if (by != Kind.RANK) {
                r = r.limit(backwards, skip, keep);
              }
              List<Entry> run = r.length() == 0 ? List.of() : b.range(r.from(), r.to());
              return backwards ? run.reversed() : run;
            });
    if (store) {
      c.out().integer(ZSetCommands.store(c, 1, out));
    } else {
      ZSetCommands.writeEntries(c, out, withScores);
    }
  }

  private static void removeRange(RespCall c, Kind kind) {
    Spec spec = new Spec(kind, c.arg(2), c.arg(3)).checked();
    int removed =
        c.keyspace()
            .editZSet(
                c.db(),
                c.arg(1),
                (before, body) -> {
                  if (RespCall.requireType(before, ValueType.ZSET) == null) {
                    return 0;
                  }
                  Ranks r = spec.on(body, false);
                  if (r.length() > 0) {
                    body.removeRanks(r.from(), r.to());
                  }
                  return r.length();
                });
    c.out().integer(removed);
  }
}
