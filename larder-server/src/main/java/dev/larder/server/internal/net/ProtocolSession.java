package dev.larder.server.internal.net;

import io.netty.buffer.ByteBuf;

/**
 * One connection's protocol: runs the requests its decoder hands on, writing their replies, and
 * says what {@link RequestPipeline} and the decoder need to know of its state. RESP and memcached
 * each implement it; batching, back-pressure and memory limits are the pipeline's.
 *
 * <p>Not thread-safe: called on the connection's event loop only.
 */
public interface ProtocolSession {
  /**
   * Runs one decoded request and writes its reply (if any) into {@code out}. A reply larger than
   * {@code out.maxWritableBytes()} allows must not be written: throw {@link ReplyLimitExceeded}
   * (see {@link ReplyLimitExceeded#check}), and the pipeline disconnects the client.
   *
   * @param request what the decoder produced
   * @param out the reply buffer, never null
   */
  void run(Object request, ByteBuf out);

  /** Returns whether the connection must close once the replies written so far are sent. */
  boolean closing();

  /**
   * Returns whether the connection is authenticated (or needs no authentication); the decoders
   * apply tighter limits until it is.
   */
  boolean authenticated();

  /** Returns request bytes the session holds beyond the decoder's (a MULTI queue), for limits. */
  long heldRequestBytes();

  /**
   * The connection is open and admitted; called before its first request.
   *
   * @param connection the connection
   */
  void opened(ClientConnection connection);

  /** The connection closed; called once, after its last request. */
  void closed();

  /**
   * The replies written so far were handed on to be sent; the next request's reply starts a new
   * batch (see {@link RequestPipeline}). Called before the first request of each batch. memcached
   * refuses a command that must be the first of its batch (see {@code MemcacheSession}); RESP has
   * none.
   */
  default void batchStarted() {}

  /**
   * Writes a message queued by {@link ClientConnection#push} (a protocol without pushes never gets
   * one), or nothing if the session no longer wants it (a channel unsubscribed since). The same
   * rule as {@link #run}'s for a reply over {@code out}'s limit.
   *
   * @param message the message
   * @param out the buffer, never null
   */
  default void push(Object message, ByteBuf out) {
    throw new IllegalStateException("this protocol has no pushes: " + message);
  }
}
