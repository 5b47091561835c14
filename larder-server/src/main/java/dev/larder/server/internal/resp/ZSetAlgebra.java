package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.DENYOOM;
import static dev.larder.server.internal.resp.RespCommand.Flag.EXCLUSIVE;
import static dev.larder.server.internal.resp.RespCommand.Flag.READONLY;
import static dev.larder.server.internal.resp.RespCommand.Flag.WRITE;

import dev.larder.server.internal.keyspace.SetPayload;
import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import dev.larder.server.internal.keyspace.ZSetPayload;
import dev.larder.server.internal.keyspace.ZSetPayload.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * ZUNION, ZINTER, ZDIFF, their STORE forms and ZINTERCARD: sorted sets (and plain sets, whose
 * members score 1, as Redis allows) combined with WEIGHTS and AGGREGATE as Redis 7.0 does: a
 * weighted score that is NaN (infinity times 0) counts as 0, and a sum of opposite infinities is 0.
 * All run under the keyspace's exclusive lock.
 */
final class ZSetAlgebra {
  private ZSetAlgebra() {}

  private enum Op {
    UNION,
    INTER,
    DIFF
  }

  private enum Aggregate {
    SUM,
    MIN,
    MAX
  }

  static void register(RespCommandTable t) {
    for (Op op : Op.values()) {
      String name = "z" + op.name().toLowerCase(java.util.Locale.ROOT);
      String verb =
          switch (op) {
            case UNION -> "union";
            case INTER -> "intersect";
            case DIFF -> "difference";
          };
      String options = op == Op.DIFF ? "" : " ?weight:integer* ?aggregate:oneof";
      t.command(name, -3)
          .flags(READONLY, EXCLUSIVE)
          .countedKeys(1)
          .doc(
              "sorted_set",
              "Returns the " + verb + " of multiple sorted sets.",
              "numkeys:integer key:key*" + options + " ?withscores:pure-token")
          .run(c -> combine(c, op, false));
      t.command(name + "store", -4)
          .flags(WRITE, DENYOOM, EXCLUSIVE)
          .keys(1, 1, 1)
          .countedKeys(2)
          .doc(
              "sorted_set",
              "Stores the " + verb + " of multiple sorted sets in a key.",
              "destination:key numkeys:integer key:key*" + options)
          .run(c -> combine(c, op, true));
    }
    t.command("zintercard", -3)
        .flags(READONLY, EXCLUSIVE)
        .countedKeys(1)
        .doc(
            "sorted_set",
            "Returns the number of members of the intersect of multiple sorted sets.",
            "numkeys:integer key:key* ?limit:integer")
        .run(ZSetAlgebra::zintercard);
  }

  /** An input: its members and scores by member (Latin-1 keys), in rank order. */
  private static Map<String, Double> input(RespCall c, int i) {
    StoredValue v = c.keyspace().get(c.db(), c.arg(i));
    Map<String, Double> out = new LinkedHashMap<>();
    if (v == null) {
      return out;
    }
    if (v.type() == ValueType.SET) {
      for (byte[] m : SetPayload.members(v.payload())) {
        out.put(key(m), 1.0);
      }
    } else if (v.type() == ValueType.ZSET) {
      for (Entry e : ZSetPayload.entries(v.payload())) {
        out.put(key(e.member()), e.score());
      }
    } else {
      throw new RespError(RespError.WRONGTYPE);
    }
    return out;
  }

  private static String key(byte[] m) {
    return new String(m, StandardCharsets.ISO_8859_1);
  }

  /** Reads numkeys at {@code at} as Redis's ZUNION, ZINTER, ZDIFF and ZINTERCARD do. */
  private static int numkeys(RespCall c, int at) {
    long numkeys = c.integer(at);
    if (numkeys < 1) {
      throw new RespError("ERR at least 1 input key is needed for '" + c.name() + "' command");
    }
    if (numkeys > c.argc() - at - 1) {
      throw new RespError(RespError.SYNTAX);
    }
    return (int) numkeys;
  }

