package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.DENYOOM;
import static dev.larder.server.internal.resp.RespCommand.Flag.EXCLUSIVE;
import static dev.larder.server.internal.resp.RespCommand.Flag.FAST;
import static dev.larder.server.internal.resp.RespCommand.Flag.READONLY;
import static dev.larder.server.internal.resp.RespCommand.Flag.WRITE;

import dev.larder.server.internal.keyspace.RangeBody;
import dev.larder.server.internal.keyspace.SetPayload;
import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * The set commands, Redis 7.0's. A set is one packed value ({@link SetPayload}) or, when large,
 * chunks by member-hash range ({@link RangeBody}): the single-key commands read and change it
 * chunk-wise through the keyspace's {@code readSet} and {@code editSet}; the multi-key ones read
 * each set whole. An empty set is deleted. Commands that read or write several keys (SMOVE, SINTER,
 * SUNION, SDIFF and their STORE forms, SINTERCARD) run under the keyspace's exclusive lock, so they
 * see and leave the keys as one step.
 */
final class SetCommands {
  private SetCommands() {}

  static void register(RespCommandTable t) {
    t.command("sadd", -3)
        .flags(WRITE, DENYOOM, FAST)
        .keys(1, 1, 1)
        .doc("set", "Adds one or more members to a set.", "key:key member:string*")
        .run(SetCommands::sadd);
    t.command("srem", -3)
        .flags(WRITE, FAST)
        .keys(1, 1, 1)
        .doc("set", "Removes one or more members from a set.", "key:key member:string*")
        .run(SetCommands::srem);
    t.command("scard", 2)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc("set", "Returns the number of members in a set.", "key:key")
        .run(c -> c.out().integer(read(c, 1, RangeBody::size, 0)));
    t.command("sismember", 3)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc("set", "Determines whether a member belongs to a set.", "key:key member:string")
        .run(c -> c.out().integer(read(c, 1, set -> set.contains(c.arg(2)), false) ? 1 : 0));
    t.command("smismember", -3)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc(
            "set", "Determines whether multiple members belong to a set.", "key:key member:string*")
        .run(SetCommands::smismember);
    t.command("smembers", 2)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc("set", "Returns all members of a set.", "key:key")
        .run(c -> writeSet(c, read(c, 1, RangeBody::keys, List.of())));
    t.command("srandmember", -2)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc("set", "Get one or multiple random members from a set", "key:key ?count:integer")
        .run(SetCommands::srandmember);
    t.command("spop", -2)
        .flags(WRITE, FAST)
        .keys(1, 1, 1)
        .doc(
            "set",
            "Returns one or more random members from a set after removing them.",
            "key:key ?count:integer")
        .run(SetCommands::spop);
    t.command("smove", 4)
        .flags(WRITE, FAST, EXCLUSIVE)
        .keys(1, 2, 1)
        .doc(
            "set",
            "Moves a member from one set to another.",
            "source:key destination:key member:string")
        .run(SetCommands::smove);
    t.command("sinter", -2)
        .flags(READONLY, EXCLUSIVE)
        .keys(1, -1, 1)
        .doc("set", "Returns the intersect of multiple sets.", "key:key*")
        .run(c -> writeSet(c, combine(c, 1, Op.INTER)));
    t.command("sintercard", -3)
        .flags(READONLY, EXCLUSIVE)
        .countedKeys(1)
        .doc(
            "set",
            "Returns the number of members of the intersect of multiple sets.",
            "numkeys:integer key:key* ?limit:integer")
        .run(SetCommands::sintercard);
    t.command("sinterstore", -3)
        .flags(WRITE, DENYOOM, EXCLUSIVE)
        .keys(1, -1, 1)
        .doc("set", "Stores the intersect of multiple sets in a key.", "destination:key key:key*")
        .run(c -> store(c, combine(c, 2, Op.INTER)));
    t.command("sunion", -2)
        .flags(READONLY, EXCLUSIVE)
        .keys(1, -1, 1)
        .doc("set", "Returns the union of multiple sets.", "key:key*")
        .run(c -> writeSet(c, combine(c, 1, Op.UNION)));
    t.command("sunionstore", -3)
        .flags(WRITE, DENYOOM, EXCLUSIVE)
        .keys(1, -1, 1)
        .doc("set", "Stores the union of multiple sets in a key.", "destination:key key:key*")
        .run(c -> store(c, combine(c, 2, Op.UNION)));
    t.command("sdiff", -2)
        .flags(READONLY, EXCLUSIVE)
        .keys(1, -1, 1)
        .doc("set", "Returns the difference of multiple sets.", "key:key*")
        .run(c -> writeSet(c, combine(c, 1, Op.DIFF)));
    t.command("sdiffstore", -3)
        .flags(WRITE, DENYOOM, EXCLUSIVE)
        .keys(1, -1, 1)
        .doc("set", "Stores the difference of multiple sets in a key.", "destination:key key:key*")
        .run(c -> store(c, combine(c, 2, Op.DIFF)));
    t.command("sscan", -3)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc(
            "set",
            "Iterates over members of a set.",
            "key:key cursor:integer ?pattern:pattern ?count:integer")
        .run(SetCommands::sscan);
  }

