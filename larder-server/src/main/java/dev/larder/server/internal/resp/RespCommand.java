package dev.larder.server.internal.resp;

import java.util.List;
import java.util.Set;

/**
 * One entry of the command table: what COMMAND reports and what the dispatcher checks before it
 * runs the action.
 *
 * @param name the lower-case name
 * @param arity Redis's arity: n for exactly n words with the name, -n for at least n
 * @param flags the command's flags
 * @param firstKey position of the first key argument, 0 if none; with {@link Flag#MOVABLE_KEYS},
 *     the argument before it is the number of keys
 * @param lastKey position of the last key, -1 for the last argument (unused with {@link
 *     Flag#MOVABLE_KEYS})
 * @param step distance between keys
 * @param group the documentation group (string, generic, hash, connection, server, transactions)
 * @param summary one line of documentation
 * @param arguments the argument spec for COMMAND DOCS: space-separated {@code name:type} words, a
 *     leading {@code ?} for optional, a trailing {@code *} for repeated
 * @param action what it does
 * @param stats its counts for INFO commandstats, one per table (so per server)
 */
public record RespCommand(
    String name,
    int arity,
    Set<Flag> flags,
    int firstKey,
    int lastKey,
    int step,
    String group,
    String summary,
    String arguments,
    Action action,
    CommandStats stats) {

  /**
   * Returns whether the arity admits it.
   *
   * @param words the request's word count, the name included
   */
  public boolean arityAccepts(int words) {
    return arity >= 0 ? words == arity : words >= -arity;
  }

  /**
   * Returns the position of the last key argument of a request: from the table, or for a command
   * whose keys are counted by an argument (LMPOP's numkeys), from that count, within the request. A
   * count that is not a positive number gives {@code firstKey - 1} (no keys): the command itself
   * refuses it.
   *
   * @param args the request's words, the name included
   */
  public int lastKeyIn(List<byte[]> args) {
    if (!flags.contains(Flag.MOVABLE_KEYS)) {
      return lastKey < 0 ? args.size() + lastKey : lastKey;
    }
    long count;
    try {
      count = RespCall.parseLong(args.get(firstKey - 1));
    } catch (RespError e) {
      return firstKey - 1;
    }
    return (int) Math.min(firstKey - 1 + Math.max(count, 0), args.size() - 1L);
  }

  /** Command flags, with the names COMMAND gives them. */
  public enum Flag {
    /** Changes data. */
    WRITE("write"),
    /** Only reads data. */
    READONLY("readonly"),
    /** May grow memory: refused under noeviction at the bound. */
    DENYOOM("denyoom"),
    /** Constant time. */
    FAST("fast"),
    /** Administrative. */
    ADMIN("admin"),
    /** Allowed before AUTH. */
    NO_AUTH("no-auth"),
    /** May block the connection until a key is written (BLPOP). */
    BLOCKING("blocking"),
    /** Its keys are counted by the argument before the first one (LMPOP's numkeys). */
    MOVABLE_KEYS("movablekeys"),
    /** Not queued by MULTI. */
    NO_MULTI("no-multi"),
    /** Runs under the keyspace's exclusive lock (several keys, or a whole database). */
    EXCLUSIVE(null);

    private final String redisName;

    Flag(String redisName) {
      this.redisName = redisName;
    }

    /** Returns the flag's name in COMMAND replies, or null for Larder-only flags. */
    public String redisName() {
      return redisName;
    }
  }

  /** A command's body. */
  @FunctionalInterface
  public interface Action {
    /**
     * Writes exactly one reply, or throws {@link RespError}.
     *
     * @param call the request and its connection
     */
    void run(RespCall call);
  }
}
