package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.BLOCKING;
import static dev.larder.server.internal.resp.RespCommand.Flag.FAST;
import static dev.larder.server.internal.resp.RespCommand.Flag.WRITE;

import dev.larder.server.internal.keyspace.ValueType;
import dev.larder.server.internal.keyspace.ZSetPayload.Entry;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * BZPOPMIN, BZPOPMAX and BZMPOP, as Redis 7.0 defines them: each takes what it can at once, and
 * otherwise blocks its connection on the wait list the blocking list commands use ({@link
 * BlockedCall}) until a write of one of its keys leaves a sorted set there, first blocked first
 * served, or its timeout passes (the null array). Inside MULTI nothing blocks: the null array. A
 * key written with another type leaves its waiters waiting; a key of another type found by the
 * first attempt, before any non-empty sorted set, is WRONGTYPE.
 */
final class BlockingZSetCommands {
  private BlockingZSetCommands() {}

  static void register(RespCommandTable t) {
    t.command("bzpopmin", -3)
        .flags(WRITE, FAST, BLOCKING)
        .keys(1, -2, 1)
        .doc(
            "sorted_set",
            "Removes and returns the member with the lowest score from one or more sorted sets."
                + " Blocks until a member is available otherwise. Deletes the sorted set if the"
                + " last element was popped.",
            "key:key* timeout:double")
        .run(c -> pop(c, false));
    t.command("bzpopmax", -3)
        .flags(WRITE, FAST, BLOCKING)
        .keys(1, -2, 1)
        .doc(
            "sorted_set",
            "Removes and returns the member with the highest score from one or more sorted sets."
                + " Blocks until a member is available otherwise. Deletes the sorted set if the last"
                + " element was popped.",
            "key:key* timeout:double")
        .run(c -> pop(c, true));
    t.command("bzmpop", -5)
        .flags(WRITE, BLOCKING)
        .countedKeys(2)
        .doc(
            "sorted_set",
            "Removes and returns a member by score from one or more sorted sets. Blocks until a"
                + " member is available otherwise. Deletes the sorted set if the last element was"
                + " popped.",
            "timeout:double numkeys:integer key:key* where:oneof ?count:integer")
        .run(BlockingZSetCommands::bzmpop);
  }

  private static void pop(RespCall c, boolean max) {
    long timeout = BlockingListCommands.timeoutNanos(c, c.argc() - 1);
    List<byte[]> keys = new ArrayList<>(c.argc() - 2);
    for (int i = 1; i < c.argc() - 1; i++) {
      keys.add(c.arg(i));
    }
    new Pop(c.session(), keys, max).run(c, timeout);
  }

  /** BZPOPMIN and BZPOPMAX: one member of the first non-empty set; [key, member, score]. */
  private static final class Pop extends BlockedCall {
    private final boolean max;

    Pop(RespSession session, List<byte[]> keys, boolean max) {
      super(session, keys);
      this.max = max;
    }

    @Override
    public ValueType type() {
      return ValueType.ZSET;
    }

    @Override
    Consumer<RespWriter> take(byte[] key) {
      List<Entry> popped = ZSetCommands.pop(session.server.keyspace(), db(), key, max, 1);
      if (popped.isEmpty()) {
        return null;
      }
      Entry e = popped.getFirst();
      return out -> write(out, key, e);
    }

    private static void write(RespWriter out, byte[] key, Entry e) {
      out.array(3);
      out.bulk(key);
      out.bulk(e.member());
      out.dbl(Score.format(e.score()));
    }
  }

  private static void bzmpop(RespCall c) {
    long timeout = BlockingListCommands.timeoutNanos(c, 1);
    ZSetCommands.MultiPop spec = ZSetCommands.parseMultiPop(c, 2);
    new MultiPop(c.session(), spec).run(c, timeout);
  }

  /** BZMPOP: up to COUNT members of the first non-empty set; [key, [[member, score]...]]. */
  private static final class MultiPop extends BlockedCall {
    private final ZSetCommands.MultiPop spec;

    MultiPop(RespSession session, ZSetCommands.MultiPop spec) {
      super(session, spec.keys());
      this.spec = spec;
    }

    @Override
    public ValueType type() {
      return ValueType.ZSET;
    }

    @Override
    Consumer<RespWriter> take(byte[] key) {
      List<Entry> popped =
          ZSetCommands.pop(session.server.keyspace(), db(), key, spec.max(), spec.count());
      return popped.isEmpty() ? null : out -> ZSetCommands.writeMultiPopped(out, key, popped);
    }
  }
}
