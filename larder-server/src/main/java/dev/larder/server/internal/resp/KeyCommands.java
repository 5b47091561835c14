package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.EXCLUSIVE;
import static dev.larder.server.internal.resp.RespCommand.Flag.FAST;
import static dev.larder.server.internal.resp.RespCommand.Flag.READONLY;
import static dev.larder.server.internal.resp.RespCommand.Flag.WRITE;

import dev.larder.server.internal.keyspace.GlobPattern;
import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.ScanCursor;
import dev.larder.server.internal.keyspace.StoredValue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** The generic key commands: deletion, expiry, types, renaming, scanning, databases. */
final class KeyCommands {
  private KeyCommands() {}

  static void register(RespCommandTable t) {
    t.command("del", -2)
        .flags(WRITE)
        .keys(1, -1, 1)
        .doc("generic", "Deletes one or more keys.", "key:key*")
        .run(KeyCommands::del);
    t.command("unlink", -2)
        .flags(WRITE, FAST)
        .keys(1, -1, 1)
        .doc("generic", "Asynchronously deletes one or more keys.", "key:key*")
        .run(KeyCommands::del);
    t.command("exists", -2)
        .flags(READONLY, FAST)
        .keys(1, -1, 1)
        .doc("generic", "Determines whether one or more keys exist.", "key:key*")
        .run(KeyCommands::exists);
    String expireArgs = "key:key seconds:integer ?condition:oneof";
    t.command("expire", -3)
        .flags(WRITE, FAST)
        .keys(1, 1, 1)
        .doc("generic", "Sets the expiration time of a key in seconds.", expireArgs)
        .run(c -> expire(c, 1000, false));
    t.command("pexpire", -3)
        .flags(WRITE, FAST)
        .keys(1, 1, 1)
        .doc("generic", "Sets the expiration time of a key in milliseconds.", expireArgs)
        .run(c -> expire(c, 1, false));
    t.command("expireat", -3)
        .flags(WRITE, FAST)
        .keys(1, 1, 1)
        .doc("generic", "Sets the expiration time of a key to a Unix timestamp.", expireArgs)
        .run(c -> expire(c, 1000, true));
    t.command("pexpireat", -3)
        .flags(WRITE, FAST)
        .keys(1, 1, 1)
        .doc(
            "generic",
            "Sets the expiration time of a key to a Unix milliseconds timestamp.",
            expireArgs)
        .run(c -> expire(c, 1, true));
    t.command("ttl", 2)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc("generic", "Returns the expiration time in seconds of a key.", "key:key")
        .run(c -> ttl(c, true));
    t.command("pttl", 2)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc("generic", "Returns the expiration time in milliseconds of a key.", "key:key")
        .run(c -> ttl(c, false));
    t.command("expiretime", 2)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc("generic", "Returns the expiration time of a key as a Unix timestamp.", "key:key")
        .run(c -> expiretime(c, 1000));
    t.command("pexpiretime", 2)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc(
            "generic",
            "Returns the expiration time of a key as a Unix milliseconds timestamp.",
            "key:key")
        .run(c -> expiretime(c, 1));
    t.command("randomkey", 1)
        .flags(READONLY)
        .doc("generic", "Returns a random key name from the database.", "")
        .run(KeyCommands::randomkey);
    t.command("persist", 2)
        .flags(WRITE, FAST)
        .keys(1, 1, 1)
        .doc("generic", "Removes the expiration time of a key.", "key:key")
        .run(KeyCommands::persist);
    t.command("type", 2)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc("generic", "Determines the type of value stored at a key.", "key:key")
        .run(
            c -> {
              // The header alone: a large list's type without reading its chunks.
              StoredValue v = c.keyspace().peekHeader(c.db(), c.arg(1));
              c.out().simple(v == null ? "none" : v.type().redisName());
            });
    t.command("rename", 3)
        .flags(WRITE, EXCLUSIVE)
        .keys(1, 2, 1)
        .doc("generic", "Renames a key and overwrites the destination.", "key:key newkey:key")
        .run(KeyCommands::rename);
    t.command("scan", -2)
        .flags(READONLY)
        .doc(
            "generic",
            "Iterates over the key names in the database.",
            "cursor:integer ?pattern:pattern ?count:integer ?type:string")
        .run(KeyCommands::scan);
    t.command("keys", 2)
        .flags(READONLY)
        .doc("generic", "Returns all key names that match a pattern.", "pattern:pattern")
        .run(KeyCommands::keys);
    t.command("dbsize", 1)
        .flags(READONLY, FAST)
        .doc("server", "Returns the number of keys in the database.", "")
        .run(c -> c.out().integer(c.keyspace().size(c.db())));
    t.command("flushdb", -1)
        .flags(WRITE, EXCLUSIVE)
        .doc("server", "Remove all keys from the current database.", "?flush-type:oneof")
        .run(c -> flush(c, false));
    t.command("flushall", -1)
        .flags(WRITE, EXCLUSIVE)
        .doc("server", "Removes all keys from all databases.", "?flush-type:oneof")
        .run(c -> flush(c, true));
    t.command("select", 2)
        .flags(FAST)
        .doc("connection", "Changes the selected database.", "index:integer")
        .run(KeyCommands::select);
  }