  /**
   * Runs a read of the set at argument i (type-checked) chunk-wise; {@code absent} when the key is
   * absent.
   */
  private static <R> R read(RespCall c, int i, Function<RangeBody, R> read, R absent) {
    return c.keyspace()
        .readSet(
            c.db(),
            c.arg(i),
            (before, set) ->
                RespCall.requireType(before, ValueType.SET) == null ? absent : read.apply(set));
  }

  /** The payload of the set at argument i, or null when the key is absent. */
  private static byte[] payload(RespCall c, int i) {
    return payload(c, c.arg(i));
  }

  private static byte[] payload(RespCall c, byte[] key) {
    StoredValue v = RespCall.requireType(c.keyspace().get(c.db(), key), ValueType.SET);
    return v == null ? null : v.payload();
  }

  private static boolean contains(byte[] p, byte[] m) {
    return p != null && SetPayload.contains(p, m);
  }

  private static List<byte[]> members(byte[] p) {
    return p == null ? new ArrayList<>() : SetPayload.members(p);
  }

  private static void writeSet(RespCall c, List<byte[]> members) {
    c.out().set(members.size());
    members.forEach(c.out()::bulk);
  }

  private static List<byte[]> args(RespCall c, int from) {
    List<byte[]> out = new ArrayList<>(c.argc() - from);
    for (int i = from; i < c.argc(); i++) {
      out.add(c.arg(i));
    }
    return out;
  }

  private static void sadd(RespCall c) {
    List<byte[]> ms = args(c, 2);
    int added =
        c.keyspace()
            .editSet(
                c.db(),
                c.arg(1),
                (before, set) -> {
                  RespCall.requireType(before, ValueType.SET);
                  int n = 0;
                  for (byte[] m : ms) {
                    n += set.add(m) ? 1 : 0;
                  }
                  return n;
                });
    c.out().integer(added);
  }

  private static void srem(RespCall c) {
    List<byte[]> ms = args(c, 2);
    int removed =
        c.keyspace()
            .editSet(
                c.db(),
                c.arg(1),
                (before, set) -> {
                  if (RespCall.requireType(before, ValueType.SET) == null) {
                    return 0;
                  }
                  int n = 0;
                  for (byte[] m : ms) {
                    n += set.remove(m) ? 1 : 0;
                  }
                  return n;
                });
    c.out().integer(removed);
  }

  private static void smismember(RespCall c) {
    List<byte[]> ms = args(c, 2);
    boolean[] found =
        read(
            c,
            1,
            set -> {
              boolean[] out = new boolean[ms.size()];
              for (int i = 0; i < out.length; i++) {
                out[i] = set.contains(ms.get(i));
              }
              return out;
            },
            new boolean[ms.size()]);
    c.out().array(found.length);
    for (boolean f : found) {
      c.out().integer(f ? 1 : 0);
    }
  }

  private static void srandmember(RespCall c) {
    if (c.argc() > 3) {
      throw new RespError(RespError.SYNTAX);
    }
    if (c.argc() == 2) {
      c.out().bulk(read(c, 1, set -> set.randomKey(ThreadLocalRandom.current()), (byte[]) null));
      return;
    }
    long count = c.integer(2);
    if (count == Long.MIN_VALUE) {
      throw new RespError(
          "ERR value is out of range, value must between -9223372036854775807 and"
              + " 9223372036854775807");
    }
    // -count members at most, drawn by the reply's writer: the output limit stops a huge one.
    long bounded = Math.max(count, -Integer.MAX_VALUE);
    RandomPicks<byte[]> picks =
        read(c, 1, set -> RandomPicks.of(set.size(), bounded, set::key, set::keys), null);
    if (picks == null) {
      c.out().array(0);
      return;
    }
    c.out().array((int) picks.count());
    for (long i = 0; i < picks.count(); i++) {
      c.out().bulk(picks.pick(i));
    }
  }

  private static void spop(RespCall c) {
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
    long wanted = count;
    List<byte[]> popped =
        c.keyspace()
            .editSet(
                c.db(),
                c.arg(1),
                (before, set) -> {
                  List<byte[]> out = new ArrayList<>();
                  if (RespCall.requireType(before, ValueType.SET) == null || wanted == 0) {
                    return out;
                  }
                  int n = set.size();
                  for (int i :
                      RandomPicks.distinct(
                          n, (int) Math.min(wanted, n), ThreadLocalRandom.current())) {
                    out.add(set.key(i));
                  }
                  for (byte[] m : out) {
                    set.remove(m);
                  }
                  return out;
                });
    if (c.argc() == 2) {
      c.out().bulk(popped.isEmpty() ? null : popped.getFirst());
    } else {
      writeSet(c, popped);
    }
  }

