package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.DENYOOM;
import static dev.larder.server.internal.resp.RespCommand.Flag.READONLY;
import static dev.larder.server.internal.resp.RespCommand.Flag.WRITE;

import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * BITFIELD and BITFIELD_RO: integers of 1 to 64 bits (unsigned up to 63) at any bit offset of a
 * string, read, written and incremented, with Redis 7.0's overflow policies.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Every operation is parsed before anything runs (a bad one fails the whole command, as in
 * Redis). Writes run as one compute of the key: the string is grown to the last bit any write
 * reaches, then each operation applies in order, so a later GET sees an earlier SET. A field is
 * read and written most significant bit first; a signed field is the unsigned one sign-extended.
 * Overflow follows Redis's rules: WRAP keeps the low bits (two's complement for signed fields), SAT
 * clamps to the type's range, FAIL leaves the field and answers null. A SET counts as an increment
 * of 0 to the new value, so an out-of-range value is wrapped or clamped too.
 *
 * <p>Stateless.
 */
final class BitfieldCommand {
  private static final String BAD_TYPE =
      "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but"
          + " i64 is.";

  private BitfieldCommand() {}

  static void register(RespCommandTable t) {
    String args = "key:key ?operation:block*";
    t.command("bitfield", -2)
        .flags(WRITE, DENYOOM)
        .keys(1, 1, 1)
        .doc("bitmap", "Performs arbitrary bitfield integer operations on strings.", args)
        .run(c -> bitfield(c, false));
    t.command("bitfield_ro", -2)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc(
            "bitmap",
            "Performs arbitrary read-only bitfield integer operations on strings.",
            "key:key ?get-block:block*")
        .run(c -> bitfield(c, true));
  }

  private enum Kind {
    GET,
    SET,
    INCRBY
  }

  private enum Overflow {
    WRAP,
    SAT,
    FAIL
  }

  private record Op(Kind kind, boolean signed, int bits, long offset, long value, Overflow ow) {}

  private static void bitfield(RespCall c, boolean readOnlyCommand) {
    List<Op> ops = new ArrayList<>();
    Overflow ow = Overflow.WRAP;
    long highest = -1;
    for (int j = 2; j < c.argc(); j++) {
      int remaining = c.argc() - j - 1;
      String sub = c.option(j);
      Kind kind;
      if (sub.equals("get") && remaining >= 2) {
        kind = Kind.GET;
      } else if (sub.equals("set") && remaining >= 3) {
        kind = Kind.SET;
      } else if (sub.equals("incrby") && remaining >= 3) {
        kind = Kind.INCRBY;
      } else if (sub.equals("overflow") && remaining >= 1) {
        ow =
            switch (c.option(++j)) {
              case "wrap" -> Overflow.WRAP;
              case "sat" -> Overflow.SAT;
              case "fail" -> Overflow.FAIL;
              default -> throw new RespError("ERR Invalid OVERFLOW type specified");
            };
        continue;
      } else {
        throw new RespError(RespError.SYNTAX);
      }
      String type = c.text(j + 1);
      boolean signed = type.startsWith("i") || type.startsWith("I");
      int bits = bits(type);
      long offset = offset(c, j + 2, bits);
      long value = 0;
      if (kind != Kind.GET) {
        highest = Math.max(highest, offset + bits - 1);
        value = c.integer(j + 3);
      }
      ops.add(new Op(kind, signed, bits, offset, value, ow));
      j += kind == Kind.GET ? 2 : 3;
    }
    if (highest < 0) {
      StoredValue v = c.string(1);
      byte[] s = v == null ? new byte[0] : v.payload();
      c.out().array(ops.size());
      for (Op op : ops) {
        c.out().integer(read(s, op));
      }
      return;
    }
    if (readOnlyCommand) {
      throw new RespError("ERR BITFIELD_RO only supports the GET subcommand");
    }
    long size = (highest >> 3) + 1;
    Long[][] replies = new Long[1][];
    c.keyspace()
        .update(
            c.db(),
            c.arg(1),
            before -> {
              byte[] old =
                  RespCall.requireType(before, ValueType.STRING) == null
                      ? new byte[0]
                      : before.payload();
              byte[] s = Arrays.copyOf(old, (int) Math.max(old.length, size));
              replies[0] = apply(s, ops);
              if (before != null && Arrays.equals(s, old)) {
                return before;
              }
              return before == null ? StoredValue.string(s) : before.withPayload(s);
            });
    c.out().array(replies[0].length);
    for (Long r : replies[0]) {
      if (r == null) {
        c.out().nullValue();
      } else {
        c.out().integer(r);
      }
    }
  }

