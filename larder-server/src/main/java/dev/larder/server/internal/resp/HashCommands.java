package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.DENYOOM;
import static dev.larder.server.internal.resp.RespCommand.Flag.FAST;
import static dev.larder.server.internal.resp.RespCommand.Flag.READONLY;
import static dev.larder.server.internal.resp.RespCommand.Flag.WRITE;

import dev.larder.server.internal.keyspace.HashPayload;
import dev.larder.server.internal.keyspace.ScanCursor;
import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;

/** The hash commands. A hash is one value ({@link HashPayload}); an empty hash is deleted. */
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
        .run(c -> c.out().bulk(fields(c).get(HashPayload.field(c.arg(2)))));
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
        .run(c -> c.out().integer(fields(c).containsKey(HashPayload.field(c.arg(2))) ? 1 : 0));
    t.command("hlen", 2)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc("hash", "Returns the number of fields in a hash.", "key:key")
        .run(c -> c.out().integer(fields(c).size()));
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
              Map<String, byte[]> f = fields(c);
              c.out().array(f.size());
              f.keySet().forEach(k -> c.out().bulk(HashPayload.bytes(k)));
            });
    t.command("hvals", 2)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc("hash", "Returns all values in a hash.", "key:key")
        .run(
            c -> {
              Map<String, byte[]> f = fields(c);
              c.out().array(f.size());
              f.values().forEach(c.out()::bulk);
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

  static Map<String, byte[]> fields(RespCall c) {
    StoredValue v = RespCall.requireType(c.keyspace().get(c.db(), c.arg(1)), ValueType.HASH);
    return v == null ? Map.of() : HashPayload.decode(v.payload());
  }

  private static void hset(RespCall c, boolean legacy) {
    if (c.argc() % 2 != 0) {
      throw c.arityError();
    }
    int[] added = new int[1];
    c.keyspace()
        .update(
            c.db(),
            c.arg(1),
            before -> {
              SequencedMap<String, byte[]> f = decode(before);
              added[0] = 0;
              for (int i = 2; i < c.argc(); i += 2) {
                added[0] += f.put(HashPayload.field(c.arg(i)), c.arg(i + 1)) == null ? 1 : 0;
              }
              return store(before, f);
            });
    if (legacy) {
      c.out().ok();
    } else {
      c.out().integer(added[0]);
    }
  }

  private static void hmget(RespCall c) {
    Map<String, byte[]> f = fields(c);
    c.out().array(c.argc() - 2);
    for (int i = 2; i < c.argc(); i++) {
      c.out().bulk(f.get(HashPayload.field(c.arg(i))));
    }
  }

  private static void hgetall(RespCall c) {
    Map<String, byte[]> f = fields(c);
    c.out().map(f.size());
    f.forEach(
        (k, v) -> {
          c.out().bulk(HashPayload.bytes(k));
          c.out().bulk(v);
        });
  }

  private static void hdel(RespCall c) {
    int[] removed = new int[1];
    c.keyspace()
        .update(
            c.db(),
            c.arg(1),
            before -> {
              removed[0] = 0;
              if (RespCall.requireType(before, ValueType.HASH) == null) {
                return null;
              }
              SequencedMap<String, byte[]> f = HashPayload.decode(before.payload());
              for (int i = 2; i < c.argc(); i++) {
                removed[0] += f.remove(HashPayload.field(c.arg(i))) != null ? 1 : 0;
              }
              return removed[0] == 0 ? before : f.isEmpty() ? null : store(before, f);
            });
    c.out().integer(removed[0]);
  }

  private static void hincrby(RespCall c) {
    long by = c.integer(3);
    String field = HashPayload.field(c.arg(2));
    long[] result = new long[1];
    c.keyspace()
        .update(
            c.db(),
            c.arg(1),
            before -> {
              SequencedMap<String, byte[]> f = decode(before);
              byte[] old = f.get(field);
              long current;
              try {
                current = old == null ? 0 : RespCall.parseLong(old);
              } catch (RespError e) {
                throw new RespError("ERR hash value is not an integer");
              }
              try {
                result[0] = Math.addExact(current, by);
              } catch (ArithmeticException e) {
                throw new RespError("ERR increment or decrement would overflow");
              }
              f.put(field, Long.toString(result[0]).getBytes(StandardCharsets.ISO_8859_1));
              return store(before, f);
            });
    c.out().integer(result[0]);
  }

  private static void hscan(RespCall c) {
    long cursor = KeyCommands.parseCursor(c.arg(2));
    KeyCommands.ScanOptions o = KeyCommands.ScanOptions.parse(c, 3, false);
    Map<String, byte[]> f = fields(c);
    ScanCursor scan = new ScanCursor(cursor, o.count());
    for (String k : f.keySet()) {
      byte[] field = HashPayload.bytes(k);
      if (o.matches(field)) {
        scan.offer(field);
      }
    }
    List<byte[]> page = new ArrayList<>();
    long next = scan.finish(page);
    List<byte[]> pairs = new ArrayList<>(page.size() * 2);
    for (byte[] field : page) {
      pairs.add(field);
      pairs.add(f.get(HashPayload.field(field)));
    }
    KeyCommands.writePage(c, next, pairs);
  }

  static SequencedMap<String, byte[]> decode(StoredValue before) {
    return RespCall.requireType(before, ValueType.HASH) == null
        ? new LinkedHashMap<>()
        : HashPayload.decode(before.payload());
  }

  static StoredValue store(StoredValue before, Map<String, byte[]> f) {
    byte[] payload = HashPayload.encode(f);
    return before == null
        ? new StoredValue(ValueType.HASH, 0, 0, 0, payload)
        : before.withPayload(payload);
  }
}
