package dev.larder.server.internal.resp;

import dev.larder.server.internal.ServerState;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * A RESP connection's handler: runs each decoded command on the event loop and gathers the
 * replies of one read into one buffer, written and flushed when the read completes, so a
 * pipeline of commands costs one write.
 *
 * <p>Back-pressure: when the channel's outbound buffer passes its high-water mark (a client that
 * pipelines without reading), the handler stops reading until it drains, so replies never pile
 * up without bound.
 *
 * <p>Not thread-safe: one instance per channel, called on its event loop.
 */
public final class RespHandler extends ChannelInboundHandlerAdapter {
  private static final int FLUSH_THRESHOLD = 64 * 1024;
  private final ServerState server;
  private final RespCommandTable table;
  private RespSession session;
  private RespDecoder decoder;
  private ByteBuf pending;

  /**
   * @param server shared state
   * @param table the command table
   */
  public RespHandler(ServerState server, RespCommandTable table) {
    this.server = server;
    this.table = table;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    ServerState.ClientInfo info = new ServerState.ClientInfo(
        server.nextClientId(), String.valueOf(ctx.channel().remoteAddress()).replace("/", ""));
    session = new RespSession(server, info, table);
    decoder = ctx.pipeline().get(RespDecoder.class);
    tellDecoder();
    server.register(info);
    ctx.fireChannelActive();
  }

  /** Gives the decoder the connection's authentication state, for its pre-AUTH limits. */
  private void tellDecoder() {
    if (decoder != null) {
      decoder.authenticated(session.user != null);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (session != null) {
      server.unregister(session.info.id());
    }
    release();
    ctx.fireChannelInactive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (session == null || session.closeAfterReply) {
      return;
    }
    if (pending == null) {
      pending = ctx.alloc().buffer();
    }
    session.out.target(pending);
    switch (msg) {
      case RespFrame.Command c -> {
        RespDispatcher.dispatch(session, c.args());
        tellDecoder();
      }
      case RespFrame.ProtocolError e -> {
        session.out.error(e.message());
        session.closeAfterReply = true;
      }
      default -> throw new IllegalStateException("unexpected message " + msg);
    }
    if (pending.readableBytes() >= FLUSH_THRESHOLD) {
      server.replies().send(ctx, pending, false);
      pending = null;
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (pending != null) {
      ByteBuf out = pending;
      pending = null;
      server.replies().send(ctx, out, session.closeAfterReply);
    } else if (session != null && session.closeAfterReply) {
      ctx.close();
    }
    if (!ctx.channel().isWritable()) {
      ctx.channel().config().setAutoRead(false);
    }
    ctx.fireChannelReadComplete();
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (ctx.channel().isWritable()) {
      ctx.channel().config().setAutoRead(true);
    }
    ctx.fireChannelWritabilityChanged();
  }

  /**
   * Closes the connection. A network error ends there; anything else is a fault of ours and
   * is passed on, so that Netty reports it (and the fuzzer sees it).
   */
  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
    if (!(cause instanceof java.io.IOException)) {
      ctx.fireExceptionCaught(cause);
    }
  }

  private void release() {
    if (pending != null) {
      pending.release();
      pending = null;
    }
  }
}
