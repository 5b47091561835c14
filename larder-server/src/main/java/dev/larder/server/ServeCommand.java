package dev.larder.server;

import dev.larder.server.internal.StartUpWarmUp;
import dev.larder.wal.LogCorruptedException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code larder serve}: starts a {@link LarderServer} and runs until the process is told to stop
 * (SIGTERM or SIGINT), then stops it cleanly: no new connections, requests in flight finish, the
 * keyspace is closed. With the default ports, a port already in use is replaced by a free one; the
 * ports bound are printed, and the console's address (HTTP, larder-http's endpoints over the
 * server's keyspace).
 */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description =
        "Runs the Larder server: RESP2/RESP3 (redis-cli, Redis clients) and memcached"
            + " text and meta protocols, on loopback by default.")
public final class ServeCommand implements Callable<Integer> {
  /**
   * Starts, on a daemon thread, the first use of what a server's start needs once its options are
   * parsed (the store, the command table, the network transport), so that it runs on another core
   * while the options are parsed: for a launcher that knows it is about to serve. Touches no file
   * or port, and a server starts the same without it, only later. Returns at once.
   */
  public static void warmUpInBackground() {
    StartUpWarmUp.begin();
  }

  @Option(names = "--config", description = "a properties file of settings (see docs/server.md)")
  private Path configFile;

  @Option(names = "--bind", description = "address to listen on (default 127.0.0.1)")
  private String bind;

  @Option(names = "--port", description = "RESP port (default 6379; 0 any free port; -1 off)")
  private Integer respPort;

  @Option(
      names = "--memcache-port",
      description = "memcached port (default 11211; 0 any free port; -1 off)")
  private Integer memcachePort;

  @Option(
      names = "--http-port",
      description =
          "HTTP port of the console, /metrics,"
              + " /api/caches and REST (default 8379; 0 any free port; -1 off)")
  private Integer httpPort;

  @Option(names = "--maxmemory", description = "byte bound, e.g. 512mb (default 256mb)")
  private String maxMemory;

  @Option(names = "--requirepass", description = "RESP password; needed off loopback")
  private String password;

  @Option(
      names = "--dir",
      description =
          "directory of the log and checkpoints: every write is"
              + " logged and recovered at start (default: none, in memory only)")
  private Path dir;

  @Option(
      names = "--appendfsync",
      description =
          "with --dir: always (a reply waits for the" + " force), everysec (the default) or no")
  private String appendfsync;

  @Option(
      names = "--cluster",
      paramLabel = "NAME",
      description = "join (or found) the Larder cluster of that name (see docs/cluster.md)")
  private String cluster;

  @Option(
      names = "--cluster-bind",
      paramLabel = "ADDR",
      description = "address of the cluster transport (default 127.0.0.1)")
  private String clusterBind;

  @Option(
      names = "--cluster-port",
      paramLabel = "PORT",
      description = "port of the cluster transport (default 7800)")
  private Integer clusterPort;

  @Option(
      names = "--peers",
      paramLabel = "HOST[PORT],...",
      description = "members to look for (default: cluster-bind, ports 7800..7809)")
  private String peers;

  @Option(
      names = "--set",
      paramLabel = "NAME=VALUE",
      description = "any other setting, e.g. --set idle-timeout-seconds=60")
  private Map<String, String> settings = new LinkedHashMap<>();

  /** What ./larder asks before it starts the server's JVM: see {@link ServeMemory}. */
  @Option(
      names = "--print-jvm-options",
      hidden = true,
      description = "print the JVM options (heap and direct-memory caps) for these settings")
  private boolean printJvmOptions;

  /** Creates the command; picocli fills its options. */
  public ServeCommand() {}

