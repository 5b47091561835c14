package dev.larder.server;

import dev.larder.cluster.ClusteredCache;
import dev.larder.http.LarderHttpChannelInitializer;
import dev.larder.server.internal.ServerState;
import dev.larder.server.internal.cluster.ClusterMessages;
import dev.larder.server.internal.cluster.ServerCluster;
import dev.larder.server.internal.http.HttpMount;
import dev.larder.server.internal.http.LoadingGate;
import dev.larder.server.internal.jmx.ServerMXBeanRegistration;
import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.memcache.MemcacheAuth;
import dev.larder.server.internal.memcache.MemcacheDispatcher;
import dev.larder.server.internal.memcache.MemcacheStats;
import dev.larder.server.internal.net.ConnectionGuard;
import dev.larder.server.internal.net.Transport;
import dev.larder.server.internal.persist.DeferredStoreJournal;
import dev.larder.server.internal.persist.LoadProgress;
import dev.larder.server.internal.persist.ServerLog;
import dev.larder.server.internal.resp.AclUsers;
import dev.larder.server.internal.resp.RespCommandTable;
import dev.larder.server.internal.resp.RespSession;
import dev.larder.wal.FileLayer;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.ResourceLeakDetector;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;

/**
 * Larder's network server: a RESP2/RESP3 listener and a memcached text and meta listener over one
 * {@link Keyspace} (standalone, or stored on a Larder cluster with {@code cluster} set, see
 * docs/design/server.md), on Netty, and larder-http's endpoints (the console, {@code /metrics},
 * {@code /api/caches} and REST) on a third port, showing that keyspace (see {@link HttpMount}).
 *
 * <p>Lifecycle: {@link #start} binds the ports and returns a running server (a durable server binds
 * RESP, memcached and HTTP first, answers {@code -LOADING} there (HTTP: 503) while it loads its
 * log, a cluster member then joins its cluster with what it loaded, and returns once that is done;
 * the MXBean and the expiry sweep follow); {@link #close} stops accepting, lets the requests
 * already read finish (the event loops shut down gracefully, with a quiet period), then closes the
 * keyspace. Expired keys are swept in the background ({@value #SWEEP_BUDGET} keys every {@value
 * #SWEEP_PERIOD_MS} ms) as well as dropped when read.
 *
 * <p>Thread-safe; {@link #close} may be called more than once.
 */
public final class LarderServer implements AutoCloseable {
  static final int SWEEP_BUDGET = 2_000;
  static final long SWEEP_PERIOD_MS = 100;

  /** How often a clustered member's blocked clients look again at their keys. */
  static final long BLOCKED_RECHECK_MS = 100;

  /** How often a clustered member tells the others whether it has tracking clients. */
  static final long TRACKING_ANNOUNCE_MS = 1_000;

  private static final int BACKLOG = 1024;

  private final ServerConfig config;
  private final ServerState state;
  private final Keyspace keyspace;

  /** The log: opened by {@link #load} (null until then), null without {@code dir}. */
  private volatile ServerLog log;

  /** Whether {@link #load} is to open and recover the log once the client ports are bound. */
  private final boolean loadAfterBind;

  /** That load's progress (INFO persistence while it runs), or null without one. */
  private final LoadProgress loadProgress;

  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final Transport transport;
  private final ScheduledExecutorService scheduler;
  private final List<Channel> listeners = new ArrayList<>();

  /** This member's cluster, or null when the server serves alone. */
  private final ServerCluster cluster;

  /** Pub/sub and tracking across this member's cluster, or null when the server serves alone. */
  private final ClusterMessages memberMessages;

  /**
   * A durable member's own store as a keyspace (its log recovers into it and checkpoints walk it;
   * the cluster writes it, no command does), or null.
   */
  private final Keyspace memberStore;

  /**
   * The journal of {@link #memberStore} the cluster was built with, which {@link #load} points at
   * the log once it is open; null without a member store.
   */
  private final DeferredStoreJournal memberJournal;

  /** The RESP port to bind: the configured one, or in cluster mode the free one announced. */
  private final int respPortToBind;

  private volatile int httpPort;
  private ServerMXBeanRegistration mxBean;
  private boolean closed;