  private static void smove(RespCall c) {
    // Redis's order: an absent source answers 0 before the destination's type is checked.
    if (RespCall.requireType(c.keyspace().peekHeader(c.db(), c.arg(1)), ValueType.SET) == null) {
      c.out().integer(0);
      return;
    }
    RespCall.requireType(c.keyspace().peekHeader(c.db(), c.arg(2)), ValueType.SET);
    byte[] m = c.arg(3);
    boolean moved;
    if (Arrays.equals(c.arg(1), c.arg(2))) {
      moved = read(c, 1, set -> set.contains(m), false);
    } else {
      // Both keys were type-checked above, under the exclusive lock: neither can change type.
      moved = c.keyspace().editSet(c.db(), c.arg(1), (before, set) -> set.remove(m));
      if (moved) {
        c.keyspace().editSet(c.db(), c.arg(2), (before, set) -> set.add(m));
      }
    }
    c.out().integer(moved ? 1 : 0);
  }

  private enum Op {
    INTER,
    UNION,
    DIFF
  }

  /** The members of the sets at arguments from..end combined; every key is type-checked. */
  private static List<byte[]> combine(RespCall c, int from, Op op) {
    List<byte[]> sets = new ArrayList<>();
    for (int i = from; i < c.argc(); i++) {
      sets.add(payload(c, i));
    }
    return combine(sets, op, Long.MAX_VALUE);
  }

  /** Combines payloads (null for an absent key); an intersection stops at {@code limit}. */
  @SuppressWarnings("ReferenceEquality") // skips the smallest set itself, not an equal one
  private static List<byte[]> combine(List<byte[]> sets, Op op, long limit) {
    return switch (op) {
      case INTER -> {
        if (sets.stream().anyMatch(p -> p == null)) {
          yield new ArrayList<>();
        }
        byte[] smallest = sets.getFirst();
        for (byte[] p : sets) {
          smallest = SetPayload.size(p) < SetPayload.size(smallest) ? p : smallest;
        }
        List<byte[]> out = new ArrayList<>();
        for (byte[] m : SetPayload.members(smallest)) {
          if (out.size() >= limit) {
            break;
          }
          boolean all = true;
          for (byte[] p : sets) {
            all &= p == smallest || SetPayload.contains(p, m);
          }
          if (all) {
            out.add(m);
          }
        }
        yield out;
      }
      case UNION -> {
        TreeSet<byte[]> all = new TreeSet<>(Arrays::compareUnsigned);
        for (byte[] p : sets) {
          all.addAll(members(p));
        }
        yield new ArrayList<>(all);
      }
      default -> {
        List<byte[]> out = new ArrayList<>();
        for (byte[] m : members(sets.getFirst())) {
          boolean elsewhere = false;
          for (int i = 1; i < sets.size() && !elsewhere; i++) {
            elsewhere = contains(sets.get(i), m);
          }
          if (!elsewhere) {
            out.add(m);
          }
        }
        yield out;
      }
    };
  }

  private static void store(RespCall c, List<byte[]> members) {
    if (members.isEmpty()) {
      c.keyspace().delete(c.db(), c.arg(1));
    } else {
      c.keyspace()
          .put(
              c.db(),
              c.arg(1),
              new StoredValue(ValueType.SET, 0, 0, 0, SetPayload.encode(members)));
    }
    c.out().integer(members.size());
  }

  private static void sintercard(RespCall c) {
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
    List<byte[]> sets = new ArrayList<>();
    for (int i = 2; i < 2 + numkeys; i++) {
      sets.add(payload(c, i));
    }
    c.out().integer(combine(sets, Op.INTER, limit == 0 ? Long.MAX_VALUE : limit).size());
  }

  /**
   * Reads a numkeys argument: positive and no more than the arguments after it.
   *
   * @param c the call
   * @param at its position
   * @return the count
   */
  static int numkeys(RespCall c, int at) {
    long n;
    try {
      n = c.integer(at);
    } catch (RespError e) {
      throw new RespError("ERR numkeys should be greater than 0");
    }
    if (n <= 0) {
      throw new RespError("ERR numkeys should be greater than 0");
    }
    if (n > c.argc() - at - 1) {
      throw new RespError("ERR Number of keys can't be greater than number of args");
    }
    return (int) n;
  }

  private static void sscan(RespCall c) {
    long cursor = KeyCommands.parseCursor(c.arg(2));
    KeyCommands.ScanOptions o = KeyCommands.ScanOptions.parse(c, 3, false);
    List<byte[][]> page = new ArrayList<>();
    long next = read(c, 1, set -> set.scan(cursor, o.count(), o::matches, page), 0L);
    List<byte[]> members = new ArrayList<>(page.size());
    page.forEach(e -> members.add(e[0]));
    KeyCommands.writePage(c, next, members);
  }
}
