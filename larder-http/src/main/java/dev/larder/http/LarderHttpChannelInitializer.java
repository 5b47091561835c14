package dev.larder.http;

import dev.larder.http.internal.HttpEndpoints;
import dev.larder.http.internal.HttpRequestHandler;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The Netty pipeline of Larder's HTTP endpoints, for a server that owns its own {@code
 * ServerBootstrap} (larder-server, or an application's Netty server): hand it to {@code
 * ServerBootstrap.childHandler}. {@link LarderHttpServer} uses it the same way.
 *
 * <p>Each connection gets an HTTP/1.1 codec (request line up to 4 KiB, headers up to 16 KiB), an
 * aggregator bounded by {@link LarderHttpConfig#maxBodyBytes()}, an idle timeout, and the request
 * handler. The handler runs on the connection's event loop; every endpoint reads the caches without
 * blocking. Thread-safe: one instance serves every connection.
 */
public final class LarderHttpChannelInitializer extends ChannelInitializer<SocketChannel> {

  /**
   * The name of the request handler in each connection's pipeline, the last handler, after the
   * aggregator: a handler added just before it (after this initializer ran) sees each request
   * whole, as a {@link io.netty.handler.codec.http.FullHttpRequest}, and may answer it itself.
   */
  public static final String REQUEST_HANDLER = "larder";

  private static final int MAX_INITIAL_LINE = 4096;
  private static final int MAX_HEADER_SIZE = 16 * 1024;

  private final LarderHttpConfig config;
  private final HttpEndpoints endpoints;

  /**
   * @param directory the caches to serve
   * @param config the settings (its bind address and port are the caller's to use)
   * @param registry where the caches' meters are bound and what {@code /metrics} scrapes; meters
   *     the application registered there itself are scraped too
   */
  public LarderHttpChannelInitializer(
      CacheDirectory directory, LarderHttpConfig config, PrometheusMeterRegistry registry) {
    this.config = Objects.requireNonNull(config, "config");
    this.endpoints =
        new HttpEndpoints(
            Objects.requireNonNull(directory, "directory"),
            config,
            Objects.requireNonNull(registry, "registry"));
  }

  @Override
  protected void initChannel(SocketChannel ch) {
    ChannelPipeline p = ch.pipeline();
    long idleMillis = config.idleTimeout().toMillis();
    p.addLast("idle", new IdleStateHandler(0, 0, idleMillis, TimeUnit.MILLISECONDS));
    p.addLast("http", new HttpServerCodec(MAX_INITIAL_LINE, MAX_HEADER_SIZE, 8192));
    p.addLast("aggregate", new HttpObjectAggregator(config.maxBodyBytes()));
    p.addLast(REQUEST_HANDLER, new HttpRequestHandler(endpoints));
  }
}
