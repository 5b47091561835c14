package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.DENYOOM;
import static dev.larder.server.internal.resp.RespCommand.Flag.EXCLUSIVE;
import static dev.larder.server.internal.resp.RespCommand.Flag.FAST;
import static dev.larder.server.internal.resp.RespCommand.Flag.READONLY;
import static dev.larder.server.internal.resp.RespCommand.Flag.WRITE;

import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import dev.larder.server.internal.keyspace.ZSetBody;
import dev.larder.server.internal.keyspace.ZSetPayload;
import dev.larder.server.internal.keyspace.ZSetPayload.Entry;
import dev.larder.server.internal.pubsub.KeyEvents;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * The sorted-set commands of one key, Redis 7.0's: ZADD and the other writes, the lookups, the
 * ranges ({@link ZSetRangeCommands}) and the set algebra ({@link ZSetAlgebra}) are registered
 * beside them. A sorted set is one packed value ({@link ZSetPayload}) or, when large, chunks; the
 * commands of one key read and change either form chunk-wise through the keyspace's {@code
 * readZSet} and {@code editZSet} ({@link ZSetBody}); ZRANDMEMBER with a count picks by rank ({@link
 * RandomPicks}); the set algebra and SORT read the set whole. An empty one is deleted. The blocking
 * pops are {@link BlockingZSetCommands}.
 */
final class ZSetCommands {
  static final String NOT_FLOAT = "ERR value is not a valid float";
  static final String NAN = "ERR resulting score is not a number (NaN)";

  private ZSetCommands() {}

  static void register(RespCommandTable t) {
    t.command("zadd", -4)
        .flags(WRITE, DENYOOM, FAST)
        .keys(1, 1, 1)
        .doc(
            "sorted_set",
            "Adds one or more members to a sorted set, or updates their scores. Creates the key if"
                + " it doesn't exist.",
            "key:key ?condition:oneof ?comparison:oneof ?change:pure-token ?increment:pure-token"
                + " data:block*")
        .run(ZSetCommands::zadd);
    t.command("zincrby", 4)
        .flags(WRITE, DENYOOM, FAST)
        .keys(1, 1, 1)
        .doc(
            "sorted_set",
            "Increments the score of a member in a sorted set.",
            "key:key increment:integer member:string")
        .run(
            c ->
                incr(
                    c,
                    c.arg(3),
                    Score.parse(c.arg(2), NOT_FLOAT),
                    new Conditions(false, false, false, false)));
    t.command("zrem", -3)
        .flags(WRITE, FAST)
        .keys(1, 1, 1)
        .doc(
            "sorted_set",
            "Removes one or more members from a sorted set.",
            "key:key member:string*")
        .run(ZSetCommands::zrem);
    t.command("zcard", 2)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc("sorted_set", "Returns the number of members in a sorted set.", "key:key")
        .run(c -> c.out().integer(read(c, c.arg(1), b -> b == null ? 0 : b.size())));
    t.command("zscore", 3)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc(
            "sorted_set", "Returns the score of a member in a sorted set.", "key:key member:string")
        .run(
            c -> writeScoreOrNull(c, read(c, c.arg(1), b -> b == null ? null : b.score(c.arg(2)))));
    t.command("zmscore", -3)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc(
            "sorted_set",
            "Returns the score of one or more members in a sorted set.",
            "key:key member:string*")
        .run(
            c -> {
              List<Double> scores =
                  read(
                      c,
                      c.arg(1),
                      b -> {
                        List<Double> out = new ArrayList<>(c.argc() - 2);
                        for (int i = 2; i < c.argc(); i++) {
                          out.add(b == null ? null : b.score(c.arg(i)));
                        }
                        return out;
                      });
              c.out().array(scores.size());
              scores.forEach(s -> writeScoreOrNull(c, s));
            });
    t.command("zrank", 3)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc(
            "sorted_set",
            "Returns the index of a member in a sorted set ordered by ascending scores.",
            "key:key member:string")
        .run(c -> rank(c, false));
    t.command("zrevrank", 3)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc(
            "sorted_set",
            "Returns the index of a member in a sorted set ordered by descending scores.",
            "key:key member:string")
        .run(c -> rank(c, true));
    t.command("zpopmin", -2)
        .flags(WRITE, FAST)
        .keys(1, 1, 1)
        .doc(
            "sorted_set",
            "Returns the lowest-scoring members from a sorted set after removing them. Deletes the"
                + " sorted set if the last member was popped.",
            "key:key ?count:integer")
        .run(c -> zpop(c, false));
    t.command("zpopmax", -2)
        .flags(WRITE, FAST)
        .keys(1, 1, 1)
        .doc(
            "sorted_set",
            "Returns the highest-scoring members from a sorted set after removing them. Deletes"
                + " the sorted set if the last member was popped.",
            "key:key ?count:integer")
        .run(c -> zpop(c, true));
    t.command("zmpop", -4)
        .flags(WRITE, EXCLUSIVE)
        .countedKeys(1)
        .doc(
            "sorted_set",
            "Returns the highest- or lowest-scoring members from one or more sorted sets after"
                + " removing them. Deletes the sorted set if the last member was popped.",
            "numkeys:integer key:key* where:oneof ?count:integer")
        .run(ZSetCommands::zmpop);
    t.command("zrandmember", -2)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc(
            "sorted_set",
            "Returns one or more random members from a sorted set.",
            "key:key ?options:block")
        .run(ZSetCommands::zrandmember);
    t.command("zscan", -3)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc(
            "sorted_set",
            "Iterates over members and scores of a sorted set.",
            "key:key cursor:integer ?pattern:pattern ?count:integer")
        .run(ZSetCommands::zscan);
    ZSetRangeCommands.register(t);
    ZSetAlgebra.register(t);
  }