  /**
   * Serves with arguments of the plain form ({@code --name value} or {@code --name=value} of the
   * options that take a value, {@code --set NAME=VALUE}) without building picocli's model of the
   * command, which costs a start 150-300 ms (picocli's classes cannot be held in the JDK's AOT
   * cache). Returns once the server has stopped, as {@link #call()} does.
   *
   * @param args the arguments after {@code serve}; never null
   * @return the exit status, or empty (having done nothing) when the arguments are not all plain:
   *     help, version, an unknown, repeated or malformed option; run them through picocli then,
   *     which reads them or names the error
   */
  public static OptionalInt servePlain(String... args) {
    Optional<ServeCommand> command = plain(List.of(args));
    if (command.isEmpty()) {
      return OptionalInt.empty();
    }
    try {
      return OptionalInt.of(command.get().call());
    } catch (Exception e) {
      // As picocli's default handler does with an exception call() lets through.
      e.printStackTrace();
      return OptionalInt.of(1);
    }
  }

  /** The command plain arguments make, its options set as picocli would set them; else empty. */
  static Optional<ServeCommand> plain(List<String> args) {
    return PlainServeArguments.read(args)
        .map(
            parsed -> {
              ServeCommand command = new ServeCommand();
              parsed.values().forEach(command::setPlain);
              command.settings.putAll(parsed.settings());
              return command;
            });
  }

  private void setPlain(String option, String value) {
    switch (option) {
      case "--config" -> configFile = Path.of(value);
      case "--bind" -> bind = value;
      case "--port" -> respPort = Integer.valueOf(value);
      case "--memcache-port" -> memcachePort = Integer.valueOf(value);
      case "--http-port" -> httpPort = Integer.valueOf(value);
      case "--maxmemory" -> maxMemory = value;
      case "--requirepass" -> password = value;
      case "--dir" -> dir = Path.of(value);
      case "--appendfsync" -> appendfsync = value;
      case "--cluster" -> cluster = value;
      case "--cluster-bind" -> clusterBind = value;
      case "--cluster-port" -> clusterPort = Integer.valueOf(value);
      case "--peers" -> peers = value;
      default -> throw new IllegalArgumentException("not a plain option of serve: " + option);
    }
  }

  /**
   * Runs {@code serve} on its own.
   *
   * @param args the command's arguments
   */
  public static void main(String[] args) {
    System.exit(new CommandLine(new ServeCommand()).execute(args));
  }

