package dev.larder.server.internal.resp;

import dev.larder.server.internal.ServerState;
import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * One command being run: its words, its connection and what it needs to answer. Argument parsing
 * follows Redis: integers are strict decimal (no sign but minus, no blanks, within a signed 64-bit
 * long), options are case-insensitive.
 *
 * <p>Not thread-safe; lives for one command.
 */
public final class RespCall {
  final RespSession session;
  final RespCommand command;
  private final List<byte[]> args;

  RespCall(RespSession session, RespCommand command, List<byte[]> args) {
    this.session = session;
    this.command = command;
    this.args = args;
  }

  /** Returns the request's words from {@code from} on, a view (not to be changed). */
  List<byte[]> argsFrom(int from) {
    return args.subList(from, args.size());
  }

  /** Returns the number of words, the command name included. */
  public int argc() {
    return args.size();
  }

  /**
   * Returns that word's bytes.
   *
   * @param i a position, 0 being the name
   */
  public byte[] arg(int i) {
    return args.get(i);
  }

  /**
   * Returns that word as UTF-8 text.
   *
   * @param i a position
   */
  public String text(int i) {
    return new String(args.get(i), StandardCharsets.UTF_8);
  }

  /**
   * Returns that word in lower case, for option matching.
   *
   * @param i a position
   */
  public String option(int i) {
    return text(i).toLowerCase(Locale.ROOT);
  }

  /**
   * Returns the word as a long.
   *
   * @param i a position
   * @throws RespError if it is not a strict decimal long
   */
  public long integer(int i) {
    return parseLong(args.get(i));
  }

  /** Returns the writer for this command's reply. */
  public RespWriter out() {
    return session.out;
  }

  /** Returns the keyspace. */
  public Keyspace keyspace() {
    return session.server.keyspace();
  }

  /** Returns the server state. */
  public ServerState server() {
    return session.server;
  }

  /** Returns the connection's database. */
  public int db() {
    return session.db;
  }

  /** Returns the connection's state. */
  public RespSession session() {
    return session;
  }

  /** Returns the command's lower-case name. */
  public String name() {
    return command.name();
  }

  /**
   * Reads a key that must be a string.
   *
   * @param i the key's position
   * @return its value or null
   * @throws RespError WRONGTYPE if it holds another type
   */
  public StoredValue string(int i) {
    StoredValue v = keyspace().get(db(), arg(i));
    return requireType(v, ValueType.STRING);
  }

  /**
   * Returns v.
   *
   * @param v a value or null
   * @param type the type it must have
   * @throws RespError WRONGTYPE if v has another type
   */
  public static StoredValue requireType(StoredValue v, ValueType type) {
    if (v != null && v.type() != type) {
      throw new RespError(RespError.WRONGTYPE);
    }
    return v;
  }

  /**
   * Returns the strict decimal long they spell.
   *
   * @param b bytes
   * @throws RespError NOT_INTEGER otherwise
   */
  public static long parseLong(byte[] b) {
    if (b.length == 0
        || b.length > 20
        || (b.length > 1 && b[0] == '0')
        || (b[0] == '-' && (b.length == 1 || b[1] == '0'))) {
      throw new RespError(RespError.NOT_INTEGER);
    }
    boolean negative = b[0] == '-';
    // Accumulated negative, as Long.parseLong does, so that Long.MIN_VALUE fits.
    long value = 0;
    for (int i = negative ? 1 : 0; i < b.length; i++) {
      int digit = b[i] - '0';
      if (digit < 0 || digit > 9 || value < Long.MIN_VALUE / 10) {
        throw new RespError(RespError.NOT_INTEGER);
      }
      value *= 10;
      if (value < Long.MIN_VALUE + digit) {
        throw new RespError(RespError.NOT_INTEGER);
      }
      value -= digit;
    }
    if (!negative) {
      if (value == Long.MIN_VALUE) {
        throw new RespError(RespError.NOT_INTEGER);
      }
      return -value;
    }
    return value;
  }

  /** Returns a RespError for this command's wrong number of arguments. */
  public RespError arityError() {
    return new RespError("ERR wrong number of arguments for '" + name() + "' command");
  }
}
