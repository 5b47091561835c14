package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.DENYOOM;
import static dev.larder.server.internal.resp.RespCommand.Flag.EXCLUSIVE;
import static dev.larder.server.internal.resp.RespCommand.Flag.FAST;
import static dev.larder.server.internal.resp.RespCommand.Flag.READONLY;
import static dev.larder.server.internal.resp.RespCommand.Flag.WRITE;

import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueLayout;
import dev.larder.server.internal.keyspace.ValueType;
import dev.larder.server.internal.net.Decimal;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** The string commands: GET, SET and their family, ranges and counters. Stateless. */
final class StringCommands {
  private StringCommands() {}

  static void register(RespCommandTable t) {
    t.command("get", 2)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc("string", "Returns the string value of a key.", "key:key")
        .run(StringCommands::get);
    t.command("set", -3)
        .flags(WRITE, DENYOOM)
        .keys(1, 1, 1)
        .doc(
            "string",
            "Sets the string value of a key, ignoring its type.",
            "key:key value:string ?condition:oneof ?get:pure-token ?expiration:oneof")
        .run(StringCommands::set);
    t.command("getex", -2)
        .flags(WRITE, FAST)
        .keys(1, 1, 1)
        .doc(
            "string",
            "Returns the string value of a key after setting its expiration time.",
            "key:key ?expiration:oneof")
        .run(StringCommands::getex);
    t.command("getdel", 2)
        .flags(WRITE, FAST)
        .keys(1, 1, 1)
        .doc("string", "Returns the string value of a key after deleting the key.", "key:key")
        .run(StringCommands::getdel);
    t.command("getset", 3)
        .flags(WRITE, DENYOOM, FAST)
        .keys(1, 1, 1)
        .doc(
            "string",
            "Returns the previous string value of a key after setting it to a new value.",
            "key:key value:string")
        .run(StringCommands::getset);
    t.command("mget", -2)
        .flags(READONLY, FAST)
        .keys(1, -1, 1)
        .doc("string", "Atomically returns the string values of one or more keys.", "key:key*")
        .run(StringCommands::mget);
    t.command("mset", -3)
        .flags(WRITE, DENYOOM, EXCLUSIVE)
        .keys(1, -1, 2)
        .doc(
            "string",
            "Atomically creates or modifies the string values of one or more keys.",
            "data:block*")
        .run(c -> msetnx(c, false));
    t.command("msetnx", -3)
        .flags(WRITE, DENYOOM, EXCLUSIVE)
        .keys(1, -1, 2)
        .doc(
            "string",
            "Atomically modifies the string values of one or more keys only when all"
                + " keys don't exist.",
            "data:block*")
        .run(c -> msetnx(c, true));
    t.command("setnx", 3)
        .flags(WRITE, DENYOOM, FAST)
        .keys(1, 1, 1)
        .doc(
            "string",
            "Set the string value of a key only when the key doesn't exist.",
            "key:key value:string")
        .run(c -> c.out().integer(setIfAbsent(c) ? 1 : 0));
    t.command("setex", 4)
        .flags(WRITE, DENYOOM)
        .keys(1, 1, 1)
        .doc(
            "string",
            "Sets the string value and expiration time of a key.",
            "key:key seconds:integer value:string")
        .run(c -> setWithExpiry(c, 1000));
    t.command("psetex", 4)
        .flags(WRITE, DENYOOM)
        .keys(1, 1, 1)
        .doc(
            "string",
            "Sets both string value and expiration time in milliseconds of a key.",
            "key:key milliseconds:integer value:string")
        .run(c -> setWithExpiry(c, 1));
    t.command("append", 3)
        .flags(WRITE, DENYOOM, FAST)
        .keys(1, 1, 1)
        .doc(
            "string",
            "Appends a string to the value of a key. Creates the key if needed.",
            "key:key value:string")
        .run(StringCommands::append);
    t.command("strlen", 2)
        .flags(READONLY, FAST)
        .keys(1, 1, 1)
        .doc("string", "Returns the length of a string value.", "key:key")
        .run(c -> c.out().integer(payload(c.string(1)) == null ? 0 : c.string(1).payload().length));
    t.command("getrange", 4)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc(
            "string",
            "Returns a substring of the string stored at a key.",
            "key:key start:integer end:integer")
        .run(StringCommands::getrange);
    t.command("substr", 4)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc(
            "string",
            "Returns a substring from string stored at key.",
            "key:key start:integer end:integer")
        .run(StringCommands::getrange);
    t.command("setrange", 4)
        .flags(WRITE, DENYOOM)
        .keys(1, 1, 1)
        .doc(
            "string",
            "Overwrites a part of a string value with another by an offset.",
            "key:key offset:integer value:string")
        .run(StringCommands::setrange);
    t.command("incr", 2)
        .flags(WRITE, DENYOOM, FAST)
        .keys(1, 1, 1)
        .doc("string", "Increments the integer value of a key by one.", "key:key")
        .run(c -> incrBy(c, 1));
    t.command("decr", 2)
        .flags(WRITE, DENYOOM, FAST)
        .keys(1, 1, 1)
        .doc("string", "Decrements the integer value of a key by one.", "key:key")
        .run(c -> incrBy(c, -1));
    t.command("incrby", 3)
        .flags(WRITE, DENYOOM, FAST)
        .keys(1, 1, 1)
        .doc(
            "string",
            "Increments the integer value of a key by a number.",
            "key:key increment:integer")
        .run(c -> incrBy(c, c.integer(2)));
    t.command("decrby", 3)
        .flags(WRITE, DENYOOM, FAST)
        .keys(1, 1, 1)
        .doc(
            "string",
            "Decrements a number from the integer value of a key.",
            "key:key decrement:integer")
        .run(StringCommands::decrBy);
    t.command("incrbyfloat", 3)
        .flags(WRITE, DENYOOM, FAST)
        .keys(1, 1, 1)
        .doc(
            "string",
            "Increment the floating point value of a key by a number.",
            "key:key increment:double")
        .run(StringCommands::incrByFloat);
  }