  private static void del(RespCall c) {
    long removed = 0;
    for (int i = 1; i < c.argc(); i++) {
      removed += c.keyspace().delete(c.db(), c.arg(i)) ? 1 : 0;
    }
    c.out().integer(removed);
  }

  private static void exists(RespCall c) {
    long found = 0;
    for (int i = 1; i < c.argc(); i++) {
      found += c.keyspace().peekHeader(c.db(), c.arg(i)) != null ? 1 : 0;
    }
    c.out().integer(found);
  }

  @SuppressWarnings("ReferenceEquality") // an update that returns its input made no change
  private static void expire(RespCall c, long unit, boolean absolute) {
    long amount = c.integer(2);
    boolean nx = false;
    boolean xx = false;
    boolean gt = false;
    boolean lt = false;
    for (int i = 3; i < c.argc(); i++) {
      switch (c.option(i)) {
        case "nx" -> nx = true;
        case "xx" -> xx = true;
        case "gt" -> gt = true;
        case "lt" -> lt = true;
        default -> throw new RespError("ERR Unsupported option " + c.text(i));
      }
    }
    if (nx && (xx || gt || lt)) {
      throw new RespError("ERR NX and XX, GT or LT options at the same time are not compatible");
    }
    if (gt && lt) {
      throw new RespError("ERR GT and LT options at the same time are not compatible");
    }
    long now = c.keyspace().now();
    long base = absolute ? 0 : now;
    if (amount > (Long.MAX_VALUE - Math.max(base, 0)) / unit
        || amount < (Long.MIN_VALUE + 1) / unit + (absolute ? 0 : 1)) {
      throw new RespError("ERR invalid expire time in '" + c.name() + "' command");
    }
    long when = base + amount * unit;
    Condition cond = new Condition(nx, xx, gt, lt);
    Keyspace.Change change =
        c.keyspace()
            .update(
                c.db(),
                c.arg(1),
                before -> {
                  if (before == null || !cond.allows(before, when)) {
                    return before;
                  }
                  return when <= now ? null : before.withExpiry(when);
                });
    c.out().integer(change.before() != null && change.after() != change.before() ? 1 : 0);
  }

  private record Condition(boolean nx, boolean xx, boolean gt, boolean lt) {
    boolean allows(StoredValue v, long when) {
      long current = v.volatileKey() ? v.expiresAtMillis() : Long.MAX_VALUE;
      return !((nx && v.volatileKey())
          || (xx && !v.volatileKey())
          || (gt && (!v.volatileKey() || when <= current))
          || (lt && when >= current));
    }
  }

  private static void ttl(RespCall c, boolean seconds) {
    StoredValue v = c.keyspace().peekHeader(c.db(), c.arg(1));
    if (v == null) {
      c.out().integer(-2);
    } else if (!v.volatileKey()) {
      c.out().integer(-1);
    } else {
      long ms = Math.max(0, v.expiresAtMillis() - c.keyspace().now());
      c.out().integer(seconds ? (ms + 500) / 1000 : ms);
    }
  }

  private static void expiretime(RespCall c, long unit) {
    StoredValue v = c.keyspace().peekHeader(c.db(), c.arg(1));
    c.out().integer(v == null ? -2 : !v.volatileKey() ? -1 : v.expiresAtMillis() / unit);
  }

  /**
   * A key chosen uniformly among the database's live keys (one sample of a walk of the whole
   * keyspace, which keeps no per-database index to draw from).
   */
  private static void randomkey(RespCall c) {
    byte[][] chosen = new byte[1][];
    long[] seen = {0};
    java.util.random.RandomGenerator random = java.util.concurrent.ThreadLocalRandom.current();
    c.keyspace()
        .forEachKey(
            c.db(),
            (key, type) -> {
              if (random.nextLong(++seen[0]) == 0) {
                chosen[0] = key;
              }
            });
    c.out().bulk(chosen[0]);
  }

