package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.DENYOOM;
import static dev.larder.server.internal.resp.RespCommand.Flag.FAST;
import static dev.larder.server.internal.resp.RespCommand.Flag.READONLY;
import static dev.larder.server.internal.resp.RespCommand.Flag.WRITE;

import dev.larder.server.internal.keyspace.ValueType;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;

/** The hash commands on one field: HSETNX, HSTRLEN, HINCRBYFLOAT; and HRANDFIELD. Stateless. */
final class HashFieldCommands {
  private HashFieldCommands() {}

  static void register(RespCommandTable t) {
    t.command("hsetnx", 4)
        .flags(WRITE, DENYOOM, FAST)
        .keys(1, 1, 1)
        .doc(
            "hash",
            "Sets the value of a field in a hash only when the field doesn't exist.",
            "key:key field:string value:string")
        .run(HashFieldCommands::hsetnx);
    t.command("hstrlen", 3)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc("hash", "Returns the length of the value of a field.", "key:key field:string")
        .run(
            c -> {
              byte[] v = HashCommands.read(c, h -> h.get(c.arg(2)), null);
              c.out().integer(v == null ? 0 : v.length);
            });
    t.command("hincrbyfloat", 4)
        .flags(WRITE, DENYOOM, FAST)
        .keys(1, 1, 1)
        .doc(
            "hash",
            "Increments the floating point value of a field by a number.",
            "key:key field:string increment:double")
        .run(HashFieldCommands::hincrbyfloat);
    t.command("hrandfield", -2)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc("hash", "Returns one or more random fields from a hash.", "key:key ?options:block")
        .run(HashFieldCommands::hrandfield);
  }

  private static void hsetnx(RespCall c) {
    boolean set =
        c.keyspace()
            .editHash(
                c.db(),
                c.arg(1),
                (before, hash) -> {
                  RespCall.requireType(before, ValueType.HASH);
                  return !hash.contains(c.arg(2)) && hash.put(c.arg(2), c.arg(3));
                });
    c.out().integer(set ? 1 : 0);
  }

  private static void hincrbyfloat(RespCall c) {
    BigDecimal by;
    try {
      by = StringCommands.parseFloat(c.arg(3));
    } catch (RespError e) {
      throw e.getMessage().contains("NaN") ? new RespError("ERR value is NaN or Infinity") : e;
    }
    byte[] field = c.arg(2);
    byte[] result =
        c.keyspace()
            .editHash(
                c.db(),
                c.arg(1),
                (before, hash) -> {
                  RespCall.requireType(before, ValueType.HASH);
                  byte[] old = hash.get(field);
                  BigDecimal current = old == null ? BigDecimal.ZERO : storedFloat(old);
                  byte[] next =
                      StringCommands.formatFloat(current.add(by))
                          .getBytes(StandardCharsets.ISO_8859_1);
                  hash.put(field, next);
                  return next;
                });
    c.out().bulk(result);
  }

  private static BigDecimal storedFloat(byte[] value) {
    try {
      return StringCommands.parseFloat(value);
    } catch (RespError e) {
      if (e.getMessage().contains("NaN")) {
        throw e;
      }
      throw new RespError("ERR hash value is not a float");
    }
  }

  private static void hrandfield(RespCall c) {
    if (c.argc() == 2) {
      byte[] field = HashCommands.read(c, h -> h.randomKey(ThreadLocalRandom.current()), null);
      if (field == null) {
        c.out().nullValue();
      } else {
        c.out().bulk(field);
      }
      return;
    }
    long count = c.integer(2);
    if (count == Long.MIN_VALUE) {
      throw new RespError(
          "ERR value is out of range, value must between -9223372036854775807 and"
              + " 9223372036854775807");
    }
    boolean withValues = false;
    if (c.argc() > 4 || (c.argc() == 4 && !c.option(3).equals("withvalues"))) {
      throw new RespError(RespError.SYNTAX);
    } else if (c.argc() == 4) {
      withValues = true;
      if (count < -Long.MAX_VALUE / 2 || count > Long.MAX_VALUE / 2) {
        throw new RespError("ERR value is out of range");
      }
    }
    // Independent picks at most Integer.MAX_VALUE / 2, drawn by the reply's writer: the output
    // limit stops a huge count.
    long bounded = Math.max(count, -(Integer.MAX_VALUE / 2));
    RandomPicks<byte[][]> picks =
        HashCommands.read(c, h -> RandomPicks.of(h.size(), bounded, h::entry, h::entries), null);
    long n = picks == null ? 0 : picks.count();
    RespWriter out = c.out();
    boolean pairs = withValues && out.protocol() > 2;
    out.array((int) (withValues && !pairs ? n * 2 : n));
    for (long i = 0; i < n; i++) {
      byte[][] e = picks.pick(i);
      if (pairs) {
        out.array(2);
      }
      out.bulk(e[0]);
      if (withValues) {
        out.bulk(e[1]);
      }
    }
  }
}