  static byte[] payload(StoredValue v) {
    return v == null ? null : v.payload();
  }

  /** Writes the stored bytes' payload straight into the reply, with no decoded copy. */
  private static void get(RespCall c) {
    byte[] stored = c.keyspace().getStored(c.db(), c.arg(1));
    if (stored == null) {
      c.out().nullValue();
      return;
    }
    ValueLayout.Header h = ValueLayout.header(stored);
    if (h.type() != ValueType.STRING) {
      throw new RespError(RespError.WRONGTYPE);
    }
    c.out().bulk(stored, h.payloadOffset(), stored.length - h.payloadOffset());
  }

  @SuppressWarnings("ReferenceEquality") // an update that returns its input made no change
  private static void set(RespCall c) {
    if (c.argc() == 3) {
      // The common case needs no read of the old value: a plain put, not a compute.
      c.keyspace().putString(c.db(), c.arg(1), c.arg(2));
      c.out().ok();
      return;
    }
    ExpiryOption expiry = ExpiryOption.NONE;
    boolean nx = false;
    boolean xx = false;
    boolean get = false;
    for (int i = 3; i < c.argc(); i++) {
      String o = c.option(i);
      switch (o) {
        case "nx" -> nx = true;
        case "xx" -> xx = true;
        case "get" -> get = true;
        default -> {
          if (!expiry.equals(ExpiryOption.NONE)) {
            throw new RespError(RespError.SYNTAX);
          }
          expiry = ExpiryOption.parse(c, i, false);
          i += expiry.words() - 1;
        }
      }
    }
    if (nx && xx) {
      throw new RespError(RespError.SYNTAX);
    }
    ExpiryOption exp = expiry;
    boolean onlyNew = nx;
    boolean onlyOld = xx;
    boolean withGet = get;
    long now = c.keyspace().now();
    Keyspace.Change change =
        c.keyspace()
            .update(
                c.db(),
                c.arg(1),
                before -> {
                  if (withGet) {
                    RespCall.requireType(before, ValueType.STRING);
                  }
                  if ((onlyNew && before != null) || (onlyOld && before == null)) {
                    return before;
                  }
                  long when =
                      exp.keepTtl()
                          ? (before == null ? 0 : before.expiresAtMillis())
                          : exp.absoluteMillis(now);
                  return new StoredValue(ValueType.STRING, 0, when, 0, c.arg(2));
                });
    if (withGet) {
      c.out().bulk(payload(change.before()));
    } else if (change.after() == change.before()) {
      c.out().nullValue();
    } else {
      c.out().ok();
    }
  }

