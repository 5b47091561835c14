package dev.larder.server.internal.net;

import dev.larder.server.internal.ServerState;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import java.nio.charset.StandardCharsets;

/**
 * The first handler of every connection: admits it under the server's connection limit (a
 * connection over the limit gets the protocol's refusal line and is closed), releases its place
 * when it closes, and closes it when the idle-state handler before it reports it idle.
 *
 * <p>Thread-safe and shareable: its state is the server's.
 */
@ChannelHandler.Sharable
public final class ConnectionGuard extends ChannelInboundHandlerAdapter {
  private final ServerState server;
  private final byte[] refusal;

  /**
   * @param server shared state with the limit
   * @param refusal the line a refused client gets, CRLF included
   */
  public ConnectionGuard(ServerState server, String refusal) {
    this.server = server;
    this.refusal = refusal.getBytes(StandardCharsets.US_ASCII);
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    if (!server.tryConnect()) {
      ctx.channel().config().setAutoRead(false);
      ctx.writeAndFlush(Unpooled.wrappedBuffer(refusal)).addListener(ChannelFutureListener.CLOSE);
      return;
    }
    ctx.channel().attr(Admitted.KEY).set(Boolean.TRUE);
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (ctx.channel().attr(Admitted.KEY).getAndSet(null) != null) {
      server.disconnected();
      ctx.fireChannelInactive();
    }
  }

  @Override
  // A close that fails has nothing left to undo: the channel is closed either way.
  @SuppressWarnings("FutureReturnValueIgnored")
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof IdleStateEvent) {
      ctx.close();
    } else {
      ctx.fireUserEventTriggered(evt);
    }
  }

  /** The channel attribute marking an admitted connection. */
  private static final class Admitted {
    static final io.netty.util.AttributeKey<Boolean> KEY =
        io.netty.util.AttributeKey.valueOf("larder.admitted");
  }
}
