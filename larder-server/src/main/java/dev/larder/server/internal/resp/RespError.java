package dev.larder.server.internal.resp;

/**
 * A command's error reply, thrown by the command and written by the dispatcher. It carries no stack
 * trace: it is an answer, not a fault.
 */
public final class RespError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The reply for a value of the wrong type. */
  public static final String WRONGTYPE =
      "WRONGTYPE Operation against a key holding the wrong kind of value";

  /** The reply for a malformed integer argument or value. */
  public static final String NOT_INTEGER = "ERR value is not an integer or out of range";

  /** The reply for a syntax error. */
  public static final String SYNTAX = "ERR syntax error";

  /**
   * @param message the error line, starting with its code
   */
  public RespError(String message) {
    super(message, null, false, false);
  }
}
