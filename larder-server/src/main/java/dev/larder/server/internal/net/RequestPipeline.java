package dev.larder.server.internal.net;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The handler after a protocol's decoder, for both protocols: runs each decoded request through the
 * connection's {@link ProtocolSession}, batches the replies, keeps the connection within its memory
 * limits and closes it when the protocol says so.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Batching: the replies of one read go into one buffer, written and flushed when the read
 * completes, or as soon as the buffer passes {@value #FLUSH_THRESHOLD} bytes; so a pipeline of n
 * commands costs one write.
 *
 * <p>Back-pressure: when a flush leaves the channel unwritable (its outbound buffer over Netty's
 * high-water mark: a client that sends without reading), the connection is paused: the decoder
 * hands on no more requests, even ones already read, and reading stops. When the channel drains
 * below the low-water mark, a task on the connection's event loop resumes the decoder on what it
 * holds and restarts reading (a task, because the writability event may come from inside one of
 * this pipeline's own flushes). So a connection's unsent replies stay under the high-water mark
 * plus one batch; a single reply larger than the connection's output limit is refused as it is
 * built (the reply buffer's capacity is the room left, see {@link ReplyLimitExceeded}) and the
 * client disconnected.
 *
 * <p>Durability: every batch of replies, and a close, goes through the server's {@link
 * DurableReplies}, which writes it at once without a log and, with one, once the log allows (in
 * order per connection). Replies held there count as the connection's unsent output, and while they
 * pass Netty's high-water mark the connection is paused as for an unwritable channel; {@link
 * DurableReplies} fires a writability change once it has written them, which resumes it.
 *
 * <p>Memory: what the connection holds is recounted after each read and each writability change
 * ({@link ClientMemory}); over a limit, the connection is closed with a logged reason.
 *
 * <p>Not thread-safe: one instance per channel, called on its event loop.
 */
public final class RequestPipeline extends ChannelInboundHandlerAdapter {
  static final int FLUSH_THRESHOLD = 64 * 1024;
  private static final int INITIAL_REPLY_BYTES = 256;
  private final ClientConnection connection;
  private final ProtocolSession session;
  private final Supplier<DurableReplies> replies;
  private ByteBuf pending;
  private boolean resumeScheduled;
  private ChannelHandlerContext context;

  /**
   * @param connection the connection, whose decoder is before this handler
   * @param replies where replies go to be written (at once, or when the server's log allows), read
   *     at each send: a server that binds while it loads its log makes its replies durable once the
   *     load is done, for the connections opened during the load too
   */
  public RequestPipeline(ClientConnection connection, Supplier<DurableReplies> replies) {
    this.connection = connection;
    this.session = connection.session();
    this.replies = replies;
    connection.attach(this);
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    context = ctx;
    connection.open(ctx);
    session.opened(connection);
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    release();
    connection.memory().release(connection);
    session.closed();
    ctx.fireChannelInactive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (connection.disconnected()) {
      return;
    }
    ByteBuf out = pending;
    if (out == null) {
      out = pending = replyBuffer(ctx);
      if (out == null) {
        return;
      }
      session.batchStarted();
    }
    try {
      if (connection.hasPushes()) {
        // Messages queued before this request arrived go before its reply, as in Redis, where
        // they were written before the request was read.
        writePushes(out);
      }
      session.run(msg, out);
    } catch (RuntimeException e) {
      RuntimeException limit = ReplyLimitExceeded.translate(out, e);
      if (!(limit instanceof ReplyLimitExceeded)) {
        throw e;
      }
      release();
      connection.disconnect(ClientMemory.Reason.OUTPUT_LIMIT, limit.getMessage());
      return;
    }
    if (connection.disconnected()) {
      release();
      return;
    }
    if (session.closing()) {
      connection.stop();
    }
    if (out.readableBytes() >= FLUSH_THRESHOLD) {
      pending = null;
      replies.get().send(connection, ctx, out, false);
      pauseIfUnwritable(ctx);
    }
  }

  /**
   * Writes the pushes queued for the connection (see {@link ClientConnection#push}) behind the
   * replies already sent, then recounts what it holds: a client that does not read is disconnected
   * once its unsent output passes the limit. A task on the connection's event loop.
   */
  void drainPushes() {
    connection.drainStarted();
    ChannelHandlerContext ctx = connection.context();
    if (connection.disconnected() || ctx == null) {
      long dropped = 0;
      for (ClientConnection.Push p; (p = connection.nextPush()) != null; ) {
        dropped += p.bytes();
      }
      connection.pushesTaken(dropped);
      return;
    }
    boolean own = pending == null;
    ByteBuf out = own ? replyBuffer(ctx) : pending;
    if (out == null) {
      return;
    }
    try {
      writePushes(out);
    } catch (RuntimeException e) {
      RuntimeException limit = ReplyLimitExceeded.translate(out, e);
      if (!(limit instanceof ReplyLimitExceeded)) {
        throw e;
      }
      if (own) {
        out.release();
      } else {
        pending = null;
        out.release();
      }
      connection.disconnect(ClientMemory.Reason.OUTPUT_LIMIT, limit.getMessage());
      return;
    }
    if (own) {
      if (out.isReadable()) {
        replies.get().send(connection, ctx, out, false);
      } else {
        out.release();
      }
      pauseIfUnwritable(ctx);
      connection.recount(0);
    }
  }

  /** Writes every queued push into {@code out}, in order. */
  private void writePushes(ByteBuf out) {
    long taken = 0;
    try {
      for (ClientConnection.Push p; (p = connection.nextPush()) != null; ) {
        taken += p.bytes();
        session.push(p.message(), out);
      }
    } finally {
      connection.pushesTaken(taken);
    }
  }

  /**
   * Sends the reply of the request that blocked the connection, as a batch of its own, then runs
   * what the decoder read meanwhile (unless the channel is backed up: then its writability resumes
   * it). Event loop only; the connection is no longer blocked.
   */
  void completeBlocked(Consumer<ByteBuf> reply) {
    ChannelHandlerContext ctx = context;
    ByteBuf out = replyBuffer(ctx);
    if (out == null) {
      return;
    }
    try {
      reply.accept(out);
    } catch (RuntimeException e) {
      RuntimeException limit = ReplyLimitExceeded.translate(out, e);
      out.release();
      if (!(limit instanceof ReplyLimitExceeded)) {
        throw e;
      }
      connection.disconnect(ClientMemory.Reason.OUTPUT_LIMIT, limit.getMessage());
      return;
    }
    // A request run again after a pause may be QUIT.
    boolean close = session.closing();
    if (close) {
      connection.stop();
    }
    replies.get().send(connection, ctx, out, close);
    pauseIfUnwritable(ctx);
    if (!connection.paused() && !close) {
      try {
        connection.decoder().resume(ctx.pipeline().context(connection.decoder()));
      } catch (Exception e) {
        ctx.fireExceptionCaught(e);
      }
    }
  }

  /**
   * A buffer for replies, whose capacity is the room the connection's output limit leaves.
   *
   * <p>A heap buffer: replies are written a few bytes at a time (a length, the bytes, CRLF), and
   * Netty's pooled direct buffers copy each {@code byte[]} through an absolute {@code
   * ByteBuffer.put} of a duplicated NIO view, whose fixed cost dwarfed the copy (a third of the
   * event loop's samples for LRANGE of 300 short elements). The transport copies the finished batch
   * into a direct buffer once, as one block, when it writes it.
   */
  private ByteBuf replyBuffer(ChannelHandlerContext ctx) {
    long room = connection.memory().outputLimit() - connection.outboundBytes();
    if (room <= ReplyLimitExceeded.HEADROOM) {
      connection.disconnect(ClientMemory.Reason.OUTPUT_LIMIT, "unsent replies at the limit");
      return null;
    }
    return ctx.alloc().heapBuffer(INITIAL_REPLY_BYTES, (int) Math.min(room, Integer.MAX_VALUE));
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    ByteBuf out = pending;
    pending = null;
    boolean close = session.closing();
    if (out != null) {
      replies.get().send(connection, ctx, out, close);
    } else if (close) {
      // After the replies still waiting for the log, not before them.
      replies.get().send(connection, ctx, Unpooled.EMPTY_BUFFER, true);
    }
    pauseIfUnwritable(ctx);
    connection.recount(0);
    ctx.fireChannelReadComplete();
  }

  private void pauseIfUnwritable(ChannelHandlerContext ctx) {
    boolean backedUp =
        !ctx.channel().isWritable()
            || connection.awaitingLog() > ctx.channel().config().getWriteBufferHighWaterMark();
    if (backedUp && !connection.paused()) {
      connection.paused(true);
      ctx.channel().config().setAutoRead(false);
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (ctx.channel().isWritable() && connection.paused() && !resumeScheduled) {
      // Not from here: this event can come from inside a flush of this very pipeline (a read's
      // replies draining at once), where decoding again would re-enter the decoder.
      resumeScheduled = true;
      ctx.channel().eventLoop().execute(() -> resume(ctx));
    }
    connection.recount(pending == null ? 0 : pending.readableBytes());
    ctx.fireChannelWritabilityChanged();
  }

  /**
   * Runs what the decoder read before the pause (its read-complete flushes the replies), if the
   * channel is still writable; if not, the next writability change schedules this again.
   */
  private void resume(ChannelHandlerContext ctx) {
    resumeScheduled = false;
    if (!connection.paused()
        || !ctx.channel().isActive()
        || !ctx.channel().isWritable()
        || connection.awaitingLog() > ctx.channel().config().getWriteBufferHighWaterMark()) {
      return;
    }
    connection.paused(false);
    ctx.channel().config().setAutoRead(true);
    try {
      connection.decoder().resume(ctx.pipeline().context(connection.decoder()));
    } catch (Exception e) {
      ctx.fireExceptionCaught(e);
    }
  }

  /**
   * Closes the connection. A network error ends there; anything else is a fault of ours and is
   * passed on, so that Netty reports it (and the fuzzer sees it).
   */
  @Override
  // A close that fails has nothing left to undo: the channel is closed either way.
  @SuppressWarnings("FutureReturnValueIgnored")
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
