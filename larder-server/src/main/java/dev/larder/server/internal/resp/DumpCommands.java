package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.DENYOOM;
import static dev.larder.server.internal.resp.RespCommand.Flag.EXCLUSIVE;
import static dev.larder.server.internal.resp.RespCommand.Flag.READONLY;
import static dev.larder.server.internal.resp.RespCommand.Flag.WRITE;

import dev.larder.server.internal.keyspace.DumpPayload;
import dev.larder.server.internal.keyspace.StoredValue;

/**
 * DUMP and RESTORE, with Larder's own payload ({@link DumpPayload}): a value dumped by Larder
 * restores on Larder; a payload from Redis (or anything else) is refused with Redis's own error for
 * a payload of another version. Options, checks and replies are Redis 7.0's; IDLETIME and FREQ are
 * checked and then ignored, as Larder keeps neither per key. RESTORE runs under the keyspace's
 * exclusive lock: a large collection is written in chunks, several changes of the key that no other
 * command may see half done ({@code Keyspace.restoreKey}).
 *
 * <p>Stateless.
 */
final class DumpCommands {
  private DumpCommands() {}

  static void register(RespCommandTable t) {
    t.command("dump", 2)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc(
            "generic",
            "Returns a serialized representation of the value stored at a key.",
            "key:key")
        .run(
            c -> {
              StoredValue v = c.keyspace().get(c.db(), c.arg(1));
              c.out().bulk(v == null ? null : DumpPayload.encode(v));
            });
    t.command("restore", -4)
        .flags(WRITE, DENYOOM, EXCLUSIVE)
        .keys(1, 1, 1)
        .doc(
            "generic",
            "Creates a key from the serialized representation of a value.",
            "key:key ttl:integer serialized-value:string ?replace:pure-token"
                + " ?absttl:pure-token ?seconds:integer ?frequency:integer")
        .run(DumpCommands::restore);
  }

  private static void restore(RespCall c) {
    boolean replace = false;
    boolean absolute = false;
    boolean idle = false;
    boolean freq = false;
    for (int i = 4; i < c.argc(); i++) {
      boolean more = i + 1 < c.argc();
      String option = c.option(i);
      if (option.equals("replace")) {
        replace = true;
      } else if (option.equals("absttl")) {
        absolute = true;
      } else if (option.equals("idletime") && more && !freq) {
        idle = true;
        if (c.integer(++i) < 0) {
          throw new RespError("ERR Invalid IDLETIME value, must be >= 0");
        }
      } else if (option.equals("freq") && more && !idle) {
        freq = true;
        long f = c.integer(++i);
        if (f < 0 || f > 255) {
          throw new RespError("ERR Invalid FREQ value, must be >= 0 and <= 255");
        }
      } else {
        throw new RespError(RespError.SYNTAX);
      }
    }
    // The header alone: a chunked collection is not read to see that it is there.
    if (!replace && c.keyspace().peekHeader(c.db(), c.arg(1)) != null) {
      throw new RespError(BUSYKEY);
    }
    long ttl = c.integer(2);
    if (ttl < 0) {
      throw new RespError("ERR Invalid TTL value, must be >= 0");
    }
    StoredValue value =
        switch (DumpPayload.check(c.arg(3))) {
          case OK -> DumpPayload.decode(c.arg(3));
          case CORRUPT -> throw new RespError("ERR DUMP payload version or checksum are wrong");
          case BAD_FORMAT -> throw new RespError("ERR Bad data format");
        };
    long now = c.keyspace().now();
    long when = ttl == 0 ? 0 : absolute ? ttl : saturatedAdd(now, ttl);
    if (when != 0 && when <= now) {
      // A deadline already past stores nothing, and REPLACE still removes the old value.
      if (replace) {
        c.keyspace().delete(c.db(), c.arg(1));
      }
    } else if (!c.keyspace().restoreKey(c.db(), c.arg(1), value.withExpiry(when), replace)) {
      throw new RespError(BUSYKEY);
    }
    c.out().ok();
  }

  private static final String BUSYKEY = "BUSYKEY Target key name already exists.";

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }
}