  @SuppressWarnings("ReferenceEquality") // an update that returns its input made no change
  private static void persist(RespCall c) {
    Keyspace.Change change =
        c.keyspace()
            .update(
                c.db(),
                c.arg(1),
                before -> before == null || !before.volatileKey() ? before : before.withExpiry(0));
    c.out().integer(change.after() != change.before() ? 1 : 0);
  }

  private static void rename(RespCall c) {
    StoredValue v = c.keyspace().peek(c.db(), c.arg(1));
    if (v == null) {
      throw new RespError("ERR no such key");
    }
    if (!java.util.Arrays.equals(c.arg(1), c.arg(2))) {
      c.keyspace().put(c.db(), c.arg(2), v);
      c.keyspace().delete(c.db(), c.arg(1));
    }
    c.out().ok();
  }

  private static void scan(RespCall c) {
    long cursor = parseCursor(c.arg(1));
    ScanOptions o = ScanOptions.parse(c, 2, true);
    ScanCursor scan = new ScanCursor(cursor, o.count());
    c.keyspace()
        .forEachKey(
            c.db(),
            (key, type) -> {
              if (o.matches(key) && (o.type() == null || o.type().equals(type.redisName()))) {
                scan.offer(key);
              }
            });
    List<byte[]> page = new ArrayList<>();
    long next = scan.finish(page);
    writePage(c, next, page);
  }

  static void writePage(RespCall c, long next, List<byte[]> items) {
    c.out().array(2);
    c.out().bulk(Long.toString(next));
    c.out().array(items.size());
    items.forEach(c.out()::bulk);
  }

  static long parseCursor(byte[] b) {
    try {
      long v = Long.parseUnsignedLong(new String(b, StandardCharsets.ISO_8859_1));
      return v > 0xFFFF_FFFFL ? 0x1_0000_0000L : v;
    } catch (NumberFormatException e) {
      throw new RespError("ERR invalid cursor");
    }
  }

  private static void keys(RespCall c) {
    GlobPattern p = new GlobPattern(c.arg(1));
    List<byte[]> found = new ArrayList<>();
    c.keyspace()
        .forEachKey(
            c.db(),
            (key, type) -> {
              if (p.matchesAll() || p.matches(key, false)) {
                found.add(key);
              }
            });
    c.out().array(found.size());
    found.forEach(c.out()::bulk);
  }

  private static void flush(RespCall c, boolean all) {
    if (c.argc() > 2
        || (c.argc() == 2 && !(c.option(1).equals("async") || c.option(1).equals("sync")))) {
      throw new RespError(RespError.SYNTAX);
    }
    if (all) {
      c.keyspace().flushAll();
    } else {
      c.keyspace().flush(c.db());
    }
    c.out().ok();
  }

  private static void select(RespCall c) {
    long db = c.integer(1);
    if (db < 0 || db >= Keyspace.DATABASES) {
      throw new RespError("ERR DB index is out of range");
    }
    c.session.db = (int) db;
    c.session.info.db((int) db);
    c.out().ok();
  }

  /**
   * SCAN's and HSCAN's MATCH, COUNT and TYPE options.
   *
   * @param pattern MATCH, or null
   * @param count COUNT, 10 by default
   * @param type TYPE in lower case, or null
   */
  record ScanOptions(GlobPattern pattern, int count, String type) {
    boolean matches(byte[] item) {
      return pattern == null || pattern.matchesAll() || pattern.matches(item, false);
    }

    static ScanOptions parse(RespCall c, int from, boolean typeAllowed) {
      GlobPattern pattern = null;
      long count = 10;
      String type = null;
      for (int i = from; i < c.argc(); i += 2) {
        if (i + 1 >= c.argc()) {
          throw new RespError(RespError.SYNTAX);
        }
        switch (c.option(i)) {
          case "match" -> pattern = new GlobPattern(c.arg(i + 1));
          case "count" -> {
            count = c.integer(i + 1);
            if (count < 1) {
              throw new RespError(RespError.SYNTAX);
            }
          }
          case "type" -> {
            if (!typeAllowed) {
              throw new RespError(RespError.SYNTAX);
            }
            type = c.option(i + 1);
          }
          default -> throw new RespError(RespError.SYNTAX);
        }
      }
      return new ScanOptions(pattern, (int) Math.min(count, Integer.MAX_VALUE), type);
    }
  }
}
