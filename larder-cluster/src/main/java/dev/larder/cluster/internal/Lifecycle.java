package dev.larder.cluster.internal;

/**
 * Whether this member has joined, is open, closing or closed. Thread-safe.
 *
 * <p>Implementation notes. Closing has two steps, each a volatile flag set once: first {@link
 * #closing} (calls on this member are refused, but messages from others are still handled, so that
 * a write in flight elsewhere is acknowledged rather than left to time out), then, once the channel
 * is closed, {@link #closed} (messages are dropped, waits end, failures of sends are no longer
 * worth logging).
 */
final class Lifecycle {

  /** Set once the member joined its cluster: calls are refused until then. */
  private volatile boolean joined;

  private volatile boolean closing;
  private volatile boolean closed;

  /** Returns true once close began: calls on this member are refused. */
  boolean closing() {
    return closing;
  }

  /** Returns true once the channel is closed: messages are dropped. */
  boolean closed() {
    return closed;
  }

  /** Returns true once the member joined its cluster. */
  boolean joined() {
    return joined;
  }

  void markJoined() {
    joined = true;
  }

  /** Returns false if close had already begun. */
  boolean beginClose() {
    if (closing) {
      return false;
    }
    closing = true;
    return true;
  }

  void markClosed() {
    closed = true;
  }

  /**
   * @throws IllegalStateException if close began, or the member has not joined yet
   */
  void checkOpen() {
    if (closing) {
      throw new IllegalStateException("the clustered cache is closed");
    }
    checkJoined();
  }

  /**
   * @throws IllegalStateException if the member has not joined its cluster yet
   */
  void checkJoined() {
    if (!joined) {
      throw new IllegalStateException(
          "the clustered cache has not joined its cluster yet (ClusteredCache.join)");
    }
  }
}