  private static void getex(RespCall c) {
    ExpiryOption expiry = ExpiryOption.NONE;
    boolean persist = false;
    for (int i = 2; i < c.argc(); i++) {
      if (!expiry.equals(ExpiryOption.NONE) || persist) {
        throw new RespError(RespError.SYNTAX);
      }
      if (c.option(i).equals("persist")) {
        persist = true;
      } else {
        expiry = ExpiryOption.parse(c, i, true);
        i += expiry.words() - 1;
      }
    }
    if (expiry.equals(ExpiryOption.NONE) && !persist) {
      c.out().bulk(payload(c.string(1)));
      return;
    }
    long when = persist ? 0 : expiry.absoluteMillis(c.keyspace().now());
    Keyspace.Change change =
        c.keyspace()
            .update(
                c.db(),
                c.arg(1),
                before ->
                    RespCall.requireType(before, ValueType.STRING) == null
                        ? null
                        : before.withExpiry(when));
    c.out().bulk(payload(change.before()));
  }

  private static void getdel(RespCall c) {
    Keyspace.Change change =
        c.keyspace()
            .update(
                c.db(),
                c.arg(1),
                before -> {
                  RespCall.requireType(before, ValueType.STRING); // WRONGTYPE for another type
                  return null; // delete
                });
    c.out().bulk(payload(change.before()));
  }

  /** SET's GET without options: the value is replaced whole, its expiry dropped. */
  private static void getset(RespCall c) {
    Keyspace.Change change =
        c.keyspace()
            .update(
                c.db(),
                c.arg(1),
                before -> {
                  RespCall.requireType(before, ValueType.STRING);
                  return StoredValue.string(c.arg(2));
                });
    c.out().bulk(payload(change.before()));
  }

  private static void mget(RespCall c) {
    c.out().array(c.argc() - 1);
    for (int i = 1; i < c.argc(); i++) {
      StoredValue v = c.keyspace().get(c.db(), c.arg(i));
      c.out().bulk(v == null || v.type() != ValueType.STRING ? null : v.payload());
    }
  }

  private static void msetnx(RespCall c, boolean onlyIfNoneExist) {
    if (c.argc() % 2 == 0) {
      throw c.arityError();
    }
    if (onlyIfNoneExist) {
      for (int i = 1; i < c.argc(); i += 2) {
        if (c.keyspace().peek(c.db(), c.arg(i)) != null) {
          c.out().integer(0);
          return;
        }
      }
    }
    for (int i = 1; i < c.argc(); i += 2) {
      // A plain string without expiry, as SET's common case: encoded straight from the argument.
      c.keyspace().putString(c.db(), c.arg(i), c.arg(i + 1));
    }
    if (onlyIfNoneExist) {
      c.out().integer(1);
    } else {
      c.out().ok();
    }
  }

  private static boolean setIfAbsent(RespCall c) {
    Keyspace.Change change =
        c.keyspace()
            .update(
                c.db(), c.arg(1), before -> before != null ? before : StoredValue.string(c.arg(2)));
    return change.before() == null;
  }

  private static void setWithExpiry(RespCall c, long unitMillis) {
    long amount = c.integer(2);
    if (amount <= 0 || amount > Long.MAX_VALUE / unitMillis - c.keyspace().now()) {
      throw new RespError("ERR invalid expire time in '" + c.name() + "' command");
    }
    long when = c.keyspace().now() + amount * unitMillis;
    c.keyspace().put(c.db(), c.arg(1), StoredValue.string(c.arg(3)).withExpiry(when));
    c.out().ok();
  }

  private static void append(RespCall c) {
    byte[] suffix = c.arg(2);
    Keyspace.Change change =
        c.keyspace()
            .update(
                c.db(),
                c.arg(1),
                before -> {
                  if (RespCall.requireType(before, ValueType.STRING) == null) {
                    return StoredValue.string(suffix);
                  }
                  checkSize(c, (long) before.payload().length + suffix.length);
                  byte[] joined =
                      Arrays.copyOf(before.payload(), before.payload().length + suffix.length);
                  System.arraycopy(suffix, 0, joined, before.payload().length, suffix.length);
                  return before.withPayload(joined);
                });
    c.out().integer(change.after().payload().length);
  }

  private static void getrange(RespCall c) {
    long start = c.integer(2);
    long end = c.integer(3);
    StoredValue v = c.string(1);
    byte[] s = v == null ? new byte[0] : v.payload();
    long len = s.length;
    if (start < 0 && end < 0 && start > end) {
      c.out().bulk(new byte[0]);
      return;
    }
    start = start < 0 ? Math.max(0, len + start) : start;
    end = end < 0 ? Math.max(0, len + end) : end;
    end = Math.min(end, len - 1);
    if (len == 0 || start > end) {
      c.out().bulk(new byte[0]);
      return;
    }
    c.out().bulk(Arrays.copyOfRange(s, (int) start, (int) end + 1));
  }

