package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.DENYOOM;
import static dev.larder.server.internal.resp.RespCommand.Flag.FAST;
import static dev.larder.server.internal.resp.RespCommand.Flag.READONLY;
import static dev.larder.server.internal.resp.RespCommand.Flag.WRITE;

import dev.larder.server.internal.keyspace.HashPayload;
import dev.larder.server.internal.keyspace.RangeBody;
import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The hash commands. A hash is one packed value ({@link HashPayload}) or, when large, chunks by
 * field-hash range ({@link RangeBody}): the field commands read and change it chunk-wise through
 * the keyspace's {@code readHash} and {@code editHash} (HRANDFIELD with a count picks fields by
 * position: {@link RandomPicks}). An empty hash is deleted.
 */
final class HashCommands {
  private HashCommands() {}

  static void register(RespCommandTable t) {
    t.command("hset", -4)
        .flags(WRITE, DENYOOM, FAST)
        .keys(1, 1, 1)
        .doc("hash", "Creates or modifies the value of a field in a hash.", "key:key data:block*")
        .run(c -> hset(c, false));
    t.command("hmset", -4)
        .flags(WRITE, DENYOOM, FAST)
        .keys(1, 1, 1)
        .doc("hash", "Sets the values of multiple fields.", "key:key data:block*")
        .run(c -> hset(c, true));
    t.command("hget", 3)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc("hash", "Returns the value of a field in a hash.", "key:key field:string")
        .run(c -> c.out().bulk(read(c, h -> h.get(c.arg(2)), (byte[]) null)));
    t.command("hmget", -3)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc("hash", "Returns the values of all fields in a hash.", "key:key field:string*")
        .run(HashCommands::hmget);
    t.command("hgetall", 2)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc("hash", "Returns all fields and values in a hash.", "key:key")
        .run(HashCommands::hgetall);
    t.command("hdel", -3)
        .flags(WRITE, FAST)
        .keys(1, 1, 1)
        .doc(
            "hash",
            "Deletes one or more fields and their values from a hash.",
            "key:key field:string*")
        .run(HashCommands::hdel);
    t.command("hexists", 3)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc("hash", "Determines whether a field exists in a hash.", "key:key field:string")
        .run(c -> c.out().integer(read(c, h -> h.contains(c.arg(2)), false) ? 1 : 0));
    t.command("hlen", 2)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc("hash", "Returns the number of fields in a hash.", "key:key")
        .run(c -> c.out().integer(read(c, RangeBody::size, 0)));
    t.command("hincrby", 4)
        .flags(WRITE, DENYOOM, FAST)
        .keys(1, 1, 1)
        .doc(
            "hash",
            "Increments the integer value of a field in a hash by a number.",
            "key:key field:string increment:integer")
        .run(HashCommands::hincrby);
    t.command("hkeys", 2)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc("hash", "Returns all fields in a hash.", "key:key")
        .run(
            c -> {
              List<byte[][]> f = entries(c);
              c.out().array(f.size());
              f.forEach(e -> c.out().bulk(e[0]));
            });
    t.command("hvals", 2)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc("hash", "Returns all values in a hash.", "key:key")
        .run(
            c -> {
              List<byte[][]> f = entries(c);
              c.out().array(f.size());
              f.forEach(e -> c.out().bulk(e[1]));
            });
    t.command("hscan", -3)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc(
            "hash",
            "Iterates over fields and values of a hash.",
            "key:key cursor:integer ?pattern:pattern ?count:integer")
        .run(HashCommands::hscan);
  }

  /**
   * Runs a read of the hash at argument 1 (type-checked) field-wise; {@code absent} when the key is
   * absent.
   */
  static <R> R read(RespCall c, Function<RangeBody, R> read, R absent) {
    return c.keyspace()
        .readHash(
            c.db(),
            c.arg(1),
            (before, hash) ->
                RespCall.requireType(before, ValueType.HASH) == null ? absent : read.apply(hash));
  }

