package dev.larder.server.internal.resp;

import java.util.Set;

/**
 * One entry of the command table: what COMMAND reports and what the dispatcher checks before it
 * runs the action.
 *
 * @param name the lower-case name
 * @param arity Redis's arity: n for exactly n words with the name, -n for at least n
 * @param flags the command's flags
 * @param firstKey position of the first key argument, 0 if none
 * @param lastKey position of the last key, -1 for the last argument
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