  /**
   * Runs a read of the sorted set at {@code key} in either stored form (a chunked one reads only
   * the chunks the read reaches); WRONGTYPE for another type.
   *
   * @param read given the set, or null when the key is absent; returns what the command writes (the
   *     reply is written after the read, outside the key's stripe)
   */
  static <R> R read(RespCall c, byte[] key, Function<ZSetBody, R> read) {
    return c.keyspace()
        .readZSet(
            c.db(),
            key,
            (before, body) ->
                read.apply(RespCall.requireType(before, ValueType.ZSET) == null ? null : body));
  }

  /** Returns the sorted set at {@code key} read whole, or null if absent; WRONGTYPE otherwise. */
  static ZSetPayload.View whole(RespCall c, byte[] key) {
    StoredValue v = RespCall.requireType(c.keyspace().get(c.db(), key), ValueType.ZSET);
    return v == null ? null : ZSetPayload.view(v.payload());
  }

  /** Stores entries at the key of argument i (deleting it if there are none); the count. */
  static int store(RespCall c, int i, List<Entry> entries) {
    if (entries.isEmpty()) {
      c.keyspace().delete(c.db(), c.arg(i));
    } else {
      c.keyspace()
          .put(
              c.db(),
              c.arg(i),
              new StoredValue(ValueType.ZSET, 0, 0, 0, ZSetPayload.encode(entries)));
    }
    return entries.size();
  }

  static void writeScore(RespCall c, double score) {
    c.out().dbl(Score.format(score));
  }

  /** Writes a score, or a null for none. */
  private static void writeScoreOrNull(RespCall c, Double score) {
    if (score == null) {
      c.out().nullValue();
    } else {
      writeScore(c, score.doubleValue());
    }
  }

  /**
   * Writes entries: members alone, or with scores (flat under RESP2, pairs under RESP3).
   *
   * @param c the call
   * @param entries the entries, in reply order
   * @param withScores whether scores are written
   */
  static void writeEntries(RespCall c, List<Entry> entries, boolean withScores) {
    if (!withScores) {
      c.out().array(entries.size());
      entries.forEach(e -> c.out().bulk(e.member()));
      return;
    }
    boolean pairs = c.out().protocol() == 3;
    c.out().array(pairs ? entries.size() : entries.size() * 2);
    for (Entry e : entries) {
      if (pairs) {
        c.out().array(2);
      }
      c.out().bulk(e.member());
      writeScore(c, e.score());
    }
  }