  /** The fields and values of the hash at argument 1, {@code {field, value}}, in its order. */
  private static List<byte[][]> entries(RespCall c) {
    return read(c, RangeBody::entries, List.of());
  }

  /** The hash at argument 1 read whole, keyed by {@link HashPayload#field}. */
  static Map<String, byte[]> fields(RespCall c) {
    StoredValue v = RespCall.requireType(c.keyspace().get(c.db(), c.arg(1)), ValueType.HASH);
    return v == null ? Map.of() : HashPayload.decode(v.payload());
  }

  private static void hset(RespCall c, boolean legacy) {
    if (c.argc() % 2 != 0) {
      throw c.arityError();
    }
    int added =
        c.keyspace()
            .editHash(
                c.db(),
                c.arg(1),
                (before, hash) -> {
                  RespCall.requireType(before, ValueType.HASH);
                  int n = 0;
                  for (int i = 2; i < c.argc(); i += 2) {
                    n += hash.put(c.arg(i), c.arg(i + 1)) ? 1 : 0;
                  }
                  return n;
                });
    if (legacy) {
      c.out().ok();
    } else {
      c.out().integer(added);
    }
  }

  private static void hmget(RespCall c) {
    byte[][] values =
        read(
            c,
            h -> {
              byte[][] out = new byte[c.argc() - 2][];
              for (int i = 2; i < c.argc(); i++) {
                out[i - 2] = h.get(c.arg(i));
              }
              return out;
            },
            new byte[c.argc() - 2][]);
    c.out().array(values.length);
    for (byte[] v : values) {
      c.out().bulk(v);
    }
  }

  private static void hgetall(RespCall c) {
    List<byte[][]> f = entries(c);
    c.out().map(f.size());
    for (byte[][] e : f) {
      c.out().bulk(e[0]);
      c.out().bulk(e[1]);
    }
  }

  private static void hdel(RespCall c) {
    int removed =
        c.keyspace()
            .editHash(
                c.db(),
                c.arg(1),
                (before, hash) -> {
                  if (RespCall.requireType(before, ValueType.HASH) == null) {
                    return 0;
                  }
                  int n = 0;
                  for (int i = 2; i < c.argc(); i++) {
                    n += hash.remove(c.arg(i)) ? 1 : 0;
                  }
                  return n;
                });
    c.out().integer(removed);
  }

  private static void hincrby(RespCall c) {
    long by = c.integer(3);
    byte[] field = c.arg(2);
    long result =
        c.keyspace()
            .editHash(
                c.db(),
                c.arg(1),
                (before, hash) -> {
                  RespCall.requireType(before, ValueType.HASH);
                  byte[] old = hash.get(field);
                  long current;
                  try {
                    current = old == null ? 0 : RespCall.parseLong(old);
                  } catch (RespError e) {
                    throw new RespError("ERR hash value is not an integer");
                  }
                  long next;
                  try {
                    next = Math.addExact(current, by);
                  } catch (ArithmeticException e) {
                    throw new RespError("ERR increment or decrement would overflow");
                  }
                  hash.put(field, Long.toString(next).getBytes(StandardCharsets.ISO_8859_1));
                  return next;
                });
    c.out().integer(result);
  }

  private static void hscan(RespCall c) {
    long cursor = KeyCommands.parseCursor(c.arg(2));
    KeyCommands.ScanOptions o = KeyCommands.ScanOptions.parse(c, 3, false);
    List<byte[][]> page = new ArrayList<>();
    long next = read(c, h -> h.scan(cursor, o.count(), o::matches, page), 0L);
    List<byte[]> pairs = new ArrayList<>(page.size() * 2);
    for (byte[][] e : page) {
      pairs.add(e[0]);
      pairs.add(e[1]);
    }
    KeyCommands.writePage(c, next, pairs);
  }
}
