package dev.larder.server.internal.memcache;

import dev.larder.server.internal.ServerState;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.Lock;

/**
 * A memcached connection's handler: runs each decoded text or meta command under the keyspace's
 * shared lock and gathers the replies of one read into one buffer, flushed when the read
 * completes. Back-pressure as in the RESP handler: reading stops while the outbound buffer is
 * over its high-water mark.
 *
 * <p>Not thread-safe: one instance per channel.
 */
public final class MemcacheHandler extends ChannelInboundHandlerAdapter {
  private static final int FLUSH_THRESHOLD = 64 * 1024;
  private final MemcacheSession session;

  /**
   * @param server shared state
   * @param stats the server's memcached counters
   */
  public MemcacheHandler(ServerState server, MemcacheStats stats) {
    this.session = new MemcacheSession(server, stats);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (session.close) {
      return;
    }
    if (session.out == null) {
      session.out = ctx.alloc().buffer();
    }
    switch (msg) {
      case MemcacheFrame.Command c -> run(c);
      case MemcacheFrame.Error e -> {
        session.line(e.line());
        session.close |= e.close();
      }
      default -> throw new IllegalStateException("unexpected message " + msg);
    }
    if (session.out.readableBytes() >= FLUSH_THRESHOLD) {
      session.server.replies().send(ctx, session.out, false);
      session.out = null;
    }
  }

  private void run(MemcacheFrame.Command c) {
    if (c.tokens().isEmpty()) {
      session.line("ERROR");
      return;
    }
    session.server.commandProcessed();
    String name = new String(c.tokens().getFirst(), StandardCharsets.US_ASCII);
    if (!session.authenticated) {
      authenticate(name, c);
      return;
    }
    TextCommands.Command cmd = TextCommands.TABLE.get(name);
    if (cmd == null) {
      cmd = MetaCommands.TABLE.get(name);
    }
    if (cmd == null) {
      session.line("ERROR");
      return;
    }
    int mark = session.out.writerIndex();
    Lock lock = session.keyspace().shared();
    lock.lock();
    try {
      cmd.run(session, c.tokens(), c.data());
    } catch (RuntimeException e) {
      // The store refused the value (larger than a segment can hold) or similar.
      session.out.writerIndex(mark);
      session.line("SERVER_ERROR " + (e.getMessage() == null ? e.toString() : e.getMessage())
          .replace('\r', ' ').replace('\n', ' '));
    } finally {
      lock.unlock();
    }
  }

  /** memcached -Y's exchange: a {@code set} whose data is "user password" (see MemcacheAuth). */
  private void authenticate(String name, MemcacheFrame.Command c) {
    if (!name.equals("set") || c.data() == null) {
      session.line("CLIENT_ERROR unauthenticated");
      return;
    }
    String[] words = new String(c.data(), StandardCharsets.UTF_8).strip().split(" +");
    // memcached reads the first two words and ignores any more.
    if (words.length < 2) {
      session.line("CLIENT_ERROR bad authentication token format");
    } else if (session.server.memcacheAuth().check(words[0].getBytes(StandardCharsets.UTF_8),
        words[1].getBytes(StandardCharsets.UTF_8))) {
      session.authenticated = true;
      session.line("STORED");
    } else {
      session.line("CLIENT_ERROR authentication failure");
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    ByteBuf out = session.out;
    session.out = null;
    if (out != null) {
      session.server.replies().send(ctx, out, session.close);
    } else if (session.close) {
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

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (session.out != null) {
      session.out.release();
      session.out = null;
    }
    ctx.fireChannelInactive();
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
}
