package dev.larder.server;

import java.util.Locale;

/**
 * Every server setting, declared once: its name in the config file and on the command line, its
 * default, its description and its validation. {@link ServerConfig} is built from these, and the
 * settings table of docs/server.md lists them (checked by ServerSettingDocsTest).
 */
public enum ServerSetting {
  /** The address both listeners bind. */
  BIND("bind", "127.0.0.1", "address to listen on; anything but loopback needs passwords"),
  /** The RESP port. */
  RESP_PORT("resp-port", "6379", "RESP2/RESP3 port; 0 picks a free port, -1 disables RESP"),
  /** The memcached port. */
  MEMCACHE_PORT(
      "memcache-port",
      "11211",
      "memcached text/meta port; 0 picks a free port, -1 disables it"),
  /** The HTTP port: console, Prometheus metrics, JSON and REST (larder-http). */
  HTTP_PORT(
      "http-port",
      "8379",
      "HTTP port of the console, /metrics, /api/caches and REST (bind, password and TLS as"
          + " RESP's); 0 picks a free port, -1 disables it"),
  /** The byte bound of the keyspace. */
  MAXMEMORY("maxmemory", "256mb", "byte bound of all data (k, kb, m, mb, g, gb units; >= 1mb)"),
  /** What happens at the bound. */
  MAXMEMORY_POLICY(
      "maxmemory-policy",
      "allkeys-lfu",
      "allkeys-lfu (Larder's admission and eviction policy) or noeviction (writes fail with OOM)"),
  /** The RESP password. */
  REQUIREPASS("requirepass", "", "password of the default user (AUTH); empty for none"),
  /** The RESP users. */
  ACLFILE("aclfile", "", "Redis ACL file of 'user <name> <rule>...' lines (ACL users); empty for"
      + " none"),
  /** The memcached users. */
  MEMCACHE_AUTH_FILE("memcache-auth-file", "", "memcached -Y file of 'user:password' lines;"
      + " when set, memcached connections must authenticate first (needed off loopback)"),
  /** The connection limit. */
  MAX_CONNECTIONS("max-connections", "10000", "connections beyond this are refused (both ports)"),
  /** The request size limit. */
  MAX_REQUEST_BYTES(
      "max-request-bytes", "64mb", "largest RESP request or memcached item with its command line"),
  /** The bytes of requests one connection may hold. */
  CLIENT_QUERY_BUFFER_LIMIT("client-query-buffer-limit", "128mb", "most bytes of requests one"
      + " connection may hold not yet run (a partial request, requests read, a MULTI queue);"
      + " beyond it the client is disconnected (>= max-request-bytes)"),
  /** The bytes of unsent replies one connection may hold. */
  CLIENT_OUTPUT_BUFFER_LIMIT("client-output-buffer-limit", "128mb", "most bytes of replies one"
      + " connection may hold unsent (a client not reading is paused well before); a reply"
      + " beyond it disconnects the client (>= 1mb)"),
  /** The bytes all connections together may hold. */
  MAXMEMORY_CLIENTS("maxmemory-clients", "256mb", "most bytes of requests and unsent replies all"
      + " connections may hold together, beside maxmemory; beyond it the clients holding the"
      + " most are disconnected (>= max-request-bytes)"),
  /** The memcached item size limit. */
  MAX_ITEM_BYTES("max-item-bytes", "1mb", "largest memcached value (memcached's -I)"),
  /** The idle timeout. */
  IDLE_TIMEOUT_SECONDS(
      "idle-timeout-seconds", "300", "close connections idle this long; 0 never closes them"),
  /** The threads that run connections. */
  IO_THREADS("io-threads", "0", "event-loop threads that read, run and answer requests; 0 for one"
      + " per core"),
  /** The network transport. */
  IO_TRANSPORT("io-transport", "auto", "auto (Linux's native epoll when Netty's library loads,"
      + " else NIO), epoll or nio"),
  /** The TLS certificate. */
  TLS_CERT_FILE("tls-cert-file", "", "PEM certificate chain; with tls-key-file, both ports speak TLS"),
  /** The TLS key. */
  TLS_KEY_FILE("tls-key-file", "", "PEM PKCS#8 private key of tls-cert-file");

  private final String key;
  private final String defaultValue;
  private final String description;

  ServerSetting(String key, String defaultValue, String description) {
    this.key = key;
    this.defaultValue = defaultValue;
    this.description = description;
  }

  /** @return the setting's name in config files and CONFIG GET */
  public String key() {
    return key;
  }

  /** @return the default, as text */
  public String defaultValue() {
    return defaultValue;
  }

  /** @return what the setting does */
  public String description() {
    return description;
  }

  /**
   * @param key a setting name, any case
   * @return its setting
   * @throws IllegalArgumentException if no setting has that name
   */
  public static ServerSetting ofKey(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    for (ServerSetting s : values()) {
      if (s.key.equals(k)) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown server setting '" + key + "'");
  }

  /**
   * Parses a byte size as Redis writes them: a number with an optional unit {@code k},
   * {@code kb}, {@code m}, {@code mb}, {@code g}, {@code gb} (k is 1000, kb 1024).
   *
   * @param text the size
   * @return bytes
   * @throws IllegalArgumentException if malformed, negative or overflowing
   */
  public static long parseBytes(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    long unit = 1;
    String[][] units = {{"gb", "1073741824"}, {"mb", "1048576"}, {"kb", "1024"},
        {"g", "1000000000"}, {"m", "1000000"}, {"k", "1000"}, {"b", "1"}};
    for (String[] u : units) {
      if (t.endsWith(u[0])) {
        unit = Long.parseLong(u[1]);
        t = t.substring(0, t.length() - u[0].length());
        break;
      }
    }
    try {
      long n = Long.parseLong(t);
      if (n < 0) {
        throw new IllegalArgumentException("negative size '" + text + "'");
      }
      return Math.multiplyExact(n, unit);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException("not a byte size: '" + text + "'", e);
    }
  }
}