  private LarderServer(
      ServerConfig config, AclUsers acl, MemcacheAuth memcacheAuth, FileLayer files)
      throws IOException {
    this.config = config;
    if (config.cluster() == null) {
      this.cluster = null;
      this.memberStore = null;
      this.memberJournal = null;
      this.respPortToBind = config.respPort();
      this.keyspace = new Keyspace(config.maxMemory(), System::currentTimeMillis);
    } else {
      // The other members are told this member's RESP address when it joins, so the port is
      // fixed first (a free one for 0).
      this.respPortToBind = config.respPort() == 0 ? freePort(config.bind()) : config.respPort();
      if (config.dir() == null) {
        this.memberStore = null;
        this.memberJournal = null;
        this.cluster = ServerCluster.join(config, Math.max(respPortToBind, 0));
      } else if (config.clusterTransactions()) {
        // The transactional store logs the keyspace's commits in dir itself
        // (ServerCluster.transactionLog): the cluster's own store holds nothing. It recovers its
        // log and joins in load(), once the ports are bound and answer LOADING.
        this.memberStore = null;
        this.memberJournal = null;
        this.cluster =
            ServerCluster.createTransactional(config, Math.max(respPortToBind, 0), files);
      } else {
        // A durable member logs its own store, not the commands it takes. Its side of the
        // cluster is built now and joins once load() recovered its log into that store, while
        // the bound ports answer LOADING (docs/design/server.md, Clustering).
        this.memberStore = new Keyspace(config.maxMemory(), System::currentTimeMillis);
        this.memberJournal = new DeferredStoreJournal();
        try {
          this.cluster =
              ServerCluster.create(
                  config, Math.max(respPortToBind, 0), memberStore.store(), memberJournal);
        } catch (RuntimeException e) {
          memberStore.close();
          throw e;
        }
      }
      this.keyspace =
          new Keyspace(
              cluster.keyspaceStore(),
              config.maxMemory(),
              System::currentTimeMillis,
              cluster.versions(),
              cluster::sweepEntries);
      keyspace.clusterStore(cluster);
    }
    // The log is loaded once RESP and memcached are bound, which answer LOADING meanwhile (Redis's
    // way); a cluster member then joins. With cluster-transactions on, the transactional store
    // recovers its own log as it joins then.
    this.loadAfterBind = config.dir() != null;
    this.loadProgress =
        loadAfterBind ? LoadProgress.of(config.dir(), System.currentTimeMillis()) : null;
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "larder-server-scheduler");
              t.setDaemon(true);
              return t;
            });
    this.state = new ServerState(keyspace, config, scheduler, acl, memcacheAuth);
    if (loadAfterBind) {
      // refused from the first connection on, until load() is done
      state.loading(loadProgress);
    }
    state.cluster(cluster);
    this.memberMessages =
        cluster == null
            ? null
            : ClusterMessages.attach(cluster.cache(), state.pubsub(), state.tracking());
    this.transport = Transport.of(config.ioTransport());
    this.boss = new MultiThreadIoEventLoopGroup(1, transport.ioHandlers());
    // One event loop per core by default: commands run on the loops, so more loops than cores
    // only adds context switches (Netty's default is two per core).
    // In cluster mode a command may wait for other members, and it waits on its connection's
    // loop (each connection's commands run in order there): many loops keep one such wait from
    // holding up more than the few connections that share its loop (ServerConfig
    // .clusterCommandThreads says why four per core, not more).
    this.workers =
        new MultiThreadIoEventLoopGroup(
            cluster == null ? config.ioThreads() : config.clusterCommandThreads(),
            transport.ioHandlers());
  }

  /**
   * Starts a server on the configured ports.
   *
   * @param config the configuration
   * @return the running server
   * @throws IOException if a port cannot be bound or the TLS files cannot be read
   */
  public static LarderServer start(ServerConfig config) throws IOException {
    return start(config, false);
  }

  /**
   * Starts a server; with {@code anyPortIfTaken}, a configured port that is in use is replaced by a
   * free one (see {@link #respPort()} and {@link #memcachePort()}).
   *
   * @param config the configuration
   * @param anyPortIfTaken whether to fall back to free ports
   * @return the running server
   * @throws IOException if a port cannot be bound, the TLS files cannot be read, or the persistence
   *     directory cannot be used
   * @throws IllegalArgumentException if the aclfile or memcache-auth-file is invalid, or would
   *     leave RESP open off loopback
   * @throws dev.larder.wal.LogDirectoryLockedException if another server uses the directory
   * @throws dev.larder.wal.LogCorruptedException if the log is damaged and recovery is strict
   * @throws java.io.UncheckedIOException if one of those files cannot be read
   */
  public static LarderServer start(ServerConfig config, boolean anyPortIfTaken) throws IOException {
    return start(config, anyPortIfTaken, FileLayer.standard(), loading -> {});
  }

  /**
   * Starts a server as {@link #start(ServerConfig, boolean)} does, with its log's files read and
   * written through {@code files}, and tells {@code whileLoading} when a durable server has bound
   * RESP, memcached and HTTP and is about to load its log (and, a cluster member, then join): from
   * then until this returns, clients connect and are answered {@code -LOADING} (memcached: {@code
   * SERVER_ERROR}; HTTP: 503), but for the commands Redis runs while it loads.
   *
   * @param files the file layer of the log (a simulated or instrumented disk in tests); with {@code
   *     cluster-transactions on}, of the transactional store's log
   * @param whileLoading called once, on another thread, with the server as soon as its RESP,
   *     memcached and HTTP ports are bound, which may be after the load ended; not called for a
   *     server with nothing to load (no {@code dir}); must not close the server
   */
  static LarderServer start(
      ServerConfig config,
      boolean anyPortIfTaken,
      FileLayer files,
      Consumer<LarderServer> whileLoading)
      throws IOException {
    // The users first: a bad file must fail before any thread or memory is taken.
    AclUsers acl = AclUsers.of(config);
    MemcacheAuth memcacheAuth = MemcacheAuth.of(config);
    quietLeakDetector();
    LarderServer server = new LarderServer(config, acl, memcacheAuth, files);
    try {
      SslContext ssl = server.ssl();
      if (server.loadAfterBind) {
        server.loadWhileBinding(anyPortIfTaken, ssl, files, whileLoading);
      } else {
        server.bindClients(anyPortIfTaken, ssl);
        server.bindHttp(anyPortIfTaken, ssl);
      }
      server.startBackground();
    } catch (IOException | RuntimeException e) {
      server.close();
      throw e;
    }
    return server;
  }

  /**
   * Binds RESP, memcached and HTTP on a thread of its own while this thread loads the log, so that
   * the listeners' set-up (Netty's event loops and transport) is off the path to the first PONG as
   * the load's is; returns once both are done. The ports answer LOADING (HTTP: 503) from the moment
   * they are bound (the loading state was set before) until the load is done.
   *
   * @throws IOException the load's failure, else the binding's (both are waited for first)
   */
  private void loadWhileBinding(
      boolean anyPortIfTaken, SslContext ssl, FileLayer files, Consumer<LarderServer> whileLoading)
      throws IOException {
    CompletableFuture<Void> bound = new CompletableFuture<>();
    Thread.ofPlatform()
        .name("larder-server-bind")
        .daemon()
        .start(
            () -> {
              try {
                bindClients(anyPortIfTaken, ssl);
                bindHttp(anyPortIfTaken, ssl);
                whileLoading.accept(this);
                bound.complete(null);
              } catch (Throwable e) {
                bound.completeExceptionally(e);
              }
            });
    try {
      load(files);
    } catch (IOException | RuntimeException e) {
      // wait for the listeners, so that close() finds them
      Throwable bindFailure = awaitBound(bound);
      if (bindFailure != null) {
        e.addSuppressed(bindFailure);
      }
      throw e;
    }
    Throwable bindFailure = awaitBound(bound);
    switch (bindFailure) {
      case null -> {}
      case IOException io -> throw io;
      case RuntimeException r -> throw r;
      case Error err -> throw err;
      default -> throw new IOException(bindFailure);
    }
  }

  /** Waits for the binding thread; returns what it threw, or null. */
  private static Throwable awaitBound(CompletableFuture<Void> bound) {
    try {
      bound.join();
      return null;
    } catch (java.util.concurrent.CompletionException e) {
      return e.getCause();
    }
  }

  /** Returns whether the server is loading its log (RESP answers LOADING). */
  boolean loading() {
    return state.loading() != null;
  }

  /**
   * Opens the log and recovers it into the keyspace (a cluster member's: into its own store, then
   * joins its cluster with it) while the bound ports answer LOADING, then makes the server durable
   * and lets every command through: replies wait for the log from before the first command the load
   * lets through, and a member's first command runs once it has joined. With {@code
   * cluster-transactions on}, the member joins its cluster and its transactional store recovers its
   * own log and joins (a commit is acknowledged once logged there: no server log, no waiting
   * replies).
   */
  private void load(FileLayer files) throws IOException {
    if (cluster != null && cluster.transactions() != null) {
      cluster.join();
      state.loaded();
      return;
    }
    ServerLog opened =
        ServerLog.open(
            config.dir(),
            config.appendfsync(),
            config.salvage(),
            config.checkpointLogBytes(),
            memberStore != null ? memberStore : keyspace,
            System::currentTimeMillis,
            files,
            loadProgress);
    log = opened;
    state.persistence(opened);
    if (memberStore != null) {
      memberJournal.open(opened.storeJournal());
      cluster.join();
    }
    state.loaded();
  }

  /**
   * Netty's leak detector, on by default, records a stack trace for one buffer in 128: about 3% of
   * the server's CPU under redis-benchmark, for buffers whose release is the handlers' plain code.
   * It stays on when asked for with {@code -Dio.netty.leakDetection.level} (the JVM-wide setting
   * Netty reads), and is otherwise turned off for the JVM.
   */
  private static void quietLeakDetector() {
    if (System.getProperty("io.netty.leakDetection.level") == null) {
      ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
    }
  }

  private SslContext ssl() throws IOException {
    return config.tls()
        ? SslContextBuilder.forServer(
                new File(config.get(ServerSetting.TLS_CERT_FILE)),
                new File(config.get(ServerSetting.TLS_KEY_FILE)))
            .build()
        : null;
  }

  /** Binds RESP and memcached: the clients' ports, open while the keyspace loads. */
  private void bindClients(boolean anyPortIfTaken, SslContext ssl) throws IOException {
    RespCommandTable table = RespCommandTable.standard();
    MemcacheStats memcacheStats = state.memcacheStats();
    // in cluster mode the RESP port was announced to the other members: no other will do
    int resp =
        respPortToBind < 0
            ? 0
            : listen(
                respPortToBind,
                anyPortIfTaken && cluster == null,
                ssl,
                "-ERR max number of clients reached\r\n",
                p -> p.addLast(RespSession.handlers(state, table)));
    int memcache =
        config.memcachePort() < 0
            ? 0
            : listen(
                config.memcachePort(),
                anyPortIfTaken,
                ssl,
                "ERROR Too many open connections\r\n",
                p -> p.addLast(MemcacheDispatcher.handlers(state, memcacheStats)));
    state.ports(resp, memcache);
  }

  /**
   * Binds HTTP (the console, {@code /metrics}, {@code /api/caches}, REST), which answers 503 while
   * the server loads ({@link LoadingGate}): each of its endpoints reads the keyspace.
   */
  private void bindHttp(boolean anyPortIfTaken, SslContext ssl) throws IOException {
    if (config.httpPort() >= 0) {
      // The default HTTP port is a convenience: when taken, any free port will do (printed).
      boolean fallBack =
          anyPortIfTaken
              || config.get(ServerSetting.HTTP_PORT).equals(ServerSetting.HTTP_PORT.defaultValue());
      httpPort = listenHttp(new HttpMount(state, config.httpPort()), fallBack, ssl);
    }
  }

  /**
   * Starts the periodic work (the expiry sweep, the rate sampling: not over a keyspace being
   * loaded) and registers the MXBean, once the server is loaded.
   */
  // The periodic tasks' futures are not kept: close() stops the tasks by shutting the scheduler
  // down, and those that can fail catch what they throw (a periodic task that throws stops).
  @SuppressWarnings("FutureReturnValueIgnored")
  private void startBackground() {
    scheduler.scheduleWithFixedDelay(
        this::sweep, SWEEP_PERIOD_MS, SWEEP_PERIOD_MS, TimeUnit.MILLISECONDS);
    scheduler.scheduleAtFixedRate(
        state::sampleRates, SWEEP_PERIOD_MS, SWEEP_PERIOD_MS, TimeUnit.MILLISECONDS);
    if (cluster != null) {
      // A push through another member is not seen by this member's keyspace: its blocked
      // clients look again at the keys they wait on, every BLOCKED_RECHECK_MS.
      scheduler.scheduleWithFixedDelay(
          this::recheckBlocked, BLOCKED_RECHECK_MS, BLOCKED_RECHECK_MS, TimeUnit.MILLISECONDS);
      scheduler.scheduleWithFixedDelay(
          memberMessages::announce, 0, TRACKING_ANNOUNCE_MS, TimeUnit.MILLISECONDS);
    }
    if (config.jmx()) {
      synchronized (this) {
        mxBean = ServerMXBeanRegistration.register(state, this::httpPort);
      }
    }
  }

  /**
   * Returns the object name of the server's {@link LarderServerMXBean}, e.g. {@code
   * dev.larder:type=Server,name="larder-server"}; empty when the {@code jmx} setting is {@code no}.
   */
  public synchronized Optional<String> mxBeanName() {
    return Optional.ofNullable(mxBean).map(bean -> bean.name().toString());
  }

  private int listen(
      int port,
      boolean anyPortIfTaken,
      SslContext ssl,
      String refusal,
      Consumer<io.netty.channel.ChannelPipeline> protocol)
      throws IOException {
    ChannelHandler guard = new ConnectionGuard(state, refusal);
    int idle = config.idleTimeoutSeconds();
    ServerBootstrap b =
        new ServerBootstrap()
            .group(boss, workers)
            .channel(transport.serverChannel())
            .option(ChannelOption.SO_BACKLOG, BACKLOG)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    if (ssl != null) {
                      ch.pipeline().addLast(ssl.newHandler(ch.alloc()));
                    }
                    if (idle > 0) {
                      ch.pipeline().addLast(new IdleStateHandler(0, 0, idle, TimeUnit.SECONDS));
                    }
                    ch.pipeline().addLast(guard);
                    protocol.accept(ch.pipeline());
                  }
                });
    return bindListener(b, port, anyPortIfTaken);
  }

  private int listenHttp(HttpMount mount, boolean anyPortIfTaken, SslContext ssl)
      throws IOException {
    ChannelHandler http = mount.initializer();
    ChannelHandler gate = loadAfterBind ? new LoadingGate(state) : null;
    ServerBootstrap b =
        new ServerBootstrap()
            .group(boss, workers)
            .channel(transport.serverChannel())
            .option(ChannelOption.SO_BACKLOG, BACKLOG)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    if (ssl != null) {
                      ch.pipeline().addLast(ssl.newHandler(ch.alloc()));
                    }
                    ch.pipeline().addLast(http);
                    if (gate != null) {
                      // larder-http's initializer has run (the channel is registered): the gate
                      // goes just before its request handler, where requests are whole
                      ch.pipeline()
                          .addBefore(LarderHttpChannelInitializer.REQUEST_HANDLER, "loading", gate);
                    }
                  }
                });
    return bindListener(b, mount.config().port(), anyPortIfTaken);
  }

  /**
   * Binds {@code port} (a free one if it is taken and {@code anyPortIfTaken}) and keeps the
   * listener for {@link #close()}.
   *
   * @return the bound port
   */
  private int bindListener(ServerBootstrap b, int port, boolean anyPortIfTaken) throws IOException {
    Channel ch;
    try {
      ch = bindTo(b, port);
    } catch (IOException e) {
      if (!anyPortIfTaken || port == 0 || !Transport.addressInUse(e)) {
        throw cannotListen(port, e);
      }
      try {
        ch = bindTo(b, 0);
      } catch (IOException again) {
        throw cannotListen(0, again);
      }
    }
    synchronized (this) {
      listeners.add(ch);
    }
    return ((InetSocketAddress) ch.localAddress()).getPort();
  }

  /** The bind failure as one line naming the address (Netty's says only "bind(..) failed"). */
  private IOException cannotListen(int port, IOException e) {
    String why = Transport.addressInUse(e) ? "the port is in use" : e.getMessage();
    return new IOException("cannot listen on " + config.bind() + ":" + port + ": " + why, e);
  }

  private Channel bindTo(ServerBootstrap b, int port) throws IOException {
    try {
      return b.bind(new InetSocketAddress(config.bind(), port)).sync().channel();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while binding port " + port, e);
    } catch (Exception e) {
      if (e instanceof IOException io) {
        throw io;
      }
      throw new IOException(e.toString(), e);
    }
  }

  private void recheckBlocked() {
    try {
      state.blockedClients().recheckAll();
    } catch (RuntimeException e) {
      // A recheck racing close() finds the cache closed; a cluster's refusal waits for the next.
    }
  }

  private void sweep() {
    Lock lock = keyspace.shared();
    lock.lock();
    try {
      keyspace.sweepExpired(SWEEP_BUDGET);
    } catch (RuntimeException e) {
      // A sweep racing close() finds the cache closed; the next sweep, if any, starts afresh.
    } finally {
      lock.unlock();
    }
  }

  private static int freePort(String bind) throws IOException {
    try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
      probe.bind(new InetSocketAddress(bind, 0));
      return probe.getLocalPort();
    }
  }

  /** Returns this member's name in its cluster, or null when the server serves alone. */
  public String clusterNodeName() {
    return cluster == null ? null : cluster.name();
  }

  /**
   * Returns the clustered cache this member's keyspace is stored in (its members, availability and
   * rebalance, for monitoring); empty when the server serves alone.
   */
  public java.util.Optional<ClusteredCache<byte[], byte[]>> clusteredStore() {
    return cluster == null ? java.util.Optional.empty() : java.util.Optional.of(cluster.cache());
  }

  /**
   * Returns this member's side of the clustered transactional store its keyspace is kept in with
   * {@code cluster-transactions on} (its epoch, members and readiness, for monitoring); empty
   * otherwise, and while a durable member still loads (its store has not recovered and joined).
   */
  public java.util.Optional<dev.larder.cluster.ClusteredTxMember> clusteredTxMember() {
    return cluster == null || cluster.transactions() == null || !cluster.transactions().started()
        ? java.util.Optional.empty()
        : java.util.Optional.of(cluster.transactions().member());
  }

  /** Returns the bound RESP port, 0 if RESP is disabled. */
  public int respPort() {
    return state.respPort();
  }

  /** Returns the bound memcached port, 0 if memcached is disabled. */
  public int memcachePort() {
    return state.memcachePort();
  }

  /**
   * Returns the bound HTTP port (console, {@code /metrics}, {@code /api/caches}, REST), 0 if HTTP
   * is disabled.
   */
  public int httpPort() {
    return httpPort;
  }

  /** Returns the configuration. */
  public ServerConfig config() {
    return config;
  }

  /**
   * Checks a user and password against the RESP users as they stand now (requirepass, the aclfile,
   * ACL SETUSER/DELUSER since): what AUTH accepts. Other front ends of the server (the HTTP side)
   * use it to require the same credentials.
   *
   * @param user the user, {@code default} for a password alone
   * @param password the password
   * @return whether the user exists, is on and accepts the password (any password if it has nopass)
   */
  public boolean authenticate(String user, String password) {
    return state.acl().authenticate(user, password.getBytes(StandardCharsets.UTF_8)) != null;
  }

  /**
   * Returns whether a connection must authenticate before its first command (the default user is
   * off or has a password).
   */
  public boolean passwordRequired() {
    return state.acl().initialUser() == null;
  }

  /** Returns the network transport in use: epoll or nio. */
  public String transport() {
    return transport.name();
  }

  /** Returns open client connections, both protocols. */
  public int connections() {
    return state.connections();
  }

  /** Stops accepting, finishes the requests in flight, closes every connection and the keyspace. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (mxBean != null) {
      mxBean.close();
    }
    for (Channel ch : listeners) {
      ch.close().syncUninterruptibly();
    }
    workers.shutdownGracefully(100, 5_000, TimeUnit.MILLISECONDS).syncUninterruptibly();
    boss.shutdownGracefully(0, 1_000, TimeUnit.MILLISECONDS).syncUninterruptibly();
    scheduler.shutdownNow();
    state.replies().close();
    if (memberStore != null) {
      // leave the cluster first: until then it writes this member's store, and the log records it
      try {
        closeKeyspace();
      } finally {
        try {
          if (log != null) {
            log.close();
          }
        } finally {
          memberStore.close();
        }
      }
      return;
    }
    try {
      if (log != null) {
        log.close();
      }
    } finally {
      closeKeyspace();
      if (cluster != null && cluster.transactions() != null) {
        // the keyspace was kept in the transactional store, closed with it: the cluster's own
        // cache (membership, pub/sub, tracking) is closed here, leaving the cluster
        cluster.cache().close();
      }
    }
  }

  private void closeKeyspace() {
    Lock lock = keyspace.exclusive();
    lock.lock();
    try {
      keyspace.close();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Returns what recovery found, one line and then one per problem it reported (a torn tail cut,
   * damage salvaged), or an empty list for a server without {@code dir}.
   */
  public List<String> recoverySummary() {
    if (log == null) {
      return List.of();
    }
    ServerLog.Recovered r = log.recovered();
    List<String> lines = new ArrayList<>();
    lines.add(
        "recovered "
            + r.keys()
            + " keys from "
            + log.directory()
            + " in "
            + r.loadNanos() / 1_000_000
            + " ms (checkpoint: "
            + r.checkpointKeys()
            + " keys; log: "
            + r.report().recordsReplayed()
            + " records; "
            + r.expiredDropped()
            + " expired values dropped), appendfsync "
            + config.appendfsync());
    lines.addAll(r.report().problems());
    return lines;
  }
}
