package dev.larder.http.internal;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.timeout.IdleStateEvent;
import java.net.InetSocketAddress;
import java.util.Map;

/**
 * Answers one connection's requests: checks that the request decoded, refuses a request that
 * changes data from anywhere but the console's own origin ({@link ChangeGuard}), checks the
 * password, routes it, and writes the reply.
 *
 * <p>Failure containment: a request Netty could not decode (a malformed request line or header, a
 * line or header over its limit) is answered 400, 414 or 431 and its connection closed, since the
 * stream's framing can no longer be trusted. A refused request ({@link HttpProblem}) is answered
 * with its status and the connection kept. Anything else an endpoint throws is answered 500 with
 * the exception's message; an exception on the connection itself closes that connection only. No
 * request can stop the server.
 */
public final class HttpRequestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

  private static final System.Logger LOG = System.getLogger(HttpRequestHandler.class.getName());

  private final HttpEndpoints endpoints;

  /**
   * @param endpoints the routes, shared by every connection
   */
  public HttpRequestHandler(HttpEndpoints endpoints) {
    this.endpoints = endpoints;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
    DecoderResult decoded = request.decoderResult();
    if (decoded.isFailure()) {
      write(ctx, false, undecodable(decoded.cause()));
      return;
    }
    boolean keepAlive = HttpUtil.isKeepAlive(request);
    write(ctx, keepAlive, answer(request, (InetSocketAddress) ctx.channel().localAddress()));
  }

  private HttpReply answer(FullHttpRequest request, InetSocketAddress local) {
    if (ChangeGuard.changes(request.method().name())) {
      String refusal =
          endpoints
              .guard()
              .refusal(
                  request.headers().get(HttpHeaderNames.HOST),
                  request.headers().get(HttpHeaderNames.ORIGIN),
                  request.headers().get("Sec-Fetch-Site"),
                  local);
      if (refusal != null) {
        return HttpReply.error(HttpResponseStatus.FORBIDDEN, refusal);
      }
    }
    String authorization = request.headers().get(HttpHeaderNames.AUTHORIZATION);
    if (!endpoints.authenticator().accepts(authorization)) {
      String message = authorization == null ? "a password is required" : "wrong password";
      return HttpReply.error(HttpResponseStatus.UNAUTHORIZED, message)
          .withHeader("WWW-Authenticate", "Basic realm=\"larder\", charset=\"UTF-8\"");
    }
    try {
      return endpoints.route(
          request.method().name(),
          request.uri(),
          request.headers().get(HttpHeaderNames.ACCEPT),
          request.headers().get(HttpHeaderNames.CONTENT_TYPE),
          ByteBufUtil.getBytes(request.content()));
    } catch (HttpProblem p) {
      HttpReply reply = HttpReply.error(p.status(), p.getMessage());
      return p.allow() == null ? reply : reply.withHeader("Allow", p.allow());
    } catch (RuntimeException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "request " + request.method() + " " + request.uri() + " failed",
          e);
      return HttpReply.error(HttpResponseStatus.INTERNAL_SERVER_ERROR, String.valueOf(e));
    }
  }

  private static HttpReply undecodable(Throwable cause) {
    if (cause instanceof TooLongHttpLineException) {
      return HttpReply.error(HttpResponseStatus.REQUEST_URI_TOO_LONG, "request line too long");
    }
    if (cause instanceof TooLongHttpHeaderException) {
      return HttpReply.error(
          HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "request headers too large");
    }
    if (cause instanceof TooLongFrameException) {
      return HttpReply.error(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "request too large");
    }
    return HttpReply.error(
        HttpResponseStatus.BAD_REQUEST, "malformed HTTP request: " + cause.getMessage());
  }

  private static void write(ChannelHandlerContext ctx, boolean keepAlive, HttpReply reply) {
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1, reply.status(), Unpooled.wrappedBuffer(reply.body()));
    if (reply.contentType() != null) {
      response.headers().set(HttpHeaderNames.CONTENT_TYPE, reply.contentType());
    }
    for (Map.Entry<String, String> h : reply.headers().entrySet()) {
      response.headers().set(h.getKey(), h.getValue());
    }
    response.headers().set("X-Content-Type-Options", "nosniff");
    HttpUtil.setContentLength(response, reply.body().length);
    if (keepAlive) {
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
      // a reply that cannot be written leaves the connection in an unknown state: close it
      ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    } else {
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
  }

  @Override
  // A close that fails has nothing left to undo: the channel is closed either way.
  @SuppressWarnings("FutureReturnValueIgnored")
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
    if (event instanceof IdleStateEvent) {
      ctx.close();
      return;
    }
    super.userEventTriggered(ctx, event);
  }

  @Override
  // A close that fails has nothing left to undo: the channel is closed either way.
  @SuppressWarnings("FutureReturnValueIgnored")
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.log(System.Logger.Level.DEBUG, "closing HTTP connection " + ctx.channel(), cause);
    ctx.close();
  }
}