  /** ZADD's NX, XX, GT and LT. */
  record Conditions(boolean nx, boolean xx, boolean gt, boolean lt) {
    /** Whether an existing member at {@code current} may take {@code next}. */
    boolean allowsUpdate(double current, double next) {
      return !nx && !(gt && next <= current) && !(lt && next >= current);
    }
  }

  private static void zadd(RespCall c) {
    boolean nx = false;
    boolean xx = false;
    boolean gt = false;
    boolean lt = false;
    boolean ch = false;
    boolean incr = false;
    int i = 2;
    for (; i < c.argc() && isZaddOption(c.option(i)); i++) {
      switch (c.option(i)) {
        case "nx" -> nx = true;
        case "xx" -> xx = true;
        case "gt" -> gt = true;
        case "lt" -> lt = true;
        case "ch" -> ch = true;
        default -> incr = true;
      }
    }
    int elements = c.argc() - i;
    if (elements == 0 || elements % 2 != 0) {
      throw new RespError(RespError.SYNTAX);
    }
    if (nx && xx) {
      throw new RespError("ERR XX and NX options at the same time are not compatible");
    }
    if ((gt && nx) || (lt && nx) || (gt && lt)) {
      throw new RespError("ERR GT, LT, and/or NX options at the same time are not compatible");
    }
    if (incr && elements > 2) {
      throw new RespError("ERR INCR option supports a single increment-element pair");
    }
    double[] scores = new double[elements / 2];
    for (int k = 0; k < scores.length; k++) {
      scores[k] = Score.parse(c.arg(i + 2 * k), NOT_FLOAT);
    }
    Conditions when = new Conditions(nx, xx, gt, lt);
    if (incr) {
      incr(c, c.arg(i + 1), scores[0], when);
      return;
    }
    int first = i;
    int[] counts =
        c.keyspace()
            .editZSet(
                c.db(),
                c.arg(1),
                (before, body) -> {
                  RespCall.requireType(before, ValueType.ZSET);
                  int[] n = new int[2];
                  // each member's score as this command leaves it, in order of first mention
                  Map<String, Entry> pending = new LinkedHashMap<>();
                  for (int k = 0; k < scores.length; k++) {
                    byte[] member = c.arg(first + 2 * k + 1);
                    String key = new String(member, StandardCharsets.ISO_8859_1);
                    Entry earlier = pending.get(key);
                    // boxed on both sides: a conditional of double and Double would unbox a null
                    Double current =
                        earlier != null ? Double.valueOf(earlier.score()) : body.score(member);
                    if (current == null) {
                      if (!when.xx()) {
                        pending.put(key, new Entry(member, scores[k]));
                        n[0]++;
                      }
                    } else if (current != scores[k] && when.allowsUpdate(current, scores[k])) {
                      pending.put(key, new Entry(member, scores[k]));
                      n[1]++;
                    }
                  }
                  body.putAll(new ArrayList<>(pending.values()));
                  return n;
                });
    c.out().integer(counts[0] + (ch ? counts[1] : 0));
  }

  private static boolean isZaddOption(String word) {
    return switch (word) {
      case "nx", "xx", "gt", "lt", "ch", "incr" -> true;
      default -> false;
    };
  }

  /** ZINCRBY, and ZADD with INCR: replies the new score, or a null when a condition refuses. */
  private static void incr(RespCall c, byte[] member, double by, Conditions when) {
    Double result =
        c.keyspace()
            .editZSet(
                c.db(),
                c.arg(1),
                (before, body) -> {
                  RespCall.requireType(before, ValueType.ZSET);
                  Double current = body.score(member);
                  double next;
                  if (current == null) {
                    if (when.xx()) {
                      return null;
                    }
                    next = by;
                  } else {
                    next = current + by;
                    if (Double.isNaN(next)) {
                      throw new RespError(NAN);
                    }
                    if (!when.allowsUpdate(current, next)) {
                      return null;
                    }
                    if (next == current) {
                      return next;
                    }
                  }
                  body.put(member, next);
                  return next;
                });
    writeScoreOrNull(c, result);
  }

