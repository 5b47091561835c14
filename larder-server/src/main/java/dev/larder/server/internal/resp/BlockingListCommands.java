package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.BLOCKING;
import static dev.larder.server.internal.resp.RespCommand.Flag.DENYOOM;
import static dev.larder.server.internal.resp.RespCommand.Flag.EXCLUSIVE;
import static dev.larder.server.internal.resp.RespCommand.Flag.WRITE;

import dev.larder.server.internal.keyspace.ValueType;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * BLPOP, BRPOP, BLMOVE, BRPOPLPUSH and BLMPOP, as Redis 7.0 defines them: each takes what it can at
 * once, and otherwise blocks its connection ({@link BlockedCall}) until a push serves it, first
 * blocked first served, or its timeout passes. Inside MULTI nothing blocks: an empty list answers
 * nil. A key written with another type leaves its waiters waiting.
 */
final class BlockingListCommands {
  private BlockingListCommands() {}

  static void register(RespCommandTable t) {
    t.command("blpop", -3)
        .flags(WRITE, BLOCKING)
        .keys(1, -2, 1)
        .doc(
            "list",
            "Removes and returns the first element in a list. Blocks until an element is available"
                + " otherwise. Deletes the list if the last element was popped.",
            "key:key* timeout:double")
        .run(c -> pop(c, true));
    t.command("brpop", -3)
        .flags(WRITE, BLOCKING)
        .keys(1, -2, 1)
        .doc(
            "list",
            "Removes and returns the last element in a list. Blocks until an element is available"
                + " otherwise. Deletes the list if the last element was popped.",
            "key:key* timeout:double")
        .run(c -> pop(c, false));
    t.command("blmove", 6)
        .flags(WRITE, DENYOOM, BLOCKING, EXCLUSIVE)
        .keys(1, 2, 1)
        .doc(
            "list",
            "Pops an element from a list, pushes it to another list and returns it. Blocks until"
                + " an element is available otherwise. Deletes the list if the last element was"
                + " moved.",
            "source:key destination:key wherefrom:oneof whereto:oneof timeout:double")
        .run(c -> move(c, ListCommands.end(c, 3), ListCommands.end(c, 4), 5));
    t.command("brpoplpush", 4)
        .flags(WRITE, DENYOOM, BLOCKING, EXCLUSIVE)
        .keys(1, 2, 1)
        .doc(
            "list",
            "Pops an element from a list, pushes it to another list and returns it. Block until an"
                + " element is available otherwise. Deletes the list if the last element was"
                + " popped.",
            "source:key destination:key timeout:double")
        .run(c -> move(c, false, true, 3));
    t.command("blmpop", -5)
        .flags(WRITE, BLOCKING)
        .countedKeys(2)
        .doc(
            "list",
            "Pops the first element from one of multiple lists. Blocks until an element is"
                + " available otherwise. Deletes the list if the last element was popped.",
            "timeout:double numkeys:integer key:key* where:oneof ?count:integer")
        .run(BlockingListCommands::blmpop);
  }

  /**
   * Returns Redis's timeout argument (seconds, fractions allowed) in nanoseconds, 0 for ever.
   *
   * @throws RespError with Redis's wording for a negative, malformed or too large timeout
   */
  static long timeoutNanos(RespCall c, int i) {
    BigDecimal seconds = seconds(c.text(i));
    if (seconds.signum() < 0) {
      throw new RespError("ERR timeout is negative");
    }
    // Redis adds the timeout in milliseconds to the clock in a signed 64-bit count.
    BigDecimal millis = seconds.movePointRight(3);
    if (millis.compareTo(BigDecimal.valueOf(Long.MAX_VALUE - c.keyspace().now())) > 0) {
      throw new RespError("ERR timeout is out of range");
    }
    BigDecimal nanos = seconds.movePointRight(9);
    return nanos.signum() == 0
        ? 0
        : Math.max(1, nanos.min(BigDecimal.valueOf(Long.MAX_VALUE)).longValue());
  }