  /**
   * Serves; a bad setting or credentials file (the error names it) is reported on one line with
   * exit code 2, and a port that cannot be bound (in use, or an address not on this host) or a TLS
   * file that cannot be read with exit code 1, not as a stack trace.
   */
  @Override
  public Integer call() throws Exception {
    try {
      return serve();
    } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
      System.err.println("larder serve: " + e.getMessage());
      return 2;
    } catch (java.io.IOException | dev.larder.cluster.ClusterException e) {
      System.err.println("larder serve: " + e.getMessage());
      return 1;
    } catch (LogCorruptedException e) {
      System.err.println(
          "larder serve: the log in "
              + dir()
              + " is damaged, nothing was"
              + " changed: "
              + e.getMessage()
              + ". Start with --set recovery=salvage to recover what"
              + " is intact and report what is dropped.");
      return 1;
    } catch (IllegalStateException e) {
      // The directory's lock is held (another server), or the log holds what this server
      // cannot read.
      System.err.println("larder serve: " + e.getMessage());
      return 1;
    }
  }

  private String dir() {
    return dir != null ? dir.toString() : settings.getOrDefault("dir", "the directory");
  }

  private Integer serve() throws Exception {
    ServerConfig config = config();
    if (printJvmOptions) {
      System.out.println(String.join(" ", ServeMemory.jvmOptions(config)));
      return 0;
    }
    boolean defaultPorts =
        respPort == null
            && memcachePort == null
            && !settings.containsKey("resp-port")
            && !settings.containsKey("memcache-port")
            && config.cluster() == null;
    PrintStream out = System.out;
    LarderServer server =
        LarderServer.start(
            config,
            defaultPorts,
            dev.larder.wal.FileLayer.standard(),
            loading -> {
              if (!loading.loading()) {
                return; // bound after the load ended: the usual lines follow
              }
              out.println(
                  "larder: loading "
                      + config.dir()
                      + "; RESP on "
                      + address(config, loading.respPort())
                      + " and memcached on "
                      + address(config, loading.memcachePort())
                      + " answer LOADING until it is loaded"
                      + (config.cluster() == null
                          ? ""
                          : " and has joined cluster " + config.cluster()));
              out.flush();
            });
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  out.println("larder: stopping");
                  server.close();
                  out.println("larder: stopped");
                  out.flush();
                  stopped.countDown();
                },
                "larder-serve-shutdown"));
    for (String line : server.recoverySummary()) {
      out.println("larder: " + line);
    }
    out.println(
        "larder: RESP on "
            + address(config, server.respPort())
            + ", memcached on "
            + address(config, server.memcachePort())
            + ", maxmemory "
            + config.maxMemory()
            + " bytes, "
            + server.transport()
            + (config.tls() ? ", TLS" : "")
            + (server.passwordRequired() ? ", AUTH required" : ""));
    if (server.clusterNodeName() != null) {
      out.println(
          "larder: member "
              + server.clusterNodeName()
              + " of cluster "
              + config.cluster()
              + " ("
              + config.get(ServerSetting.CLUSTER_MODE)
              + ", "
              + config.get(ServerSetting.CLUSTER_REPLICATION)
              + "), transport on "
              + config.get(ServerSetting.CLUSTER_BIND)
              + ":"
              + config.clusterPort());
    }
    out.println(
        "larder: heap cap "
            + mib(Runtime.getRuntime().maxMemory())
            + " MiB (for these"
            + " settings "
            + mib(ServeMemory.heapBytes(config))
            + " MiB), resident memory up to"
            + " about "
            + mib(ServeMemory.residentBound(config))
            + " MiB under ./larder serve's caps");
    if (server.httpPort() != 0) {
      out.println(
          "larder: console, /metrics, /api/caches and REST on "
              + (config.tls() ? "https" : "http")
              + "://"
              + hostForUrl(config.bind())
              + ":"
              + server.httpPort()
              + "/"
              + (config.password().isEmpty() ? "" : " (HTTP Basic, any user, the requirepass)"));
    }
    out.flush();
    stopped.await();
    return 0;
  }

  private static long mib(long bytes) {
    return bytes >> 20;
  }

  private static String hostForUrl(String host) {
    return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
  }

  private static String address(ServerConfig config, int port) {
    return port == 0 ? "(off)" : config.bind() + ":" + port;
  }

  private ServerConfig config() {
    Map<String, String> overrides = overrides();
    if (configFile == null) {
      return ServerConfig.of(overrides);
    }
    try {
      return ServerConfig.load(configFile, overrides);
    } catch (java.nio.file.NoSuchFileException e) {
      throw new IllegalArgumentException("config file " + configFile + ": no such file", e);
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException(
          "config file " + configFile + " cannot be read: " + e.getMessage(), e);
    }
  }

  /** The settings the options give, before a --config file's: what both readings must agree on. */
  Map<String, String> overrides() {
    Map<String, String> overrides = new LinkedHashMap<>(settings);
    put(overrides, ServerSetting.BIND, bind);
    put(overrides, ServerSetting.RESP_PORT, respPort);
    put(overrides, ServerSetting.MEMCACHE_PORT, memcachePort);
    put(overrides, ServerSetting.HTTP_PORT, httpPort);
    put(overrides, ServerSetting.MAXMEMORY, maxMemory);
    put(overrides, ServerSetting.REQUIREPASS, password);
    put(overrides, ServerSetting.DIR, dir);
    put(overrides, ServerSetting.APPENDFSYNC, appendfsync);
    put(overrides, ServerSetting.CLUSTER, cluster);
    put(overrides, ServerSetting.CLUSTER_BIND, clusterBind);
    put(overrides, ServerSetting.CLUSTER_PORT, clusterPort);
    put(overrides, ServerSetting.PEERS, peers);
    return overrides;
  }

  /** The --config file given, or null. */
  Path configFile() {
    return configFile;
  }

  private static void put(Map<String, String> m, ServerSetting s, Object value) {
    if (value != null) {
      m.put(s.key(), value.toString());
    }
  }
}
