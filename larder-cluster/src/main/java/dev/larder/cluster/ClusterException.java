package dev.larder.cluster;

/** A clustered operation could not complete. */
public class ClusterException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what failed and why
   */
  public ClusterException(String message) {
    super(message);
  }

  /**
   * @param message what failed and why
   * @param cause the underlying failure
   */
  public ClusterException(String message, Throwable cause) {
    super(message, cause);
  }
}