  private static void zrem(RespCall c) {
    int removed =
        c.keyspace()
            .editZSet(
                c.db(),
                c.arg(1),
                (before, body) -> {
                  if (RespCall.requireType(before, ValueType.ZSET) == null) {
                    return 0;
                  }
                  int n = 0;
                  for (int i = 2; i < c.argc(); i++) {
                    n += body.remove(c.arg(i)) ? 1 : 0;
                  }
                  return n;
                });
    c.out().integer(removed);
  }

  private static void rank(RespCall c, boolean reverse) {
    int[] found =
        read(
            c,
            c.arg(1),
            b -> {
              int r = b == null ? -1 : b.rank(c.arg(2));
              return new int[] {r, r < 0 ? 0 : b.size()};
            });
    if (found[0] < 0) {
      c.out().nullValue();
    } else {
      c.out().integer(reverse ? found[1] - 1 - found[0] : found[0]);
    }
  }

  /**
   * Removes up to {@code count} entries from the low or high end of a key of the call's database.
   */
  static List<Entry> pop(RespCall c, byte[] key, boolean max, long count) {
    return pop(c.keyspace(), c.db(), key, max, count);
  }

  /**
   * Removes up to {@code count} entries from the low or high end of a sorted set; a set emptied is
   * deleted.
   *
   * @param ks the keyspace
   * @param db the database
   * @param key the key
   * @param max from the high end (ZPOPMAX) or the low end
   * @param count the most entries to take
   * @return the entries in pop order, empty if the key is absent or {@code count} not positive
   * @throws RespError WRONGTYPE if the key holds another type
   */
  static List<Entry> pop(Keyspace ks, int db, byte[] key, boolean max, long count) {
    String named = KeyEvents.nameEvents(max ? "zpopmax" : "zpopmin");
    try {
      return ks.editZSet(
          db,
          key,
          (before, body) ->
              RespCall.requireType(before, ValueType.ZSET) == null || count <= 0
                  ? List.<Entry>of()
                  : body.pop(max, count));
    } finally {
      KeyEvents.nameEvents(named);
    }
  }

  private static void zpop(RespCall c, boolean max) {
    if (c.argc() > 3) {
      throw new RespError(RespError.SYNTAX);
    }
    long count = 1;
    if (c.argc() == 3) {
      count = c.integer(2);
      if (count < 0) {
        throw new RespError("ERR value is out of range, must be positive");
      }
    }
    List<Entry> popped = pop(c, c.arg(1), max, count);
    if (c.argc() == 2) {
      // without COUNT the reply is one flat pair, under RESP3 too
      c.out().array(popped.size() * 2);
      for (Entry e : popped) {
        c.out().bulk(e.member());
        writeScore(c, e.score());
      }
    } else {
      writeEntries(c, popped, true);
    }
  }

  private static void zmpop(RespCall c) {
    MultiPop spec = parseMultiPop(c, 1);
    for (byte[] key : spec.keys()) {
      if (read(c, key, b -> b == null ? 0 : b.size()) > 0) {
        writeMultiPopped(c.out(), key, pop(c, key, spec.max(), spec.count()));
        return;
      }
    }
    c.out().nullArray();
  }

