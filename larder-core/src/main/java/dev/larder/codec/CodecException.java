package dev.larder.codec;

/**
 * Thrown when a value cannot be encoded, or when bytes are not a valid encoding (truncated,
 * corrupted, or longer than the declared length).
 */
public final class CodecException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /**
   * @param message what went wrong, naming the type or field where known
   */
  public CodecException(String message) {
    super(message);
  }

  /**
   * @param message what went wrong
   * @param cause the underlying failure
   */
  public CodecException(String message, Throwable cause) {
    super(message, cause);
  }
}
