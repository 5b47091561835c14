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
 * @param firstKey position of the first key of the fixed key range (COMMAND INFO's first key), 0 if
 *     none
 * @param lastKey position of the fixed range's last key, -1 for the last argument
 * @param step distance between the fixed range's keys
 * @param numkeysAt position of the argument that counts the keys following it (ZUNION's, LMPOP's
 *     numkeys), 0 if none; such a command has {@link Flag#MOVABLE_KEYS}, and its fixed range, if
 *     any, lies before it (ZUNIONSTORE's destination)
 * @param optionKey finds the one key an option word names after the fixed range (SORT's STORE
 *     destination), or null; such a command has {@link Flag#MOVABLE_KEYS} and no numkeys
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
    int numkeysAt,
    OptionKey optionKey,
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
   * Returns whether any of its arguments can be a key (a fixed key range, counted keys, or a key an
   * option names).
   */
  public boolean hasKeys() {
    return firstKey > 0 || numkeysAt > 0 || optionKey != null;
  }

  /**
   * Returns the position of a request's first key, if {@link #lastKeyIn} is at least that. With
   * {@link #lastKeyIn} and {@link #nextKeyAfter}, walks a request's keys as Redis's COMMAND GETKEYS
   * finds them, without allocating:
   *
   * <pre>{@code
   * for (int i = cmd.firstKeyIn(), last = cmd.lastKeyIn(args); i <= last; i = cmd.nextKeyAfter(i, args))
   * }</pre>
   */
  public int firstKeyIn() {
    return firstKey > 0 ? firstKey : numkeysAt + 1;
  }

  /**
   * Returns the position of the last key of a request, within it, or 0 if it has none. Counted keys
   * end where their count says, or at the request's end if it is shorter; a count that is not a
   * positive number counts no keys (the command itself refuses it), leaving the fixed range alone.
   *
   * @param args the request's words, the name included
   */
  public int lastKeyIn(List<byte[]> args) {
    int fixedLast = fixedLastIn(args);
    if (optionKey != null) {
      return Math.max(fixedLast, optionKey.positionIn(args));
    }
    if (numkeysAt <= 0 || numkeysAt >= args.size()) {
      return fixedLast;
    }
    long count;
    try {
      count = RespCall.parseLong(args.get(numkeysAt));
    } catch (RespError e) {
      return fixedLast;
    }
    if (count <= 0) {
      return fixedLast;
    }
    return (int) Math.min(numkeysAt + count, args.size() - 1L);
  }

  private int fixedLastIn(List<byte[]> args) {
    return firstKey <= 0
        ? 0
        : Math.min(lastKey < 0 ? args.size() + lastKey : lastKey, args.size() - 1);
  }

  /**
   * Returns the position of the key after the key at {@code i}: the fixed range's next, then the
   * first counted key (or the key an option names), then the next counted one; past {@link
   * #lastKeyIn} after the last.
   *
   * @param i the position of a key of a request
   * @param args the request's words, the name included
   */
  public int nextKeyAfter(int i, List<byte[]> args) {
    if (optionKey != null) {
      int next = i + Math.max(1, step);
      if (next <= fixedLastIn(args)) {
        return next;
      }
      int named = optionKey.positionIn(args);
      return named > i ? named : args.size();
    }
    if (numkeysAt <= 0) {
      return i + Math.max(1, step);
    }
    if (i > numkeysAt) {
      return i + 1;
    }
    int next = i + Math.max(1, step);
    return next < numkeysAt && next <= lastKey ? next : numkeysAt + 1;
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
    /** Its keys are counted by one of its arguments (LMPOP's numkeys). */
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

  /**
   * Finds the key an option word names in a request, as Redis's own key search for the command
   * finds it (SORT's last {@code STORE dest}).
   */
  @FunctionalInterface
  public interface OptionKey {
    /**
     * Returns the key's position in the request, or 0 if it names none.
     *
     * @param args the request's words, the name included
     */
    int positionIn(List<byte[]> args);
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
