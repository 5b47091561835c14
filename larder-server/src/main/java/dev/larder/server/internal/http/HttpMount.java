package dev.larder.server.internal.http;

import dev.larder.http.CacheDirectory;
import dev.larder.http.KeyFormat;
import dev.larder.http.LarderHttpChannelInitializer;
import dev.larder.http.LarderHttpConfig;
import dev.larder.http.ValueFormat;
import dev.larder.server.ServerConfig;
import dev.larder.server.internal.ServerState;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.channel.ChannelHandler;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What larder-server mounts of larder-http: a directory holding the keyspace (as {@link
 * ServedKeyspace}, named {@value #CACHE_NAME}, with REST on database 0's string keys as {@code
 * application/octet-stream}) and a {@code server} status section, and the channel initializer that
 * serves it.
 *
 * <p>Security follows the server's: the HTTP side listens on the server's bind address, and if the
 * server has a password ({@code requirepass}) every HTTP request must carry the same one (HTTP
 * Basic with any user name, or {@code Authorization: Bearer}). The server's own check (no address
 * beyond loopback without a password) already holds; {@link LarderHttpConfig} checks it again. Idle
 * connections close after the server's {@code idle-timeout-seconds} (larder-http's default when
 * that is 0, as an HTTP connection has no use for staying open).
 *
 * <p>Thread-safe; one instance per server.
 */
public final class HttpMount {
  /** The keyspace's name in {@code /api/caches}, the console and the {@code cache} tag. */
  public static final String CACHE_NAME = "keyspace";

  private final CacheDirectory directory = new CacheDirectory();
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final LarderHttpConfig config;
  private final LarderHttpChannelInitializer initializer;

  /**
   * @param state the server's state (keyspace, configuration, counters)
   * @param port the port the HTTP listener will bind, as configured (0 for any)
   * @throws IllegalArgumentException if the server's settings make an invalid HTTP setting
   */
  public HttpMount(ServerState state, int port) {
    ServerConfig server = state.config();
    directory.add(
        CACHE_NAME, new ServedKeyspace(state.keyspace()), KeyFormat.strings(), ValueFormat.bytes());
    directory.section("server", () -> serverSection(state));
    ServerMeters.bind(state, registry);
    LarderHttpConfig c;
    try {
      c =
          LarderHttpConfig.defaults()
              .withPort(port)
              .withPassword(server.password().isEmpty() ? null : server.password())
              .withBind(address(server.bind()))
              .withHostNames(server.httpHostNames());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "http-port: "
              + e.getMessage()
              + "; set requirepass (HTTP asks for it) or turn HTTP off with http-port -1",
          e);
    }
    if (server.idleTimeoutSeconds() > 0) {
      c = c.withIdleTimeout(Duration.ofSeconds(server.idleTimeoutSeconds()));
    }
    this.config = c;
    this.initializer = new LarderHttpChannelInitializer(directory, config, registry);
  }

  /** Returns the directory the endpoints show (the keyspace and the server section). */
  public CacheDirectory directory() {
    return directory;
  }

  /** Returns the registry {@code /metrics} scrapes. */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** Returns the HTTP settings derived from the server's. */
  public LarderHttpConfig config() {
    return config;
  }

  /** Returns the child handler of the HTTP listener (sharable). */
  public ChannelHandler initializer() {
    return initializer;
  }

  /**
   * The console's server panel: a port is its number while it listens and "off" otherwise (never
   * 0); memory is the keyspace's, as INFO memory reports it. The console turns commandsProcessed
   * into commands per second; /metrics has the same figures ({@link ServerMeters}).
   */
  static Map<String, Object> serverSection(ServerState s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("respPort", port(s.respPort()));
    m.put("memcachePort", port(s.memcachePort()));
    m.put("connections", s.connections());
    m.put("connectionsReceived", s.connectionsReceived());
    m.put("rejectedConnections", s.rejectedConnections());
    m.put("commandsProcessed", s.commandsProcessed());
    m.put("memoryUsed", s.keyspace().memoryUsed());
    m.put("maxmemory", s.keyspace().maxMemory());
    m.put("maxmemoryPolicy", s.maxMemoryPolicy());
    m.put("uptimeSeconds", (System.currentTimeMillis() - s.startMillis()) / 1000);
    return m;
  }

  private static Object port(int port) {
    return port > 0 ? port : "off";
  }

  private static InetAddress address(String host) {
    try {
      return InetAddress.getByName(host);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("bind: unknown address '" + host + "'", e);
    }
  }
}
