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
      "memcache-port", "11211", "memcached text/meta port; 0 picks a free port, -1 disables it"),
  /** The HTTP port: console, Prometheus metrics, JSON and REST (larder-http). */
  HTTP_PORT(
      "http-port",
      "8379",
      "HTTP port of the console, /metrics, /api/caches and REST (bind, password and TLS as"
          + " RESP's); 0 picks a free port, -1 disables it"),
  /** Further names the HTTP side accepts changes under. */
  HTTP_HOST_NAMES(
      "http-host-names",
      "",
      "comma-separated host names, besides the bind address"
          + " and localhost, under which HTTP requests that change data (REST PUT and DELETE, the"
          + " console's delete and clear) are accepted, e.g. the machine's DNS name; other names are"
          + " refused (DNS rebinding)"),
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
  ACLFILE(
      "aclfile",
      "",
      "Redis ACL file of 'user <name> <rule>...' lines (ACL users); empty for" + " none"),
  /** The memcached users. */
  MEMCACHE_AUTH_FILE(
      "memcache-auth-file",
      "",
      "memcached -Y file of 'user:password' lines;"
          + " when set, memcached connections must authenticate first (needed off loopback)"),
  /** The connection limit. */
  MAX_CONNECTIONS("max-connections", "10000", "connections beyond this are refused (both ports)"),
  /** The request size limit. */
  MAX_REQUEST_BYTES(
      "max-request-bytes", "64mb", "largest RESP request or memcached item with its command line"),
  /** The bytes of requests one connection may hold. */
  CLIENT_QUERY_BUFFER_LIMIT(
      "client-query-buffer-limit",
      "128mb",
      "most bytes of requests one"
          + " connection may hold not yet run (a partial request, requests read, a MULTI queue);"
          + " beyond it the client is disconnected (>= max-request-bytes)"),
  /** The bytes of unsent replies one connection may hold. */
  CLIENT_OUTPUT_BUFFER_LIMIT(
      "client-output-buffer-limit",
      "128mb",
      "most bytes of replies one"
          + " connection may hold unsent (a client not reading is paused well before); a reply"
          + " beyond it disconnects the client (>= 1mb)"),
  /** The bytes all connections together may hold. */
  MAXMEMORY_CLIENTS(
      "maxmemory-clients",
      "256mb",
      "most bytes of requests and unsent replies all"
          + " connections may hold together, beside maxmemory; beyond it the clients holding the"
          + " most are disconnected (>= max-request-bytes)"),
  /** Which keyspace events are published. */
  NOTIFY_KEYSPACE_EVENTS(
      "notify-keyspace-events",
      "",
      "keyspace notifications, Redis's class letters: K and/or E, with g $ l s h z x e t m d n or"
          + " A; empty publishes none (CONFIG SET changes it)"),
  /** The tracking table's bound. */
  TRACKING_TABLE_MAX_KEYS(
      "tracking-table-max-keys",
      "1000000",
      "most keys remembered for CLIENT TRACKING clients; past it, keys leave the table and their"
          + " clients are told to drop them; 0 for no bound"),
  /** The memcached item size limit. */
  MAX_ITEM_BYTES("max-item-bytes", "1mb", "largest memcached value (memcached's -I)"),
  /** The idle timeout. */
  IDLE_TIMEOUT_SECONDS(
      "idle-timeout-seconds", "300", "close connections idle this long; 0 never closes them"),
  /** The threads that run connections. */
  IO_THREADS(
      "io-threads",
      "0",
      "event-loop threads that read, run and answer requests; 0 for one" + " per core"),
  /** The network transport. */
  IO_TRANSPORT(
      "io-transport",
      "auto",
      "auto (Linux's native epoll when Netty's library loads," + " else NIO), epoll or nio"),
  /** The persistence directory. */
  DIR(
      "dir",
      "",
      "directory of the log and checkpoints: every write is logged and recovered at"
          + " start; empty keeps the data in memory only"),
  /** When the log is forced. */
  APPENDFSYNC(
      "appendfsync",
      "everysec",
      "with dir: always (a reply waits until its write is"
          + " forced; group commit), everysec (written before the reply, forced every second) or no"
          + " (written before the reply, forcing left to the OS)"),
  /** What recovery does with damage. */
  RECOVERY(
      "recovery",
      "strict",
      "with dir: strict (a damaged log stops the start, naming file"
          + " and offset) or salvage (start with what is intact and print what was dropped)"),
  /** The automatic checkpoint's trigger. */
  CHECKPOINT_LOG_BYTES(
      "checkpoint-log-bytes",
      "64mb",
      "with dir: take a checkpoint in the"
          + " background once the log since the last one holds this much; 0 only on SAVE, BGSAVE and"
          + " BGREWRITEAOF"),
  /** The TLS certificate. */
  TLS_CERT_FILE(
      "tls-cert-file", "", "PEM certificate chain; with tls-key-file, both ports speak TLS"),
  /** The TLS key. */
  TLS_KEY_FILE("tls-key-file", "", "PEM PKCS#8 private key of tls-cert-file"),
  /** The server's MXBean. */
  JMX(
      "jmx",
      "yes",
      "yes registers the server's figures as the MXBean"
          + " dev.larder:type=Server,name=\"larder-server\" (-2, -3... for further servers in one"
          + " JVM); no registers none"),
  /** The cluster to join. */
  CLUSTER("cluster", "", "name of the Larder cluster to join (or found); empty serves alone"),
  /** The cluster transport's address. */
  CLUSTER_BIND(
      "cluster-bind",
      "127.0.0.1",
      "address the cluster transport (JGroups TCP) binds" + " and the other members reach"),
  /** The cluster transport's port. */
  CLUSTER_PORT("cluster-port", "7800", "cluster transport port"),
  /** Where the other members are. */
  PEERS(
      "peers",
      "",
      "members to look for, as HOST[PORT],HOST[PORT],...; empty looks on"
          + " cluster-bind, ports 7800 to 7809 and cluster-port"),
  /** A JGroups stack of the user's. */
  CLUSTER_STACK(
      "cluster-stack",
      "",
      "a JGroups XML stack file, instead of the TCP and TCPPING"
          + " stack made from cluster-bind, cluster-port and peers"),
  /** How keys are spread. */
  CLUSTER_MODE(
      "cluster-mode",
      "replicated",
      "replicated (every member holds every key) or"
          + " distributed (cluster-owners copies of each key)"),
  /** Copies of each key in distributed mode. */
  CLUSTER_OWNERS("cluster-owners", "2", "copies of each key in distributed mode (1..16)"),
  /** When writes return. */
  CLUSTER_REPLICATION(
      "cluster-replication",
      "sync",
      "sync (a write is acknowledged once every"
          + " owner holds it) or async (once the key's primary does)"),
  /** What a member cut off from the majority does. */
  CLUSTER_PARTITION_HANDLING(
      "cluster-partition-handling",
      "",
      "quorum (a member that sees less"
          + " than a majority of the cluster refuses writes) or allow-all (both sides serve; the"
          + " losing side's writes are dropped at the merge); empty: quorum with sync replication,"
          + " allow-all with async"),
  /** Whether a minority side serves reads. */
  CLUSTER_MINORITY_READS(
      "cluster-minority-reads",
      "on",
      "on: a member refusing writes under"
          + " quorum still serves reads (possibly stale); off: it refuses them too"),
  /** How many members a starting member waits for. */
  CLUSTER_SIZE(
      "cluster-size",
      "1",
      "members a starting member waits to see before it serves"
          + " (set it to the cluster's size when members restart into a running cluster, and"
          + " with dir: a full restart waits for this many and starts from the newest log)"),
  /** This member's name. */
  CLUSTER_NODE_NAME(
      "cluster-node-name",
      "",
      "this member's name in the cluster, kept across"
          + " restarts; empty: the announced address and RESP port"),
  /** The address clients are sent to. */
  CLUSTER_ANNOUNCE_IP(
      "cluster-announce-ip",
      "",
      "address cluster-aware clients are told to"
          + " reach this member at (CLUSTER SLOTS, MOVED); empty: bind, or cluster-bind when bind is"
          + " a wildcard"),
  /** How long clustered operations wait. */
  CLUSTER_TIMEOUT(
      "cluster-timeout",
      "10000",
      "milliseconds a command waits for other members" + " before it fails"),
  /** How finely keys are spread. */
  CLUSTER_SEGMENTS(
      "cluster-segments",
      "256",
      "segments the 16384 hash slots are grouped into"
          + " (a power of two, 1..16384); every member must use the same"),
  /** Whether clients are redirected. */
  CLUSTER_REDIRECTS(
      "cluster-redirects",
      "off",
      "on: every client gets MOVED for a key another"
          + " member is primary of; off: only connections that sent READONLY do, the others are"
          + " served by forwarding"),
  /** Whether the clustered keyspace commits through cluster transactions. */
  CLUSTER_TRANSACTIONS(
      "cluster-transactions",
      "off",
      "on: the clustered keyspace is kept in a transactional"
          + " store, so MULTI/EXEC is atomic and isolated across members (with dir, each"
          + " member logs its commits there and recovers them at start; distributed mode needs"
          + " cluster-owners above cluster-size minus a majority; cluster-size is the"
          + " cluster's size, and its transport uses cluster-port + 1000)"),
  /** Threads that run commands in cluster mode. */
  CLUSTER_COMMAND_THREADS(
      "cluster-command-threads",
      "0",
      "event-loop threads in cluster mode"
          + " (instead of io-threads), where a command may wait for other members on its loop;"
          + " 0 for four per core");

  private final String key;
  private final String defaultValue;
  private final String description;

  ServerSetting(String key, String defaultValue, String description) {
    this.key = key;
    this.defaultValue = defaultValue;
    this.description = description;
  }

  /** Returns the setting's name in config files and CONFIG GET. */
  public String key() {
    return key;
  }

  /** Returns the default, as text. */
  public String defaultValue() {
    return defaultValue;
  }

  /** Returns what the setting does. */
  public String description() {
    return description;
  }

  /**
   * Returns its setting.
   *
   * @param key a setting name, any case
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
   * Parses a byte size as Redis writes them: a number with an optional unit {@code k}, {@code kb},
   * {@code m}, {@code mb}, {@code g}, {@code gb} (k is 1000, kb 1024).
   *
   * @param text the size
   * @return bytes
   * @throws IllegalArgumentException if malformed, negative or overflowing
   */
  public static long parseBytes(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    long unit = 1;
    String[][] units = {
      {"gb", "1073741824"},
      {"mb", "1048576"},
      {"kb", "1024"},
      {"g", "1000000000"},
      {"m", "1000000"},
      {"k", "1000"},
      {"b", "1"}
    };
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
