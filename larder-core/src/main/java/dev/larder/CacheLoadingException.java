package dev.larder;

/** Wraps a checked exception thrown by a {@link CacheLoader}. */
public final class CacheLoadingException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /**
   * @param message which key failed
   * @param cause the loader's exception
   */
  public CacheLoadingException(String message, Throwable cause) {
    super(message, cause);
  }
}
