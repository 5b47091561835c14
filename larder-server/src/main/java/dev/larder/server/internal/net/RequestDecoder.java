package dev.larder.server.internal.net;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * A protocol's decoder, as {@link RequestPipeline} drives it: it hands on one request per {@code
 * decode} call, and none while its {@link ClientConnection} is not {@linkplain
 * ClientConnection#accepting() accepting}, so a connection whose replies wait for the client stops
 * running requests (its input stays in the decoder's buffer, undecoded, and reading stops) until
 * the pipeline resumes it. It reports the bytes it holds for the memory limits.
 *
 * <p>Not thread-safe: one instance per channel, as Netty uses it.
 */
public abstract class RequestDecoder extends ByteToMessageDecoder {
  /** The connection this decoder serves; asked before each request. */
  protected final ClientConnection connection;

  /**
   * @param connection the connection this decoder serves
   */
  protected RequestDecoder(ClientConnection connection) {
    this.connection = connection;
    connection.attach(this);
  }

  /**
   * Returns the request bytes this decoder holds: input not yet decoded, and the parts of a request
   * decoded so far.
   */
  public abstract long heldBytes();

  /** Returns the input bytes this decoder holds, not yet decoded. */
  public int buffered() {
    return actualReadableBytes();
  }

  /**
   * Decodes what this decoder buffered while its connection was paused, as if it had just been
   * read, then ends the read (which flushes the replies).
   *
   * @param ctx this decoder's context
   * @throws Exception what Netty's decoding throws
   */
  void resume(ChannelHandlerContext ctx) throws Exception {
    channelRead(ctx, Unpooled.EMPTY_BUFFER);
    channelReadComplete(ctx);
  }
}
