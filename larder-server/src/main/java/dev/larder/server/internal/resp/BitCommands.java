package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.DENYOOM;
import static dev.larder.server.internal.resp.RespCommand.Flag.EXCLUSIVE;
import static dev.larder.server.internal.resp.RespCommand.Flag.READONLY;
import static dev.larder.server.internal.resp.RespCommand.Flag.WRITE;

import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import java.util.Arrays;

/**
 * The bitmap commands over strings: SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP. Bit 0 is the most
 * significant bit of the first byte, as in Redis; a missing key is an empty string, which reads as
 * all zero bits.
 *
 * <p>Stateless.
 */
final class BitCommands {
  private static final String BAD_OFFSET = "ERR bit offset is not an integer or out of range";

  private BitCommands() {}

  static void register(RespCommandTable t) {
    t.command("setbit", 4)
        .flags(WRITE, DENYOOM)
        .keys(1, 1, 1)
        .doc(
            "bitmap",
            "Sets or clears the bit at offset of the string value. Creates the key if it doesn't"
                + " exist.",
            "key:key offset:integer value:integer")
        .run(BitCommands::setbit);
    t.command("getbit", 3)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc("bitmap", "Returns a bit value by offset.", "key:key offset:integer")
        .run(BitCommands::getbit);
    t.command("bitcount", -2)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc(
            "bitmap",
            "Counts the number of set bits (population counting) in a string.",
            "key:key ?range:block")
        .run(BitCommands::bitcount);
    t.command("bitpos", -3)
        .flags(READONLY)
        .keys(1, 1, 1)
        .doc(
            "bitmap",
            "Finds the first set (1) or clear (0) bit in a string.",
            "key:key bit:integer ?range:block")
        .run(BitCommands::bitpos);
    t.command("bitop", -4)
        .flags(WRITE, DENYOOM, EXCLUSIVE)
        .keys(2, -1, 1)
        .doc(
            "bitmap",
            "Performs bitwise operations on multiple strings, and stores the result.",
            "operation:oneof destkey:key key:key*")
        .run(BitCommands::bitop);
  }

  private static long offset(RespCall c, int i) {
    long offset;
    try {
      offset = c.integer(i);
    } catch (RespError e) {
      throw new RespError(BAD_OFFSET);
    }
    if (offset < 0 || (offset >> 3) >= c.server().config().maxRequestBytes()) {
      throw new RespError(BAD_OFFSET);
    }
    return offset;
  }

  private static void setbit(RespCall c) {
    long offset = offset(c, 2);
    byte[] word = c.arg(3);
    if (word.length != 1 || (word[0] != '0' && word[0] != '1')) {
      throw new RespError("ERR bit is not an integer or out of range");
    }
    boolean on = word[0] == '1';
    int index = (int) (offset >> 3);
    int mask = 0x80 >>> (offset & 7);
    int[] old = new int[1];
    c.keyspace()
        .update(
            c.db(),
            c.arg(1),
            before -> {
              byte[] bytes =
                  RespCall.requireType(before, ValueType.STRING) == null
                      ? new byte[0]
                      : before.payload();
              old[0] = index < bytes.length && (bytes[index] & mask) != 0 ? 1 : 0;
              if (before != null && index < bytes.length && old[0] == (on ? 1 : 0)) {
                // Unchanged: no new version and, with a log, no record (Redis does not count
                // it as a change either).
                return before;
              }
              byte[] next = Arrays.copyOf(bytes, Math.max(bytes.length, index + 1));
              next[index] = (byte) (on ? next[index] | mask : next[index] & ~mask);
              return before == null ? StoredValue.string(next) : before.withPayload(next);
            });
    c.out().integer(old[0]);
  }

  private static void getbit(RespCall c) {
    long offset = offset(c, 2);
    StoredValue v = c.string(1);
    byte[] bytes = v == null ? new byte[0] : v.payload();
    long index = offset >> 3;
    c.out()
        .integer(
            index < bytes.length && (bytes[(int) index] & (0x80 >>> (offset & 7))) != 0 ? 1 : 0);
  }

  private static void bitcount(RespCall c) {
    StoredValue v = c.string(1);
    if (v == null) {
      c.out().integer(0);
      return;
    }
    byte[] s = v.payload();
    if (c.argc() == 2) {
      c.out().integer(count(s, 0, (long) s.length * 8 - 1));
      return;
    }
    if (c.argc() != 4 && c.argc() != 5) {
      throw new RespError(RespError.SYNTAX);
    }
    long start = c.integer(2);
    long end = c.integer(3);
    if (start < 0 && end < 0 && start > end) {
      c.out().integer(0);
      return;
    }
    boolean bits = c.argc() == 5 && unit(c, 4);
    BitRange r = BitRange.of(s.length, start, end, bits);
    c.out().integer(r.empty() ? 0 : count(s, r.first(), r.last()));
  }

  /** Returns true for BIT, false for BYTE. */
  private static boolean unit(RespCall c, int i) {
    return switch (c.option(i)) {
      case "bit" -> true;
      case "byte" -> false;
      default -> throw new RespError(RespError.SYNTAX);
    };
  }

