package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.DENYOOM;
import static dev.larder.server.internal.resp.RespCommand.Flag.EXCLUSIVE;
import static dev.larder.server.internal.resp.RespCommand.Flag.FAST;
import static dev.larder.server.internal.resp.RespCommand.Flag.READONLY;
import static dev.larder.server.internal.resp.RespCommand.Flag.WRITE;

import dev.larder.server.internal.keyspace.ScanCursor;
import dev.larder.server.internal.keyspace.SetPayload;
import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The set commands, Redis 7.0's. A set is one value ({@link SetPayload}); an empty set is deleted.
 * Commands that read or write several keys (SMOVE, SINTER, SUNION, SDIFF and their STORE forms,
 * SINTERCARD) run under the keyspace's exclusive lock, so they see and leave the keys as one step.
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
        .run(c -> c.out().integer(size(payload(c, 1))));
    t.command("sismember", 3)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc("set", "Determines whether a member belongs to a set.", "key:key member:string")
        .run(c -> c.out().integer(contains(payload(c, 1), c.arg(2)) ? 1 : 0));
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
        .run(c -> writeSet(c, members(payload(c, 1))));
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

  /** The payload of the set at argument i, or null when the key is absent. */
  private static byte[] payload(RespCall c, int i) {
    return payload(c, c.arg(i));
  }

  private static byte[] payload(RespCall c, byte[] key) {
    StoredValue v = RespCall.requireType(c.keyspace().get(c.db(), key), ValueType.SET);
    return v == null ? null : v.payload();
  }

  private static int size(byte[] p) {
    return p == null ? 0 : SetPayload.size(p);
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

  private static StoredValue withPayload(StoredValue before, byte[] p) {
    if (SetPayload.size(p) == 0) {
      return null;
    }
    return before == null ? new StoredValue(ValueType.SET, 0, 0, 0, p) : before.withPayload(p);
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
    int[] added = new int[1];
    c.keyspace()
        .update(
            c.db(),
            c.arg(1),
            before -> {
              RespCall.requireType(before, ValueType.SET);
              byte[] next = SetPayload.addAll(before == null ? null : before.payload(), ms, added);
              return next == null ? before : withPayload(before, next);
            });
    c.out().integer(added[0]);
  }

  private static void srem(RespCall c) {
    List<byte[]> ms = args(c, 2);
    int[] removed = new int[1];
    c.keyspace()
        .update(
            c.db(),
            c.arg(1),
            before -> {
              removed[0] = 0;
              if (RespCall.requireType(before, ValueType.SET) == null) {
                return null;
              }
              byte[] next = SetPayload.removeAll(before.payload(), ms, removed);
              return next == null ? before : withPayload(before, next);
            });
    c.out().integer(removed[0]);
  }

  private static void smismember(RespCall c) {
    byte[] p = payload(c, 1);
    c.out().array(c.argc() - 2);
    for (int i = 2; i < c.argc(); i++) {
      c.out().integer(contains(p, c.arg(i)) ? 1 : 0);
    }
  }

  private static void srandmember(RespCall c) {
    if (c.argc() > 3) {
      throw new RespError(RespError.SYNTAX);
    }
    if (c.argc() == 2) {
      byte[] p = payload(c, 1);
      int n = size(p);
      c.out().bulk(n == 0 ? null : SetPayload.member(p, ThreadLocalRandom.current().nextInt(n)));
      return;
    }
    long count = c.integer(2);
    if (count == Long.MIN_VALUE) {
      throw new RespError(
          "ERR value is out of range, value must between -9223372036854775807 and"
              + " 9223372036854775807");
    }
    byte[] p = payload(c, 1);
    int n = size(p);
    if (count >= 0) {
      int[] picks = distinct(n, (int) Math.min(count, n));
      c.out().array(picks.length);
      for (int i : picks) {
        c.out().bulk(SetPayload.member(p, i));
      }
      return;
    }
    if (n == 0) {
      c.out().array(0);
      return;
    }
    List<byte[]> all = SetPayload.members(p);
    // A reply of -count members: the reply limit stops one too large for the connection.
    c.out().array((int) Math.min(-count, Integer.MAX_VALUE));
    ThreadLocalRandom r = ThreadLocalRandom.current();
    for (long i = 0; i < Math.min(-count, Integer.MAX_VALUE); i++) {
      c.out().bulk(all.get(r.nextInt(n)));
    }
  }

  /** Picks k distinct positions of 0..n-1 in random order (Floyd's algorithm, then shuffled). */
  static int[] distinct(int n, int k) {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    if (k >= n) {
      int[] all = new int[n];
      for (int i = 0; i < n; i++) {
        all[i] = i;
      }
      return all;
    }
    java.util.LinkedHashSet<Integer> chosen = new java.util.LinkedHashSet<>();
    for (int j = n - k; j < n; j++) {
      int t = r.nextInt(j + 1);
      chosen.add(chosen.contains(t) ? j : t);
    }
    int[] out = new int[k];
    int i = 0;
    for (int x : chosen) {
      out[i++] = x;
    }
    for (int j = k - 1; j > 0; j--) {
      int s = r.nextInt(j + 1);
      int tmp = out[j];
      out[j] = out[s];
      out[s] = tmp;
    }
    return out;
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
    List<byte[]> popped = new ArrayList<>();
    c.keyspace()
        .update(
            c.db(),
            c.arg(1),
            before -> {
              popped.clear();
              if (RespCall.requireType(before, ValueType.SET) == null || wanted == 0) {
                return before;
              }
              byte[] p = before.payload();
              int n = SetPayload.size(p);
              for (int i : distinct(n, (int) Math.min(wanted, n))) {
                popped.add(SetPayload.member(p, i));
              }
              int[] removed = new int[1];
              return withPayload(before, SetPayload.removeAll(p, popped, removed));
            });
    if (c.argc() == 2) {
      c.out().bulk(popped.isEmpty() ? null : popped.getFirst());
    } else {
      writeSet(c, popped);
    }
  }

  private static void smove(RespCall c) {
    // Redis's order: an absent source answers 0 before the destination's type is checked.
    if (c.keyspace().peek(c.db(), c.arg(1)) == null) {
      c.out().integer(0);
      return;
    }
    byte[] src = payload(c, 1);
    byte[] dst = payload(c, 2);
    byte[] m = c.arg(3);
    if (!contains(src, m)) {
      c.out().integer(0);
      return;
    }
    if (!Arrays.equals(c.arg(1), c.arg(2))) {
      c.keyspace()
          .update(
              c.db(),
              c.arg(1),
              before -> withPayload(before, SetPayload.remove(before.payload(), m)));
      if (!contains(dst, m)) {
        c.keyspace()
            .update(
                c.db(),
                c.arg(2),
                before ->
                    withPayload(
                        before, SetPayload.add(before == null ? null : before.payload(), m)));
      }
    }
    c.out().integer(1);
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
    ScanCursor scan = new ScanCursor(cursor, o.count());
    for (byte[] m : members(payload(c, 1))) {
      if (o.matches(m)) {
        scan.offer(m);
      }
    }
    List<byte[]> page = new ArrayList<>();
    long next = scan.finish(page);
    KeyCommands.writePage(c, next, page);
  }
}
