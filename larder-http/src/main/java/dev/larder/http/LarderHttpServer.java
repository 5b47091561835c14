package dev.larder.http;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Larder's HTTP endpoints on their own port: {@code /metrics} (Prometheus text), {@code
 * /api/caches} (JSON), REST on entries, and the console at {@code /}.
 *
 * <pre>{@code
 * CacheDirectory caches = new CacheDirectory().addStrings("books", books);
 * try (LarderHttpServer http = LarderHttpServer.builder(caches).port(0).start()) {
 *   System.out.println("console at " + http.uri());
 * }
 * }</pre>
 *
 * <p>Lifecycle: {@link Builder#start()} binds and returns a running server; {@link #close()} stops
 * accepting, closes open connections and, unless the event loops were given by the caller, shuts
 * them down. The caches are never closed by the server. Thread-safe.
 */
public final class LarderHttpServer implements AutoCloseable {

  private final Channel channel;
  private final EventLoopGroup group;
  private final boolean ownsGroup;
  private final PrometheusMeterRegistry registry;
  private final InetSocketAddress address;

  private LarderHttpServer(
      Channel channel, EventLoopGroup group, boolean ownsGroup, PrometheusMeterRegistry registry) {
    this.channel = channel;
    this.group = group;
    this.ownsGroup = ownsGroup;
    this.registry = registry;
    this.address = (InetSocketAddress) channel.localAddress();
  }

  /**
   * Returns a builder with the {@linkplain LarderHttpConfig#defaults() defaults}.
   *
   * @param directory the caches to serve
   */
  public static Builder builder(CacheDirectory directory) {
    return new Builder(Objects.requireNonNull(directory, "directory"));
  }

  /** Returns the address and port the server listens on (the real port if 0 was asked). */
  public InetSocketAddress address() {
    return address;
  }

  /** Returns the port the server listens on. */
  public int port() {
    return address.getPort();
  }

  /** Returns {@code http://host:port/}, the console's address. */
  public URI uri() {
    String host = address.getAddress().getHostAddress();
    if (host.indexOf(':') >= 0) {
      host = "[" + host + "]";
    }
    return URI.create("http://" + host + ":" + port() + "/");
  }

  /** Returns the registry {@code /metrics} scrapes. */
  public PrometheusMeterRegistry meterRegistry() {
    return registry;
  }

  /** Stops listening and closes every connection; idempotent. */
  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    if (ownsGroup) {
      group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  /**
   * Collects the settings of a server, checked together at {@link #start()} (so that the order of
   * calls does not matter). Not thread-safe: use from one thread.
   */
  public static final class Builder {
    private final CacheDirectory directory;
    private InetAddress bind;
    private int port;
    private String password;
    private int maxBodyBytes;
    private Duration idleTimeout;
    private Set<String> hostNames;
    private PrometheusMeterRegistry registry;
    private EventLoopGroup group;

    private Builder(CacheDirectory directory) {
      this.directory = directory;
      config(LarderHttpConfig.defaults());
    }

    /**
     * Returns this builder.
     *
     * @param config all settings at once
     */
    public Builder config(LarderHttpConfig config) {
      Objects.requireNonNull(config, "config");
      bind = config.bind();
      port = config.port();
      password = config.password().orElse(null);
      maxBodyBytes = config.maxBodyBytes();
      idleTimeout = config.idleTimeout();
      hostNames = config.hostNames();
      return this;
    }

    /**
     * Returns this builder.
     *
     * @param host a host name or address literal to listen on
     * @throws IllegalArgumentException if the host cannot be resolved
     */
    public Builder bind(String host) {
      try {
        return bind(InetAddress.getByName(Objects.requireNonNull(host, "host")));
      } catch (UnknownHostException e) {
        throw new IllegalArgumentException("cannot resolve bind address '" + host + "'", e);
      }
    }

    /**
     * Returns this builder.
     *
     * @param address the address to listen on
     */
    public Builder bind(InetAddress address) {
      bind = Objects.requireNonNull(address, "address");
      return this;
    }

    /**
     * Returns this builder.
     *
     * @param newPort the port, 0 for any free one
     */
    public Builder port(int newPort) {
      port = newPort;
      return this;
    }

    /**
     * Returns this builder.
     *
     * @param newPassword the password every request must carry, or null for none
     */
    public Builder password(String newPassword) {
      password = newPassword;
      return this;
    }

    /**
     * Returns this builder.
     *
     * @param bytes the largest request body
     */
    public Builder maxBodyBytes(int bytes) {
      maxBodyBytes = bytes;
      return this;
    }

    /**
     * Returns this builder.
     *
     * @param timeout how long an idle connection stays open
     */
    public Builder idleTimeout(Duration timeout) {
      idleTimeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    /**
     * Returns this builder.
     *
     * @param names further host names under which requests that change data are accepted ({@link
     *     LarderHttpConfig#hostNames()})
     */
    public Builder hostNames(Set<String> names) {
      hostNames = Objects.requireNonNull(names, "names");
      return this;
    }

    /**
     * Returns this builder.
     *
     * @param meterRegistry the registry to bind the caches' meters to and scrape; by default a new
     *     one of the server's own
     */
    public Builder meterRegistry(PrometheusMeterRegistry meterRegistry) {
      registry = Objects.requireNonNull(meterRegistry, "meterRegistry");
      return this;
    }

    /**
     * Returns this builder.
     *
     * @param eventLoops event loops to share (e.g. an application's or larder-server's); the server
     *     does not shut them down. By default the server makes one thread of its own.
     */
    public Builder eventLoopGroup(EventLoopGroup eventLoops) {
      group = Objects.requireNonNull(eventLoops, "eventLoops");
      return this;
    }

    /**
     * Binds and starts the server.
     *
     * @return the running server
     * @throws IOException if the address cannot be bound
     * @throws IllegalArgumentException if the settings are invalid (see {@link LarderHttpConfig})
     */
    public LarderHttpServer start() throws IOException {
      LarderHttpConfig settled = settle();
      PrometheusMeterRegistry meters =
          registry != null ? registry : new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      boolean owns = group == null;
      EventLoopGroup loops =
          owns ? new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory()) : group;
      try {
        Channel ch =
            new ServerBootstrap()
                .group(loops)
                .channel(NioServerSocketChannel.class)
                .childHandler(new LarderHttpChannelInitializer(directory, settled, meters))
                .bind(new InetSocketAddress(settled.bind(), settled.port()))
                .sync()
                .channel();
        return new LarderHttpServer(ch, loops, owns, meters);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        shutDown(owns, loops);
        throw new IOException("interrupted while binding " + settled.bind(), e);
      } catch (RuntimeException e) {
        shutDown(owns, loops);
        throw new IOException(
            "cannot bind "
                + settled.bind().getHostAddress()
                + ":"
                + settled.port()
                + ": "
                + e.getMessage(),
            e);
      }
    }

    private LarderHttpConfig settle() {
      return new LarderHttpConfig(
          bind,
          port,
          java.util.Optional.ofNullable(password),
          maxBodyBytes,
          idleTimeout,
          hostNames);
    }

    private static void shutDown(boolean owns, EventLoopGroup loops) {
      if (owns) {
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
      }
    }
  }
}
