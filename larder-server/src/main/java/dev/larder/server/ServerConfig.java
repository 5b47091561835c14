package dev.larder.server;

import java.io.IOException;
import java.io.Reader;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * The server's configuration: one value per {@link ServerSetting}, validated when built.
 *
 * <p>Sources, later ones winning: the defaults, a properties file ({@code name = value} lines,
 * names as in {@link ServerSetting#key()}), then explicit overrides.
 *
 * <p>Immutable and thread-safe.
 */
public final class ServerConfig {
  private final Map<ServerSetting, String> values;

  private ServerConfig(Map<ServerSetting, String> values) {
    this.values = values;
    validate();
  }

  /** Returns the defaults: loopback, ports 6379, 11211 and 8379 (HTTP), 256 MiB, no password. */
  public static ServerConfig defaults() {
    return of(Map.of());
  }

  /**
   * Returns the configuration.
   *
   * @param overrides setting names to values; the rest keep their defaults
   * @throws IllegalArgumentException for an unknown setting or an invalid value
   */
  public static ServerConfig of(Map<String, String> overrides) {
    Map<ServerSetting, String> values = new EnumMap<>(ServerSetting.class);
    for (ServerSetting s : ServerSetting.values()) {
      values.put(s, s.defaultValue());
    }
    overrides.forEach((k, v) -> values.put(ServerSetting.ofKey(k), v.trim()));
    return new ServerConfig(values);
  }

  /**
   * Returns the configuration.
   *
   * @param file a properties file of settings
   * @param overrides settings that win over the file's
   * @throws IOException if the file cannot be read
   * @throws IllegalArgumentException for an unknown setting or an invalid value
   */
  public static ServerConfig load(Path file, Map<String, String> overrides) throws IOException {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file)) {
      p.load(r);
    }
    Map<String, String> merged = new java.util.HashMap<>();
    p.stringPropertyNames().forEach(k -> merged.put(k, p.getProperty(k)));
    merged.putAll(overrides);
    return of(merged);
  }

  /**
   * Returns its value as text.
   *
   * @param setting a setting
   */
  public String get(ServerSetting setting) {
    return values.get(setting);
  }

  /** Returns the address to bind. */
  public String bind() {
    return get(ServerSetting.BIND);
  }

  /** Returns the RESP port, 0 for any free port, -1 when disabled. */
  public int respPort() {
    return Integer.parseInt(get(ServerSetting.RESP_PORT));
  }

  /** Returns the memcached port, 0 for any free port, -1 when disabled. */
  public int memcachePort() {
    return Integer.parseInt(get(ServerSetting.MEMCACHE_PORT));
  }

  /** Returns the HTTP port, 0 for any free port, -1 when disabled. */
  public int httpPort() {
    return Integer.parseInt(get(ServerSetting.HTTP_PORT));
  }

  /** Returns the byte bound. */
  public long maxMemory() {
    return ServerSetting.parseBytes(get(ServerSetting.MAXMEMORY));
  }

  /**
   * The {@code default} user's password: what {@code AUTH <password>} checks, and the one password
   * other front ends of the server (the HTTP side) should require. An aclfile may give the default
   * user other passwords and define more users; {@link LarderServer#authenticate} checks against
   * all of them as they stand.
   *
   * @return the requirepass setting, empty for none
   */
  public String password() {
    return get(ServerSetting.REQUIREPASS);
  }

  /** Returns whether requirepass or an aclfile is set (an aclfile may still leave default open). */
  public boolean passwordConfigured() {
    return !password().isEmpty() || !get(ServerSetting.ACLFILE).isEmpty();
  }

  /** Returns the connection limit. */
  public int maxConnections() {
    return Integer.parseInt(get(ServerSetting.MAX_CONNECTIONS));
  }

  /** Returns the largest request in bytes. */
  public int maxRequestBytes() {
    return (int) ServerSetting.parseBytes(get(ServerSetting.MAX_REQUEST_BYTES));
  }

  /** Returns the most request bytes one connection may hold. */
  public long clientQueryBufferLimit() {
    return ServerSetting.parseBytes(get(ServerSetting.CLIENT_QUERY_BUFFER_LIMIT));
  }

  /** Returns the most unsent reply bytes one connection may hold. */
  public long clientOutputBufferLimit() {
    return ServerSetting.parseBytes(get(ServerSetting.CLIENT_OUTPUT_BUFFER_LIMIT));
  }

  /** Returns notify-keyspace-events: Redis's class letters, empty for none. */
  public String notifyKeyspaceEvents() {
    return get(ServerSetting.NOTIFY_KEYSPACE_EVENTS);
  }

  /** Returns the most keys the client-side caching table holds, 0 for no bound. */
  public long trackingTableMaxKeys() {
    return Long.parseLong(get(ServerSetting.TRACKING_TABLE_MAX_KEYS));
  }

  /** Returns the most bytes all connections together may hold (requests and unsent replies). */
  public long maxMemoryClients() {
    return ServerSetting.parseBytes(get(ServerSetting.MAXMEMORY_CLIENTS));
  }

  /** Returns the largest memcached item in bytes. */
  public int maxItemBytes() {
    return (int) ServerSetting.parseBytes(get(ServerSetting.MAX_ITEM_BYTES));
  }

  /** Returns the idle timeout in seconds, 0 for none. */
  public int idleTimeoutSeconds() {
    return Integer.parseInt(get(ServerSetting.IDLE_TIMEOUT_SECONDS));
  }

  /** Returns the event-loop threads: the setting, or the number of cores when it is 0. */
  public int ioThreads() {
    int n = Integer.parseInt(get(ServerSetting.IO_THREADS));
    return n == 0 ? Runtime.getRuntime().availableProcessors() : n;
  }

  /**
   * Returns the event loops of a clustered server: {@code cluster-command-threads}, or four per
   * core for its default 0.
   *
   * <p>Why four per core: a command that waits for another member (a read of a key this member does
   * not hold, a forwarded compare-and-set, a SYNC write's acknowledgements where they are not
   * deferred) waits on its connection's loop and holds up the other connections of that loop, so a
   * clustered server runs more loops than cores; but every loop beyond the cores turns a pipeline-1
   * request into a thread wake-up of its own instead of one of a batch of ready connections per
   * wake-up, which on two cores cost more than the waits it spares. Measured on two cores
   * (docs/design/server.md, "What the clustered path costs"): 8 loops spent 22-27% less CPU a
   * request than 64 under a cluster-aware client and served plain clients (forwards and remote
   * reads) faster too.
   */
  public int clusterCommandThreads() {
    int n = Integer.parseInt(get(ServerSetting.CLUSTER_COMMAND_THREADS));
    return n == 0 ? 4 * Runtime.getRuntime().availableProcessors() : n;
  }

  /** Returns auto, epoll or nio. */
  public String ioTransport() {
    return get(ServerSetting.IO_TRANSPORT);
  }

  /** Returns the maxmemory policy. */
  public String maxMemoryPolicy() {
    return get(ServerSetting.MAXMEMORY_POLICY);
  }

  /** Returns the persistence directory, or null when the data lives in memory only. */
  public java.nio.file.Path dir() {
    String d = get(ServerSetting.DIR);
    return d.isEmpty() ? null : java.nio.file.Path.of(d);
  }

  /** Returns always, everysec or no. */
  public String appendfsync() {
    return get(ServerSetting.APPENDFSYNC);
  }

  /** Returns whether recovery salvages a damaged log rather than refusing it. */
  public boolean salvage() {
    return get(ServerSetting.RECOVERY).equals("salvage");
  }

  /** Returns log bytes since the last checkpoint that start one, 0 for none. */
  public long checkpointLogBytes() {
    return ServerSetting.parseBytes(get(ServerSetting.CHECKPOINT_LOG_BYTES));
  }

  /** Returns the further host names HTTP accepts changes under, lower case; may be empty. */
  public Set<String> httpHostNames() {
    Set<String> names = new TreeSet<>();
    for (String name : get(ServerSetting.HTTP_HOST_NAMES).split(",", -1)) {
      if (!name.isBlank()) {
        names.add(name.strip().toLowerCase(Locale.ROOT));
      }
    }
    return names;
  }

  /** Returns whether the server registers its MXBean ({@link LarderServerMXBean}). */
  public boolean jmx() {
    return get(ServerSetting.JMX).equals("yes");
  }

  /** Returns whether TLS is configured. */
  public boolean tls() {
    return !get(ServerSetting.TLS_CERT_FILE).isEmpty();
  }

  /** Returns whether the bind address is a loopback address. */
  public boolean loopback() {
    try {
      return InetAddress.getByName(bind()).isLoopbackAddress();
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("bind: unknown address '" + bind() + "'", e);
    }
  }

  /** Returns the cluster name, or null when the server serves alone. */
  public String cluster() {
    String name = get(ServerSetting.CLUSTER);
    return name.isEmpty() ? null : name;
  }

  /** Returns the cluster transport's port. */
  public int clusterPort() {
    return Integer.parseInt(get(ServerSetting.CLUSTER_PORT));
  }

  /** Returns how long a clustered command waits for other members, in milliseconds. */
  public long clusterTimeoutMillis() {
    return Long.parseLong(get(ServerSetting.CLUSTER_TIMEOUT));
  }

  /** Returns whether the clustered keyspace commits through cluster transactions. */
  public boolean clusterTransactions() {
    return get(ServerSetting.CLUSTER_TRANSACTIONS).equals("on");
  }

  /** Returns whether every client is redirected with MOVED. */
  public boolean clusterRedirects() {
    return get(ServerSetting.CLUSTER_REDIRECTS).equals("on");
  }

  /** Returns the address cluster-aware clients are given for this member. */
  public String clusterAnnounceIp() {
    String ip = get(ServerSetting.CLUSTER_ANNOUNCE_IP);
    if (!ip.isEmpty()) {
      return ip;
    }
    try {
      return InetAddress.getByName(bind()).isAnyLocalAddress()
          ? get(ServerSetting.CLUSTER_BIND)
          : bind();
    } catch (UnknownHostException e) {
      return bind();
    }
  }

  private void validateCluster() {
    checkPort(ServerSetting.CLUSTER_PORT, clusterPort());
    check(clusterPort() > 0, ServerSetting.CLUSTER_PORT, "1..65535");
    check(
        List.of("replicated", "distributed").contains(get(ServerSetting.CLUSTER_MODE)),
        ServerSetting.CLUSTER_MODE,
        "replicated or distributed");
    int owners = Integer.parseInt(get(ServerSetting.CLUSTER_OWNERS));
    check(owners >= 1 && owners <= 16, ServerSetting.CLUSTER_OWNERS, "1..16");
    check(
        List.of("sync", "async").contains(get(ServerSetting.CLUSTER_REPLICATION)),
        ServerSetting.CLUSTER_REPLICATION,
        "sync or async");
    check(
        List.of("", "quorum", "allow-all").contains(get(ServerSetting.CLUSTER_PARTITION_HANDLING)),
        ServerSetting.CLUSTER_PARTITION_HANDLING,
        "quorum, allow-all or empty");
    check(
        List.of("on", "off").contains(get(ServerSetting.CLUSTER_MINORITY_READS)),
        ServerSetting.CLUSTER_MINORITY_READS,
        "on or off");
    check(
        List.of("on", "off").contains(get(ServerSetting.CLUSTER_REDIRECTS)),
        ServerSetting.CLUSTER_REDIRECTS,
        "on or off");
    check(
        List.of("on", "off").contains(get(ServerSetting.CLUSTER_TRANSACTIONS)),
        ServerSetting.CLUSTER_TRANSACTIONS,
        "on or off");
    if (clusterTransactions()) {
      int size = Integer.parseInt(get(ServerSetting.CLUSTER_SIZE));
      // every view with a majority must hold an owner of every segment (cluster-transactions.md)
      check(
          get(ServerSetting.CLUSTER_MODE).equals("replicated") || owners > size - (size / 2 + 1),
          ServerSetting.CLUSTER_TRANSACTIONS,
          "off with cluster-mode distributed unless cluster-owners is above cluster-size minus a"
              + " majority of it (2 of 3, 3 of 5)");
      check(
          get(ServerSetting.CLUSTER_STACK).isEmpty(),
          ServerSetting.CLUSTER_TRANSACTIONS,
          "off with cluster-stack (its transport is made from cluster-port + 1000)");
      check(
          clusterPort() + 1000 <= 65535,
          ServerSetting.CLUSTER_TRANSACTIONS,
          "off with cluster-port above 64535");
    }
    check(
        Integer.parseInt(get(ServerSetting.CLUSTER_SIZE)) >= 1,
        ServerSetting.CLUSTER_SIZE,
        "at least 1");
    check(clusterTimeoutMillis() > 0, ServerSetting.CLUSTER_TIMEOUT, "positive");
    int segments = Integer.parseInt(get(ServerSetting.CLUSTER_SEGMENTS));
    check(
        segments >= 1 && segments <= 16384 && Integer.bitCount(segments) == 1,
        ServerSetting.CLUSTER_SEGMENTS,
        "a power of two in 1..16384");
    int threads = Integer.parseInt(get(ServerSetting.CLUSTER_COMMAND_THREADS));
    check(threads >= 0 && threads <= 4096, ServerSetting.CLUSTER_COMMAND_THREADS, "0..4096");
    String peer = "[^\\s,\\[\\]]+\\[\\d+\\]";
    check(
        get(ServerSetting.PEERS).matches("|" + peer + "(," + peer + ")*"),
        ServerSetting.PEERS,
        "HOST[PORT],HOST[PORT],... or empty");
  }

  private void validate() {
    try {
      checkPort(ServerSetting.RESP_PORT, respPort());
      checkPort(ServerSetting.MEMCACHE_PORT, memcachePort());
      checkPort(ServerSetting.HTTP_PORT, httpPort());
      check(maxMemory() >= 1 << 20, ServerSetting.MAXMEMORY, "at least 1mb");
      check(maxConnections() > 0, ServerSetting.MAX_CONNECTIONS, "positive");
      long request = ServerSetting.parseBytes(get(ServerSetting.MAX_REQUEST_BYTES));
      check(request >= 1024 && request <= 1 << 30, ServerSetting.MAX_REQUEST_BYTES, "1kb..1gb");
      long item = ServerSetting.parseBytes(get(ServerSetting.MAX_ITEM_BYTES));
      check(
          item >= 1024 && item <= request, ServerSetting.MAX_ITEM_BYTES, "1kb..max-request-bytes");
      check(
          clientQueryBufferLimit() >= request,
          ServerSetting.CLIENT_QUERY_BUFFER_LIMIT,
          "at least max-request-bytes");
      check(
          clientOutputBufferLimit() >= 1 << 20,
          ServerSetting.CLIENT_OUTPUT_BUFFER_LIMIT,
          "at least 1mb");
      check(
          maxMemoryClients() >= request,
          ServerSetting.MAXMEMORY_CLIENTS,
          "at least max-request-bytes");
      check(idleTimeoutSeconds() >= 0, ServerSetting.IDLE_TIMEOUT_SECONDS, "0 or more");
      check(trackingTableMaxKeys() >= 0, ServerSetting.TRACKING_TABLE_MAX_KEYS, "0 or more");
      check(
          notifyKeyspaceEvents().matches("[Ag$lshzxeKEtmdn]*"),
          ServerSetting.NOTIFY_KEYSPACE_EVENTS,
          "Redis's class letters, from Ag$lshzxeKEtmdn");
      int io = Integer.parseInt(get(ServerSetting.IO_THREADS));
      check(io >= 0 && io <= 1024, ServerSetting.IO_THREADS, "0..1024");
      validateCluster();
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a number: " + e.getMessage(), e);
    }
    check(
        List.of("auto", "epoll", "nio").contains(ioTransport()),
        ServerSetting.IO_TRANSPORT,
        "auto, epoll or nio");
    String policy = maxMemoryPolicy();
    check(
        policy.equals("allkeys-lfu") || policy.equals("noeviction"),
        ServerSetting.MAXMEMORY_POLICY,
        "allkeys-lfu or noeviction");
    check(
        List.of("always", "everysec", "no").contains(appendfsync()),
        ServerSetting.APPENDFSYNC,
        "always, everysec or no");
    check(
        List.of("strict", "salvage").contains(get(ServerSetting.RECOVERY)),
        ServerSetting.RECOVERY,
        "strict or salvage");
    try {
      checkpointLogBytes();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          ServerSetting.CHECKPOINT_LOG_BYTES.key() + " must be a byte size: " + e.getMessage(), e);
    }
    check(List.of("yes", "no").contains(get(ServerSetting.JMX)), ServerSetting.JMX, "yes or no");
    check(
        httpHostNames().stream()
            .allMatch(n -> !n.contains(":") && !n.contains("/") && !n.contains(" ")),
        ServerSetting.HTTP_HOST_NAMES,
        "host names without a port, path or space, separated by commas");
    check(
        get(ServerSetting.TLS_CERT_FILE).isEmpty() == get(ServerSetting.TLS_KEY_FILE).isEmpty(),
        ServerSetting.TLS_KEY_FILE,
        "set together with tls-cert-file");
    if (!loopback()) {
      // Off loopback, every listener needs passwords: refuse to start rather than serve openly.
      check(
          respPort() == -1 || passwordConfigured(),
          ServerSetting.REQUIREPASS,
          "set (or an aclfile given) when bind "
              + bind()
              + " is not a loopback address:"
              + " Larder does not accept unauthenticated RESP connections off loopback");
      check(
          memcachePort() == -1 || !get(ServerSetting.MEMCACHE_AUTH_FILE).isEmpty(),
          ServerSetting.MEMCACHE_AUTH_FILE,
          "set (or memcache-port -1) when bind "
              + bind()
              + " is not a loopback address: Larder does not accept unauthenticated memcached"
              + " connections off loopback");
      // The HTTP side asks for the default user's password (HTTP Basic or Bearer); an aclfile's
      // other users are RESP's only.
      check(
          httpPort() == -1 || !password().isEmpty(),
          ServerSetting.REQUIREPASS,
          "set (or http-port -1) when bind "
              + bind()
              + " is not a loopback address: the HTTP"
              + " side asks for requirepass and serves no one unauthenticated off loopback");
    }
  }

  private static void checkPort(ServerSetting s, int port) {
    check(port >= -1 && port <= 65535, s, "-1..65535");
  }

  private static void check(boolean ok, ServerSetting s, String rule) {
    if (!ok) {
      throw new IllegalArgumentException(s.key() + " must be " + rule);
    }
  }
}
