package dev.larder.server.internal.net;

import io.netty.buffer.ByteBuf;

/**
 * Thrown by a protocol's reply writer when a reply would take a connection's unsent replies past
 * its limit ({@code client-output-buffer-limit}); {@link RequestPipeline} then disconnects the
 * client with a logged reason, as Redis does, instead of building the reply.
 *
 * <p>The limit travels as the reply buffer's {@link ByteBuf#maxCapacity()}: the pipeline
 * allocates each reply buffer with the room the connection has left.
 */
public final class ReplyLimitExceeded extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Room kept for the small writes (headers, CRLFs, END) around a checked one. */
  static final int HEADROOM = 1024;

  private ReplyLimitExceeded(long wanted, long room) {
    super("a reply of " + wanted + " bytes with " + room + " bytes of room", null, false, false);
  }

  /**
   * Checks that {@code length} more bytes fit the reply buffer's limit.
   *
   * @param out the reply buffer
   * @param length the bytes about to be written
   * @throws ReplyLimitExceeded if they do not
   */
  public static void check(ByteBuf out, long length) {
    long room = out.maxWritableBytes() - HEADROOM;
    if (length > room) {
      throw new ReplyLimitExceeded(length, room);
    }
  }
}
