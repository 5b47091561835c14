package dev.larder.server.internal.pubsub;

/**
 * A client that can be sent {@link PushMessage}s: a RESP connection.
 *
 * <p>Implementations are thread-safe for {@link #deliver}, which other connections' threads call.
 */
public interface Subscriber {
  /** Returns the client's id (CLIENT ID). */
  long id();

  /**
   * Queues a message for the client, behind what it was sent before; messages given by one thread
   * arrive in that order. Never blocks.
   *
   * @param message the message
   * @return false if the client is gone, or was disconnected at its output limit
   */
  boolean deliver(PushMessage message);

  /** Returns the RESP version the client speaks now (2 or 3). */
  int protocol();

  /**
   * Returns whether the client is subscribed to the channel (for a RESP2 client that tracking
   * redirects to: it gets invalidations only while subscribed to {@code __redis__:invalidate}).
   *
   * @param channel a channel name
   */
  boolean subscribedTo(byte[] channel);
}
