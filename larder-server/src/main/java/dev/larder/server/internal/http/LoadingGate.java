package dev.larder.server.internal.http;

import dev.larder.server.internal.ServerState;
import dev.larder.server.internal.persist.LoadProgress;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;

/**
 * What HTTP answers while the server loads its log (and a cluster member joins): every request, the
 * console, {@code /api/caches}, {@code /metrics} and REST on keys alike, gets {@code 503 Service
 * Unavailable} with {@code Retry-After: 1} and a one-line text body saying so (RESP's {@code
 * -LOADING}), since each of them reads the keyspace, which is not whole yet (and, on a member that
 * has not joined, cannot be read at all). Once the load is done every request goes on to
 * larder-http as before. The check comes before larder-http's password check, as the listener's
 * whole answer while loading: it tells an unauthenticated client only that the server is loading.
 *
 * <p>Sits in each HTTP connection's pipeline just before larder-http's request handler, so it sees
 * whole requests. Stateless but for the server's loading state; sharable; thread-safe.
 */
@ChannelHandler.Sharable
public final class LoadingGate extends ChannelInboundHandlerAdapter {
  /** The body's first words, as RESP's {@code -LOADING} begins. */
  static final String MESSAGE = "LOADING the server is loading the dataset in memory";

  private final ServerState state;

  /**
   * @param state the server's state, whose loading state is read at each request
   */
  public LoadingGate(ServerState state) {
    this.state = state;
  }

  // a failed write of the answer closes the connection by itself; nothing to do with its future
  @SuppressWarnings("FutureReturnValueIgnored")
  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    LoadProgress loading = state.loading();
    if (loading == null || !(msg instanceof HttpRequest request)) {
      ctx.fireChannelRead(msg);
      return;
    }
    boolean keepAlive = HttpUtil.isKeepAlive(request);
    ReferenceCountUtil.release(msg);
    ByteBuf body =
        Unpooled.copiedBuffer(
            MESSAGE
                + (state.cluster() == null ? "" : " and joining its cluster")
                + "; try again once it is loaded\n",
            StandardCharsets.UTF_8);
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1, HttpResponseStatus.SERVICE_UNAVAILABLE, body);
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
    response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
    response.headers().setInt(HttpHeaderNames.RETRY_AFTER, 1);
    response.headers().set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE);
    if (keepAlive) {
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
      ctx.writeAndFlush(response);
    } else {
      ctx.writeAndFlush(response).addListener(io.netty.channel.ChannelFutureListener.CLOSE);
    }
  }
}