  private static BigDecimal seconds(String text) {
    try {
      if (text.startsWith("0x") || text.startsWith("0X")) {
        return BigDecimal.valueOf(Long.parseLong(text.substring(2), 16));
      }
      if (text.isEmpty() || !text.matches("[-+]?[0-9]*\\.?[0-9]*([eE][-+]?[0-9]+)?")) {
        throw new NumberFormatException(text);
      }
      return new BigDecimal(text.startsWith("+") ? text.substring(1) : text);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new RespError("ERR timeout is not a float or out of range");
    }
  }

  private static void pop(RespCall c, boolean head) {
    long timeout = timeoutNanos(c, c.argc() - 1);
    List<byte[]> keys = new ArrayList<>();
    for (int i = 1; i < c.argc() - 1; i++) {
      keys.add(c.arg(i));
    }
    new Pop(c, keys, head).run(c, timeout);
  }

  /** BLPOP and BRPOP: one element from the first non-empty list; the reply is [key, element]. */
  private static final class Pop extends BlockedCall {
    private final RespCall call;
    private final boolean head;

    Pop(RespCall call, List<byte[]> keys, boolean head) {
      super(call.session(), keys);
      this.call = call;
      this.head = head;
    }

    @Override
    public ValueType type() {
      return ValueType.LIST;
    }

    @Override
    Consumer<RespWriter> take(byte[] key) {
      List<byte[]> taken = ListAccess.pop(call.keyspace(), db(), key, head, 1);
      return taken == null ? null : out -> write(out, key, taken.getFirst());
    }

    private static void write(RespWriter out, byte[] key, byte[] element) {
      out.array(2);
      out.bulk(key);
      out.bulk(element);
    }
  }

  private static void move(RespCall c, boolean fromHead, boolean toHead, int timeoutAt) {
    long timeout = timeoutNanos(c, timeoutAt);
    new Move(c, fromHead, toHead).run(c, timeout);
  }

  /** BLMOVE and BRPOPLPUSH: the element moved is the reply. */
  private static final class Move extends BlockedCall {
    private final RespCall call;
    private final boolean fromHead;
    private final boolean toHead;

    Move(RespCall call, boolean fromHead, boolean toHead) {
      super(call.session(), List.of(call.arg(1)));
      this.call = call;
      this.fromHead = fromHead;
      this.toHead = toHead;
    }

    @Override
    public ValueType type() {
      return ValueType.LIST;
    }

    /** Moves from the source, the only key it waits on. */
    @Override
    Consumer<RespWriter> take(byte[] key) {
      byte[] moved =
          ListAccess.move(call.keyspace(), db(), call.arg(1), call.arg(2), fromHead, toHead);
      return moved == null ? null : out -> out.bulk(moved);
    }

    @Override
    void writeEmpty(RespWriter out) {
      out.bulk((byte[]) null);
    }
  }

  private static void blmpop(RespCall c) {
    long timeout = timeoutNanos(c, 1);
    ListCommands.MultiPop spec = ListCommands.parseMultiPop(c, 2);
    new MultiPop(c, spec).run(c, timeout);
  }

  /** BLMPOP: up to COUNT elements from the first non-empty list; the reply is [key, [elements]]. */
  private static final class MultiPop extends BlockedCall {
    private final RespCall call;
    private final ListCommands.MultiPop spec;

    MultiPop(RespCall call, ListCommands.MultiPop spec) {
      super(call.session(), spec.keys());
      this.call = call;
      this.spec = spec;
    }

    @Override
    public ValueType type() {
      return ValueType.LIST;
    }

    @Override
    Consumer<RespWriter> take(byte[] key) {
      List<byte[]> taken = ListAccess.pop(call.keyspace(), db(), key, spec.head(), spec.count());
      return taken == null ? null : new ListCommands.Popped(key, taken)::writeNested;
    }
  }
}
