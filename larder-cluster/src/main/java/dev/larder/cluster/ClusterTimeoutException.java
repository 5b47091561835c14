package dev.larder.cluster;

import java.util.List;

/**
 * A synchronous operation did not complete within the cluster timeout. The write may have been
 * applied on some owners and not others; {@link #unanswered()} names the members that did not
 * answer.
 */
public final class ClusterTimeoutException extends ClusterException {
  private static final long serialVersionUID = 1L;

  private final List<String> unanswered;

  /**
   * @param operation what timed out
   * @param unanswered the names of the members that did not answer
   */
  public ClusterTimeoutException(String operation, List<String> unanswered) {
    super(operation + " timed out; no answer from " + unanswered);
    this.unanswered = List.copyOf(unanswered);
  }

  /** Returns the names of the members that did not answer, never null. */
  public List<String> unanswered() {
    return unanswered;
  }
}
