package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.DENYOOM;
import static dev.larder.server.internal.resp.RespCommand.Flag.EXCLUSIVE;
import static dev.larder.server.internal.resp.RespCommand.Flag.FAST;
import static dev.larder.server.internal.resp.RespCommand.Flag.WRITE;

import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.StoredValue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The commands that move a whole value to another key or database: COPY, MOVE, RENAMENX, SWAPDB.
 * They work on the stored value as it is, whatever its type: the copy keeps the type, the payload,
 * the expiry and memcached's flags, and gets a fresh version.
 *
 * <p>Each runs under the keyspace's exclusive lock (flag {@code EXCLUSIVE}), so it is atomic
 * against every other command and, with a log, one record. SWAPDB rewrites both databases key by
 * key (Redis swaps two pointers): its cost grows with the keys of the two databases.
 *
 * <p>Stateless.
 */
final class KeyTransferCommands {
  private static final String SAME_OBJECT = "ERR source and destination objects are the same";
  private static final String DB_RANGE = "ERR DB index is out of range";

  private KeyTransferCommands() {}

  static void register(RespCommandTable t) {
    t.command("copy", -3)
        .flags(WRITE, DENYOOM, EXCLUSIVE)
        .keys(1, 2, 1)
        .doc(
            "generic",
            "Copies the value of a key to a new key.",
            "source:key destination:key ?destination-db:integer ?replace:pure-token")
        .run(KeyTransferCommands::copy);
    t.command("move", 3)
        .flags(WRITE, FAST, EXCLUSIVE)
        .keys(1, 1, 1)
        .doc("generic", "Moves a key to another database.", "key:key db:integer")
        .run(KeyTransferCommands::move);
    t.command("renamenx", 3)
        .flags(WRITE, FAST, EXCLUSIVE)
        .keys(1, 2, 1)
        .doc(
            "generic",
            "Renames a key only when the target key name doesn't exist.",
            "key:key newkey:key")
        .run(KeyTransferCommands::renamenx);
    t.command("swapdb", 3)
        .flags(WRITE, FAST, EXCLUSIVE)
        .doc("server", "Swaps two Redis databases.", "index1:integer index2:integer")
        .run(KeyTransferCommands::swapdb);
  }

  private static void copy(RespCall c) {
    int db = c.db();
    boolean replace = false;
    for (int i = 3; i < c.argc(); i++) {
      String o = c.option(i);
      if (o.equals("replace")) {
        replace = true;
      } else if (o.equals("db") && i + 1 < c.argc()) {
        db = database(c.integer(++i));
      } else {
        throw new RespError(RespError.SYNTAX);
      }
    }
    if (db == c.db() && Arrays.equals(c.arg(1), c.arg(2))) {
      throw new RespError(SAME_OBJECT);
    }
    Keyspace ks = c.keyspace();
    StoredValue source = ks.get(c.db(), c.arg(1));
    if (source == null || (!replace && ks.peek(db, c.arg(2)) != null)) {
      c.out().integer(0);
      return;
    }
    ks.put(db, c.arg(2), source);
    c.out().integer(1);
  }

  private static void move(RespCall c) {
    int db = database(c.integer(2));
    if (db == c.db()) {
      throw new RespError(SAME_OBJECT);
    }
    Keyspace ks = c.keyspace();
    StoredValue v = ks.peek(c.db(), c.arg(1));
    if (v == null || ks.peek(db, c.arg(1)) != null) {
      c.out().integer(0);
      return;
    }
    ks.put(db, c.arg(1), v);
    ks.delete(c.db(), c.arg(1));
    c.out().integer(1);
  }

  private static void renamenx(RespCall c) {
    Keyspace ks = c.keyspace();
    StoredValue v = ks.peek(c.db(), c.arg(1));
    if (v == null) {
      throw new RespError("ERR no such key");
    }
    if (Arrays.equals(c.arg(1), c.arg(2)) || ks.peek(c.db(), c.arg(2)) != null) {
      c.out().integer(0);
      return;
    }
    ks.put(c.db(), c.arg(2), v);
    ks.delete(c.db(), c.arg(1));
    c.out().integer(1);
  }

  private static void swapdb(RespCall c) {
    int a = index(c, 1, "ERR invalid first DB index");
    int b = index(c, 2, "ERR invalid second DB index");
    if (a != b) {
      Keyspace ks = c.keyspace();
      List<Held> first = take(ks, a);
      List<Held> second = take(ks, b);
      first.forEach(h -> ks.put(b, h.key(), h.value()));
      second.forEach(h -> ks.put(a, h.key(), h.value()));
    }
    c.out().ok();
  }

  /** Removes every live key of a database and returns them. */
  private static List<Held> take(Keyspace ks, int db) {
    List<Held> held = new ArrayList<>();
    ks.forEach(db, (key, value) -> held.add(new Held(key, value)));
    held.forEach(h -> ks.delete(db, h.key()));
    return held;
  }

  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  private record Held(byte[] key, StoredValue value) {}

  private static int index(RespCall c, int i, String notInteger) {
    long db;
    try {
      db = c.integer(i);
    } catch (RespError e) {
      throw new RespError(notInteger);
    }
    return database(db);
  }

  private static int database(long db) {
    if (db < 0 || db >= Keyspace.DATABASES) {
      throw new RespError(DB_RANGE);
    }
    return (int) db;
  }
}