  private static void setrange(RespCall c) {
    long offset = c.integer(2);
    byte[] patch = c.arg(3);
    if (offset < 0) {
      throw new RespError("ERR offset is out of range");
    }
    if (patch.length == 0) {
      StoredValue v = c.string(1);
      c.out().integer(v == null ? 0 : v.payload().length);
      return;
    }
    // offset + length overflows at the top of the long range: compare without adding.
    if (offset > c.server().config().maxRequestBytes() - patch.length) {
      throw new RespError(TOO_LARGE);
    }
    Keyspace.Change change =
        c.keyspace()
            .update(
                c.db(),
                c.arg(1),
                before -> {
                  byte[] old =
                      RespCall.requireType(before, ValueType.STRING) == null
                          ? new byte[0]
                          : before.payload();
                  byte[] next =
                      Arrays.copyOf(old, (int) Math.max(old.length, offset + patch.length));
                  System.arraycopy(patch, 0, next, (int) offset, patch.length);
                  return before == null ? StoredValue.string(next) : before.withPayload(next);
                });
    c.out().integer(change.after().payload().length);
  }

  private static final String TOO_LARGE =
      "ERR string exceeds maximum allowed size (proto-max-bulk-len)";

  private static void checkSize(RespCall c, long size) {
    if (size > c.server().config().maxRequestBytes()) {
      throw new RespError(TOO_LARGE);
    }
  }

  private static void decrBy(RespCall c) {
    long by = c.integer(2);
    if (by == Long.MIN_VALUE) {
      throw new RespError("ERR decrement would overflow");
    }
    incrBy(c, -by);
  }

  private static void incrBy(RespCall c, long by) {
    Keyspace.Change change =
        c.keyspace()
            .update(
                c.db(),
                c.arg(1),
                before -> {
                  long old =
                      RespCall.requireType(before, ValueType.STRING) == null
                          ? 0
                          : RespCall.parseLong(before.payload());
                  long next;
                  try {
                    next = Math.addExact(old, by);
                  } catch (ArithmeticException e) {
                    throw new RespError("ERR increment or decrement would overflow");
                  }
                  byte[] text = Decimal.ascii(next);
                  return before == null ? StoredValue.string(text) : before.withPayload(text);
                });
    // The stored text is the new value's strict decimal: written as it is, not parsed again.
    c.out().integerText(change.after().payload());
  }

  private static void incrByFloat(RespCall c) {
    BigDecimal by = parseFloat(c.arg(2));
    Keyspace.Change change =
        c.keyspace()
            .update(
                c.db(),
                c.arg(1),
                before -> {
                  BigDecimal old =
                      RespCall.requireType(before, ValueType.STRING) == null
                          ? BigDecimal.ZERO
                          : parseFloat(before.payload());
                  byte[] text = formatFloat(old.add(by)).getBytes(StandardCharsets.ISO_8859_1);
                  return before == null ? StoredValue.string(text) : before.withPayload(text);
                });
    c.out().bulk(change.after().payload());
  }

  /**
   * Parses a float argument or value; decimal arithmetic keeps 10.1 + 0.2 = 10.3, as Redis's long
   * doubles do.
   */
  private static final java.util.regex.Pattern INFINITY =
      java.util.regex.Pattern.compile("[+-]?inf(inity)?", java.util.regex.Pattern.CASE_INSENSITIVE);

  static BigDecimal parseFloat(byte[] b) {
    String s = new String(b, StandardCharsets.ISO_8859_1);
    if (s.isEmpty()
        || s.length() > 5000
        || Character.isWhitespace(s.charAt(0))
        || Character.isWhitespace(s.charAt(s.length() - 1))) {
      throw new RespError("ERR value is not a valid float");
    }
    if (INFINITY.matcher(s).matches()) {
      // Redis parses an infinity (strtold does) and then refuses the result it would give.
      throw new RespError("ERR increment would produce NaN or Infinity");
    }
    try {
      BigDecimal d = new BigDecimal(s);
      if (Math.abs(d.scale()) > 4000) {
        throw new RespError("ERR increment would produce NaN or Infinity");
      }
      return d;
    } catch (NumberFormatException e) {
      throw new RespError("ERR value is not a valid float");
    }
  }

  static String formatFloat(BigDecimal d) {
    if (Double.isInfinite(d.doubleValue())) {
      throw new RespError("ERR increment would produce NaN or Infinity");
    }
    BigDecimal rounded = d.round(new MathContext(17)).stripTrailingZeros();
    return rounded.signum() == 0 ? "0" : rounded.toPlainString();
  }
}