  /** The set bits from bit {@code first} to bit {@code last}, both included. */
  private static long count(byte[] s, long first, long last) {
    long n = 0;
    long bit = first;
    while (bit <= last && (bit & 7) != 0) {
      n += bitAt(s, bit++);
    }
    while (bit + 7 <= last) {
      n += Integer.bitCount(s[(int) (bit >> 3)] & 0xFF);
      bit += 8;
    }
    while (bit <= last) {
      n += bitAt(s, bit++);
    }
    return n;
  }

  private static int bitAt(byte[] s, long bit) {
    return (s[(int) (bit >> 3)] >>> (7 - (bit & 7))) & 1;
  }

  private static void bitpos(RespCall c) {
    long wanted = c.integer(2);
    if (wanted != 0 && wanted != 1) {
      throw new RespError("ERR The bit argument must be 1 or 0.");
    }
    StoredValue v = c.string(1);
    if (v == null) {
      c.out().integer(wanted == 1 ? -1 : 0);
      return;
    }
    byte[] s = v.payload();
    long bitLength = (long) s.length * 8;
    if (c.argc() == 3) {
      if (s.length == 0) {
        c.out().integer(-1);
        return;
      }
      long found = find(s, (int) wanted, 0, bitLength - 1);
      // Past the string's end the bits read as zero: a search for 0 in a string of ones
      // answers the first bit after it.
      c.out().integer(found < 0 && wanted == 0 ? bitLength : found);
      return;
    }
    if (c.argc() > 6) {
      throw new RespError(RespError.SYNTAX);
    }
    long start = c.integer(3);
    boolean bits = c.argc() == 6 && unit(c, 5);
    boolean endGiven = c.argc() >= 5;
    long end = endGiven ? c.integer(4) : bits ? bitLength + 7 : s.length - 1L;
    BitRange r = BitRange.of(s.length, start, end, bits);
    if (r.empty()) {
      c.out().integer(-1);
      return;
    }
    long found = find(s, (int) wanted, r.first(), r.last());
    if (found < 0 && wanted == 0 && !endGiven) {
      found = r.last() + 1;
    }
    c.out().integer(found);
  }

  /** The first bit equal to {@code wanted} from {@code first} to {@code last}, or -1. */
  private static long find(byte[] s, int wanted, long first, long last) {
    int skip = wanted == 1 ? 0 : 0xFF;
    long bit = first;
    while (bit <= last) {
      if ((bit & 7) == 0 && bit + 7 <= last && (s[(int) (bit >> 3)] & 0xFF) == skip) {
        bit += 8;
      } else if (bitAt(s, bit) == wanted) {
        return bit;
      } else {
        bit++;
      }
    }
    return -1;
  }

  /**
   * A range of BITCOUNT or BITPOS in bits, clamped to the string as Redis clamps it: negative
   * indexes count from the end, and a BYTE range covers whole bytes.
   *
   * @param first the first bit
   * @param last the last bit, below {@code first} for an empty range
   */
  private record BitRange(long first, long last) {
    static BitRange of(int length, long start, long end, boolean bits) {
      long total = bits ? (long) length * 8 : length;
      start = start < 0 ? Math.max(0, total + start) : start;
      end = end < 0 ? Math.max(0, total + end) : end;
      end = Math.min(end, total - 1);
      if (start > end) {
        return new BitRange(0, -1);
      }
      return bits ? new BitRange(start, end) : new BitRange(start * 8, end * 8 + 7);
    }

    boolean empty() {
      return first > last;
    }
  }

  private static void bitop(RespCall c) {
    String op = c.option(1);
    if (!op.equals("and") && !op.equals("or") && !op.equals("xor") && !op.equals("not")) {
      throw new RespError(RespError.SYNTAX);
    }
    if (op.equals("not") && c.argc() != 4) {
      throw new RespError("ERR BITOP NOT must be called with a single source key.");
    }
    byte[][] sources = new byte[c.argc() - 3][];
    int longest = 0;
    for (int i = 3; i < c.argc(); i++) {
      StoredValue v = c.string(i);
      sources[i - 3] = v == null ? new byte[0] : v.payload();
      longest = Math.max(longest, sources[i - 3].length);
    }
    byte[] result = new byte[longest];
    for (int j = 0; j < longest; j++) {
      result[j] = combine(op, sources, j);
    }
    if (longest == 0) {
      c.keyspace().delete(c.db(), c.arg(2));
    } else {
      c.keyspace().put(c.db(), c.arg(2), StoredValue.string(result));
    }
    c.out().integer(longest);
  }

  /** Byte j of the result: a source shorter than j reads as zero there. */
  private static byte combine(String op, byte[][] sources, int j) {
    int acc = at(sources[0], j);
    if (op.equals("not")) {
      return (byte) ~acc;
    }
    for (int k = 1; k < sources.length; k++) {
      int b = at(sources[k], j);
      acc =
          switch (op) {
            case "and" -> acc & b;
            case "or" -> acc | b;
            default -> acc ^ b;
          };
    }
    return (byte) acc;
  }

  private static int at(byte[] s, int j) {
    return j < s.length ? s[j] & 0xFF : 0;
  }
}