  /**
   * ZMPOP from {@code numkeysAt}: {@code numkeys key... MIN|MAX [COUNT n]}, with Redis's errors.
   *
   * @return its parsed arguments
   */
  static MultiPop parseMultiPop(RespCall c, int numkeysAt) {
    int numkeys = SetCommands.numkeys(c, numkeysAt);
    int at = numkeysAt + 1 + numkeys;
    if (at >= c.argc()) {
      throw new RespError(RespError.SYNTAX);
    }
    boolean max =
        switch (c.option(at)) {
          case "min" -> false;
          case "max" -> true;
          default -> throw new RespError(RespError.SYNTAX);
        };
    long count = 1;
    boolean counted = false;
    for (int i = at + 1; i < c.argc(); i += 2) {
      if (counted || !c.option(i).equals("count") || i + 1 >= c.argc()) {
        throw new RespError(RespError.SYNTAX);
      }
      try {
        count = c.integer(i + 1);
      } catch (RespError e) {
        throw new RespError("ERR count should be greater than 0");
      }
      counted = true;
      if (count <= 0) {
        throw new RespError("ERR count should be greater than 0");
      }
    }
    List<byte[]> keys = new ArrayList<>(numkeys);
    for (int i = numkeysAt + 1; i < at; i++) {
      keys.add(c.arg(i));
    }
    return new MultiPop(keys, max, count);
  }

  /**
   * ZMPOP's and BZMPOP's parsed arguments.
   *
   * @param keys the keys, in order
   * @param max pop the highest scores (MAX) or the lowest
   * @param count the most entries to pop
   */
  record MultiPop(List<byte[]> keys, boolean max, long count) {}

  /** Writes ZMPOP's reply: the key, then an array of [member, score] pairs. */
  static void writeMultiPopped(RespWriter out, byte[] key, List<Entry> popped) {
    out.array(2);
    out.bulk(key);
    out.array(popped.size());
    for (Entry e : popped) {
      out.array(2);
      out.bulk(e.member());
      out.dbl(Score.format(e.score()));
    }
  }

  private static void zrandmember(RespCall c) {
    if (c.argc() == 2) {
      byte[] picked =
          read(
              c,
              c.arg(1),
              b ->
                  b == null || b.size() == 0
                      ? null
                      : b.entry(ThreadLocalRandom.current().nextInt(b.size())).member());
      c.out().bulk(picked);
      return;
    }
    if (c.argc() > 4 || (c.argc() == 4 && !c.option(3).equals("withscores"))) {
      throw new RespError(RespError.SYNTAX);
    }
    boolean withScores = c.argc() == 4;
    long count = c.integer(2);
    if (count == Long.MIN_VALUE || (withScores && count < -Long.MAX_VALUE / 2)) {
      throw new RespError("ERR value is out of range");
    }
    // Independent picks at most Integer.MAX_VALUE / 2, drawn by the reply's writer: the output
    // limit stops a huge count.
    long bounded = Math.max(count, -(Integer.MAX_VALUE / 2));
    RandomPicks<Entry> picks =
        read(
            c,
            c.arg(1),
            b -> b == null ? null : RandomPicks.of(b.size(), bounded, b::entry, b::entries));
    long total = picks == null ? 0 : picks.count();
    boolean pairs = withScores && c.out().protocol() == 3;
    c.out().array((int) (withScores && !pairs ? total * 2 : total));
    for (long i = 0; i < total; i++) {
      Entry e = picks.pick(i);
      if (pairs) {
        c.out().array(2);
      }
      c.out().bulk(e.member());
      if (withScores) {
        writeScore(c, e.score());
      }
    }
  }

  private static void zscan(RespCall c) {
    long cursor = KeyCommands.parseCursor(c.arg(2));
    KeyCommands.ScanOptions o = KeyCommands.ScanOptions.parse(c, 3, false);
    List<Entry> page = new ArrayList<>();
    long next =
        read(
            c,
            c.arg(1),
            b -> {
              page.clear(); // a read that met an evicted chunk runs again
              return b == null ? 0L : b.scan(cursor, o.count(), o::matches, page);
            });
    List<byte[]> pairs = new ArrayList<>(page.size() * 2);
    for (Entry e : page) {
      pairs.add(e.member());
      pairs.add(Score.format(e.score()).getBytes(StandardCharsets.ISO_8859_1));
    }
    KeyCommands.writePage(c, next, pairs);
  }
}
