package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.DENYOOM;
import static dev.larder.server.internal.resp.RespCommand.Flag.EXCLUSIVE;
import static dev.larder.server.internal.resp.RespCommand.Flag.FAST;
import static dev.larder.server.internal.resp.RespCommand.Flag.READONLY;
import static dev.larder.server.internal.resp.RespCommand.Flag.WRITE;

import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.ScanCursor;
import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import dev.larder.server.internal.keyspace.ZSetPayload;
import dev.larder.server.internal.keyspace.ZSetPayload.Entry;
import dev.larder.server.internal.pubsub.KeyEvents;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The sorted-set commands of one key, Redis 7.0's: ZADD and the other writes, the lookups, the
 * ranges ({@link ZSetRangeCommands}) and the set algebra ({@link ZSetAlgebra}) are registered
 * beside them. A sorted set is one value ({@link ZSetPayload}); an empty one is deleted. The
 * blocking pops are {@link BlockingZSetCommands}.
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
        .run(
            c -> {
              ZSetPayload.View v = view(c, 1);
              c.out().integer(v == null ? 0 : v.size());
            });
    t.command("zscore", 3)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc(
            "sorted_set", "Returns the score of a member in a sorted set.", "key:key member:string")
        .run(c -> writeScoreOf(c, view(c, 1), c.arg(2)));
    t.command("zmscore", -3)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc(
            "sorted_set",
            "Returns the score of one or more members in a sorted set.",
            "key:key member:string*")
        .run(
            c -> {
              ZSetPayload.View v = view(c, 1);
              c.out().array(c.argc() - 2);
              for (int i = 2; i < c.argc(); i++) {
                writeScoreOf(c, v, c.arg(i));
              }
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

  /** A reader of the sorted set at argument i, or null when the key is absent. */
  static ZSetPayload.View view(RespCall c, int i) {
    return view(c, c.arg(i));
  }

  /** Returns the sorted set at {@code key}, or null if absent; WRONGTYPE for another type. */
  static ZSetPayload.View view(RespCall c, byte[] key) {
    StoredValue v = RespCall.requireType(c.keyspace().get(c.db(), key), ValueType.ZSET);
    return v == null ? null : ZSetPayload.view(v.payload());
  }

  /** The value to store for payload p (null, deleting the key, when it is empty). */
  static StoredValue withPayload(StoredValue before, byte[] p) {
    if (ZSetPayload.view(p).size() == 0) {
      return null;
    }
    return before == null ? new StoredValue(ValueType.ZSET, 0, 0, 0, p) : before.withPayload(p);
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

  private static void writeScoreOf(RespCall c, ZSetPayload.View v, byte[] member) {
    int r = v == null ? -1 : v.rank(member);
    if (r < 0) {
      c.out().nullValue();
    } else {
      writeScore(c, v.score(r));
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
    int[] counts = new int[2];
    c.keyspace()
        .update(
            c.db(),
            c.arg(1),
            before -> {
              RespCall.requireType(before, ValueType.ZSET);
              counts[0] = 0;
              counts[1] = 0;
              byte[] p = before == null ? null : before.payload();
              ZSetPayload.View v = p == null ? null : ZSetPayload.view(p);
              // each member's score as this command leaves it, in order of first mention
              java.util.Map<String, Entry> pending = new java.util.LinkedHashMap<>();
              for (int k = 0; k < scores.length; k++) {
                byte[] member = c.arg(first + 2 * k + 1);
                String key = new String(member, java.nio.charset.StandardCharsets.ISO_8859_1);
                Entry earlier = pending.get(key);
                int r = earlier != null || v == null ? -1 : v.rank(member);
                Double current = null;
                if (earlier != null) {
                  current = earlier.score();
                } else if (r >= 0) {
                  current = v.score(r);
                }
                if (current == null) {
                  if (!when.xx()) {
                    pending.put(key, new Entry(member, scores[k]));
                    counts[0]++;
                  }
                } else if (current != scores[k] && when.allowsUpdate(current, scores[k])) {
                  pending.put(key, new Entry(member, scores[k]));
                  counts[1]++;
                }
              }
              if (!pending.isEmpty()) {
                p = ZSetPayload.putAll(p, new ArrayList<>(pending.values()));
              }
              return counts[0] + counts[1] == 0 ? before : withPayload(before, p);
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
    double[] result = new double[1];
    boolean[] done = new boolean[1];
    c.keyspace()
        .update(
            c.db(),
            c.arg(1),
            before -> {
              RespCall.requireType(before, ValueType.ZSET);
              done[0] = false;
              byte[] p = before == null ? null : before.payload();
              ZSetPayload.View v = p == null ? null : ZSetPayload.view(p);
              int r = v == null ? -1 : v.rank(member);
              if (r < 0) {
                if (when.xx()) {
                  return before;
                }
                result[0] = by;
              } else {
                double current = v.score(r);
                double next = current + by;
                if (Double.isNaN(next)) {
                  throw new RespError(NAN);
                }
                if (!when.allowsUpdate(current, next)) {
                  return before;
                }
                result[0] = next;
                done[0] = true;
                if (next == current) {
                  return before;
                }
              }
              done[0] = true;
              return withPayload(before, ZSetPayload.put(p, member, result[0]));
            });
    if (done[0]) {
      writeScore(c, result[0]);
    } else {
      c.out().nullValue();
    }
  }

  private static void zrem(RespCall c) {
    int[] removed = new int[1];
    c.keyspace()
        .update(
            c.db(),
            c.arg(1),
            before -> {
              removed[0] = 0;
              if (RespCall.requireType(before, ValueType.ZSET) == null) {
                return null;
              }
              byte[] p = before.payload();
              for (int i = 2; i < c.argc(); i++) {
                byte[] next = ZSetPayload.remove(p, c.arg(i));
                if (next != null) {
                  p = next;
                  removed[0]++;
                }
              }
              return removed[0] == 0 ? before : withPayload(before, p);
            });
    c.out().integer(removed[0]);
  }

  private static void rank(RespCall c, boolean reverse) {
    ZSetPayload.View v = view(c, 1);
    int r = v == null ? -1 : v.rank(c.arg(2));
    if (r < 0) {
      c.out().nullValue();
    } else {
      c.out().integer(reverse ? v.size() - 1 - r : r);
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
    List<Entry> popped = new ArrayList<>();
    String named = KeyEvents.nameEvents(max ? "zpopmax" : "zpopmin");
    try {
      takeEnd(ks, db, key, max, count, popped);
    } finally {
      KeyEvents.nameEvents(named);
    }
    return popped;
  }

  private static void takeEnd(
      Keyspace ks, int db, byte[] key, boolean max, long count, List<Entry> popped) {
    ks.update(
        db,
        key,
        before -> {
          popped.clear();
          if (RespCall.requireType(before, ValueType.ZSET) == null || count <= 0) {
            return before;
          }
          List<Entry> all = ZSetPayload.entries(before.payload());
          int n = (int) Math.min(count, all.size());
          for (int k = 0; k < n; k++) {
            popped.add(all.get(max ? all.size() - 1 - k : k));
          }
          List<Entry> rest = max ? all.subList(0, all.size() - n) : all.subList(n, all.size());
          return rest.isEmpty() ? null : before.withPayload(ZSetPayload.encode(rest));
        });
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
      ZSetPayload.View v = view(c, key);
      if (v != null && v.size() > 0) {
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
      ZSetPayload.View v = view(c, 1);
      int n = v == null ? 0 : v.size();
      c.out().bulk(n == 0 ? null : v.member(ThreadLocalRandom.current().nextInt(n)));
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
    ZSetPayload.View v = view(c, 1);
    int n = v == null ? 0 : v.size();
    List<Entry> picked = new ArrayList<>();
    if (count >= 0) {
      for (int r : SetCommands.distinct(n, (int) Math.min(count, n))) {
        picked.add(new Entry(v.member(r), v.score(r)));
      }
      writeEntries(c, picked, withScores);
      return;
    }
    if (n == 0) {
      c.out().array(0);
      return;
    }
    // -count picks with repeats, written as they are drawn: the reply limit stops a huge count
    long total = Math.min(-count, Integer.MAX_VALUE / 2);
    boolean pairs = withScores && c.out().protocol() == 3;
    c.out().array((int) (withScores && !pairs ? total * 2 : total));
    ThreadLocalRandom r = ThreadLocalRandom.current();
    for (long i = 0; i < total; i++) {
      int rank = r.nextInt(n);
      if (pairs) {
        c.out().array(2);
      }
      c.out().bulk(v.member(rank));
      if (withScores) {
        writeScore(c, v.score(rank));
      }
    }
  }

  private static void zscan(RespCall c) {
    long cursor = KeyCommands.parseCursor(c.arg(2));
    KeyCommands.ScanOptions o = KeyCommands.ScanOptions.parse(c, 3, false);
    ZSetPayload.View v = view(c, 1);
    ScanCursor scan = new ScanCursor(cursor, o.count());
    java.util.Map<String, Double> scores = new java.util.HashMap<>();
    for (int r = 0; v != null && r < v.size(); r++) {
      byte[] m = v.member(r);
      if (o.matches(m)) {
        scan.offer(m);
        scores.put(new String(m, java.nio.charset.StandardCharsets.ISO_8859_1), v.score(r));
      }
    }
    List<byte[]> page = new ArrayList<>();
    long next = scan.finish(page);
    List<byte[]> pairs = new ArrayList<>(page.size() * 2);
    for (byte[] m : page) {
      pairs.add(m);
      double s = scores.get(new String(m, java.nio.charset.StandardCharsets.ISO_8859_1));
      pairs.add(Score.format(s).getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
    }
    KeyCommands.writePage(c, next, pairs);
  }
}