  private static void combine(RespCall c, Op op, boolean store) {
    int at = store ? 2 : 1;
    int n = numkeys(c, at);
    double[] weights = new double[n];
    java.util.Arrays.fill(weights, 1);
    Aggregate aggregate = Aggregate.SUM;
    boolean withScores = false;
    for (int j = at + 1 + n; j < c.argc(); j++) {
      int left = c.argc() - j - 1;
      String word = c.option(j);
      if (op != Op.DIFF && word.equals("weights") && left >= n) {
        for (int k = 0; k < n; k++) {
          weights[k] = Score.parse(c.arg(j + 1 + k), "ERR weight value is not a float");
        }
        j += n;
      } else if (op != Op.DIFF && word.equals("aggregate") && left >= 1) {
        aggregate =
            switch (c.option(j + 1)) {
              case "sum" -> Aggregate.SUM;
              case "min" -> Aggregate.MIN;
              case "max" -> Aggregate.MAX;
              default -> throw new RespError(RespError.SYNTAX);
            };
        j++;
      } else if (!store && word.equals("withscores")) {
        withScores = true;
      } else {
        throw new RespError(RespError.SYNTAX);
      }
    }
    List<Map<String, Double>> inputs = new ArrayList<>();
    for (int k = 0; k < n; k++) {
      inputs.add(input(c, at + 1 + k));
    }
    List<Entry> result = compute(op, inputs, weights, aggregate);
    if (store) {
      c.out().integer(ZSetCommands.store(c, 1, result));
    } else {
      ZSetCommands.writeEntries(c, result, withScores);
    }
  }

  private static List<Entry> compute(
      Op op, List<Map<String, Double>> inputs, double[] weights, Aggregate aggregate) {
    Map<String, Double> acc = new LinkedHashMap<>();
    switch (op) {
      case UNION -> {
        for (int k = 0; k < inputs.size(); k++) {
          for (Map.Entry<String, Double> e : inputs.get(k).entrySet()) {
            double s = weighted(e.getValue(), weights[k]);
            acc.merge(e.getKey(), s, (a, b) -> aggregate(aggregate, a, b));
          }
        }
      }
      case INTER -> {
        Map<String, Double> first = inputs.getFirst();
        for (Map.Entry<String, Double> e : first.entrySet()) {
          double s = weighted(e.getValue(), weights[0]);
          boolean everywhere = true;
          for (int k = 1; k < inputs.size() && everywhere; k++) {
            Double other = inputs.get(k).get(e.getKey());
            everywhere = other != null;
            if (everywhere) {
              s = aggregate(aggregate, s, weighted(other, weights[k]));
            }
          }
          if (everywhere) {
            acc.put(e.getKey(), s);
          }
        }
      }
      default -> {
        for (Map.Entry<String, Double> e : inputs.getFirst().entrySet()) {
          boolean elsewhere = false;
          for (int k = 1; k < inputs.size() && !elsewhere; k++) {
            elsewhere = inputs.get(k).containsKey(e.getKey());
          }
          if (!elsewhere) {
            acc.put(e.getKey(), e.getValue());
          }
        }
      }
    }
    List<Entry> out = new ArrayList<>(acc.size());
    acc.forEach((m, s) -> out.add(new Entry(m.getBytes(StandardCharsets.ISO_8859_1), s)));
    out.sort(ZSetPayload.ORDER);
    return out;
  }

  private static double weighted(double score, double weight) {
    double s = score * weight;
    return Double.isNaN(s) ? 0 : s;
  }

  private static double aggregate(Aggregate a, double x, double y) {
    return switch (a) {
      case SUM -> {
        double s = x + y;
        yield Double.isNaN(s) ? 0 : s;
      }
      case MIN -> Math.min(x, y);
      case MAX -> Math.max(x, y);
    };
  }

  private static void zintercard(RespCall c) {
    int numkeys = numkeys(c, 1);
    long limit = 0;
    for (int i = 2 + numkeys; i < c.argc(); i += 2) {
      if (!c.option(i).equals("limit") || i + 1 >= c.argc()) {
        throw new RespError(RespError.SYNTAX);
      }
      try {
        limit = c.integer(i + 1);
      } catch (RespError e) {
        throw new RespError("ERR LIMIT can't be negative");
      }
      if (limit < 0) {
        throw new RespError("ERR LIMIT can't be negative");
      }
    }
    List<Map<String, Double>> inputs = new ArrayList<>();
    for (int i = 2; i < 2 + numkeys; i++) {
      inputs.add(input(c, i));
    }
    long count = 0;
    for (String m : inputs.getFirst().keySet()) {
      boolean everywhere = true;
      for (int k = 1; k < inputs.size() && everywhere; k++) {
        everywhere = inputs.get(k).containsKey(m);
      }
      if (everywhere && (++count == limit)) {
        break;
      }
    }
    c.out().integer(count);
  }
}
