package dev.larder.server.internal.net;

import io.netty.buffer.ByteBuf;

/**
 * Thrown by a protocol's reply writer when a reply would take a connection's unsent replies past
 * its limit ({@code client-output-buffer-limit}); {@link RequestPipeline} then disconnects the
 * client with a logged reason, as Redis does, instead of building the reply.
 *
 * <p>The limit travels as the reply buffer's {@link ByteBuf#maxCapacity()}: the pipeline allocates
 * each reply buffer with the room the connection has left.
 */
public final class ReplyLimitExceeded extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Room kept for the small writes (headers, CRLFs, END) around a checked one. */
  static final int HEADROOM = 1024;

  private ReplyLimitExceeded(long wanted, long room) {
    super(
        (wanted < 0 ? "a reply" : "a reply of " + wanted + " bytes")
            + " with "
            + room
            + " bytes of room",
        null,
        false,
        false);
  }

  /**
   * Tells a reply that overflowed its buffer's limit through small writes (no single one checked:
   * headers, integers) from other failures, so that it too disconnects the client.
   *
   * @param out the reply buffer
   * @param e what a command threw
   * @return a ReplyLimitExceeded if e is the buffer refusing to grow past its limit, else e
   */
  public static RuntimeException translate(ByteBuf out, RuntimeException e) {
    if (e instanceof IndexOutOfBoundsException && out.maxWritableBytes() < 64 * HEADROOM) {
      return new ReplyLimitExceeded(-1, out.maxWritableBytes());
    }
    return e;
  }

  /**
   * Checks that {@code length} more bytes fit the reply buffer's limit.
   *
   * @param out the reply buffer
   * @param length the bytes about to be written
   * @throws ReplyLimitExceeded if they do not
   */
  public static void check(ByteBuf out, long length) {
    long room = (long) out.maxWritableBytes() - HEADROOM;
    if (length > room) {
      throw new ReplyLimitExceeded(length, room);
    }
  }
}