  /** Runs the operations on s in order; a FAIL overflow answers null. */
  private static Long[] apply(byte[] s, List<Op> ops) {
    Long[] replies = new Long[ops.size()];
    for (int i = 0; i < ops.size(); i++) {
      Op op = ops.get(i);
      if (op.kind() == Kind.GET) {
        replies[i] = read(s, op);
        continue;
      }
      long old = read(s, op);
      long[] limit = new long[1];
      boolean overflow;
      long next;
      if (op.kind() == Kind.INCRBY) {
        overflow = overflows(old, op.value(), op, limit);
        next = overflow ? limit[0] : old + op.value();
      } else {
        overflow = overflows(op.value(), 0, op, limit);
        next = overflow ? limit[0] : op.value();
      }
      if (overflow && op.ow() == Overflow.FAIL) {
        replies[i] = null;
        continue;
      }
      write(s, op.offset(), op.bits(), next);
      replies[i] = op.kind() == Kind.INCRBY ? next : old;
    }
    return replies;
  }

  private static int bits(String type) {
    if (type.length() < 2) {
      throw new RespError(BAD_TYPE);
    }
    char sign = Character.toLowerCase(type.charAt(0));
    if (sign != 'i' && sign != 'u') {
      throw new RespError(BAD_TYPE);
    }
    long bits;
    try {
      bits =
          RespCall.parseLong(
              type.substring(1).getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
    } catch (RespError e) {
      throw new RespError(BAD_TYPE);
    }
    if (bits < 1 || (sign == 'i' && bits > 64) || (sign == 'u' && bits > 63)) {
      throw new RespError(BAD_TYPE);
    }
    return (int) bits;
  }

  /** An offset in bits, or {@code #n} for the n-th field of this width. */
  private static long offset(RespCall c, int i, int bits) {
    byte[] word = c.arg(i);
    boolean field = word.length > 0 && word[0] == '#';
    long n;
    try {
      n = RespCall.parseLong(field ? Arrays.copyOfRange(word, 1, word.length) : word);
    } catch (RespError e) {
      throw new RespError("ERR bit offset is not an integer or out of range");
    }
    if (field) {
      n *= bits;
    }
    if (n < 0 || (n >> 3) >= c.server().config().maxRequestBytes()) {
      throw new RespError("ERR bit offset is not an integer or out of range");
    }
    return n;
  }

  /** The field's value: unsigned, or sign-extended when signed. Bits past s read as zero. */
  private static long read(byte[] s, Op op) {
    long v = 0;
    for (int k = 0; k < op.bits(); k++) {
      long bit = op.offset() + k;
      int b = bit >> 3 < s.length ? (s[(int) (bit >> 3)] >>> (7 - (bit & 7))) & 1 : 0;
      v = (v << 1) | b;
    }
    if (op.signed() && op.bits() < 64 && (v & (1L << (op.bits() - 1))) != 0) {
      v |= -1L << op.bits();
    }
    return v;
  }

  private static void write(byte[] s, long offset, int bits, long value) {
    for (int k = 0; k < bits; k++) {
      long bit = offset + k;
      int mask = 0x80 >>> (bit & 7);
      boolean on = ((value >>> (bits - 1 - k)) & 1) != 0;
      int at = (int) (bit >> 3);
      s[at] = (byte) (on ? s[at] | mask : s[at] & ~mask);
    }
  }

  /**
   * Whether value + incr leaves the field's range; if so, limit[0] gets what WRAP or SAT stores.
   */
  private static boolean overflows(long value, long incr, Op op, long[] limit) {
    return op.signed()
        ? signedOverflow(value, incr, op.bits(), op.ow(), limit)
        : unsignedOverflow(value, incr, op.bits(), op.ow(), limit);
  }

  private static boolean unsignedOverflow(
      long value, long incr, int bits, Overflow ow, long[] limit) {
    long max = (1L << bits) - 1;
    long maxIncr = max - value;
    long minIncr = -value;
    if (Long.compareUnsigned(value, max) > 0 || (incr > 0 && incr > maxIncr)) {
      limit[0] = ow == Overflow.WRAP ? (value + incr) & max : max;
      return true;
    }
    if (incr < 0 && incr < minIncr) {
      limit[0] = ow == Overflow.WRAP ? (value + incr) & max : 0;
      return true;
    }
    return false;
  }

  private static boolean signedOverflow(
      long value, long incr, int bits, Overflow ow, long[] limit) {
    long max = bits == 64 ? Long.MAX_VALUE : (1L << (bits - 1)) - 1;
    long min = -max - 1;
    long maxIncr = max - value;
    long minIncr = min - value;
    if (value > max
        || (bits != 64 && incr > maxIncr)
        || (value >= 0 && incr > 0 && incr > maxIncr)) {
      limit[0] = ow == Overflow.WRAP ? wrapSigned(value + incr, bits) : max;
      return true;
    }
    if (value < min
        || (bits != 64 && incr < minIncr)
        || (value < 0 && incr < 0 && incr < minIncr)) {
      limit[0] = ow == Overflow.WRAP ? wrapSigned(value + incr, bits) : min;
      return true;
    }
    return false;
  }

  private static long wrapSigned(long c, int bits) {
    if (bits == 64) {
      return c;
    }
    long mask = -1L << bits;
    return (c & (1L << (bits - 1))) != 0 ? c | mask : c & ~mask;
  }
}
