package dev.larder.server.internal;

import dev.larder.server.ServerConfig;
import dev.larder.server.internal.blocking.BlockedClients;
import dev.larder.server.internal.cluster.ServerCluster;
import dev.larder.server.internal.keyspace.KeyObservers;
import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.memcache.MemcacheAuth;
import dev.larder.server.internal.net.ClientMemory;
import dev.larder.server.internal.net.CrossProtocolGuard;
import dev.larder.server.internal.net.DurableReplies;
import dev.larder.server.internal.persist.LoadProgress;
import dev.larder.server.internal.persist.ServerLog;
import dev.larder.server.internal.pubsub.KeyEvents;
import dev.larder.server.internal.pubsub.KeyspaceEvents;
import dev.larder.server.internal.pubsub.PubSub;
import dev.larder.server.internal.pubsub.Tracking;
import dev.larder.server.internal.resp.AclUsers;
import dev.larder.server.internal.resp.ClientPause;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What every connection of both protocols shares: the keyspace, the configuration (with the
 * settings CONFIG SET may change), the connected clients and the server's counters.
 *
 * <p>Thread-safe.
 */
public final class ServerState {
  private final Keyspace keyspace;
  private final BlockedClients blockedClients;
  private final ServerConfig config;
  private final long startMillis = System.currentTimeMillis();
  private final AtomicLong clientIds = new AtomicLong();
  private final AtomicInteger connections = new AtomicInteger();
  private final Map<Long, ClientInfo> clients = new ConcurrentHashMap<>();
  private final LongAdder connectionsReceived = new LongAdder();
  private final LongAdder rejectedConnections = new LongAdder();
  private final LongAdder commandsProcessed = new LongAdder();
  private final ScheduledExecutorService scheduler;
  private final AclUsers acl;
  private final ClientPause clientPause;
  private final MemcacheAuth memcacheAuth;
  private final ClientMemory clientMemory;
  private final CrossProtocolGuard crossProtocolGuard = new CrossProtocolGuard();
  private final PubSub pubsub = new PubSub();
  private final Tracking tracking;
  private final KeyspaceEvents keyspaceEvents;
  private final KeyEvents keyEvents;
  private final ChangeCount changeCount = new ChangeCount();

  /** memcached's counters and watchers; hears expiries and evictions for get_expired and watch. */
  private final dev.larder.server.internal.memcache.MemcacheStats memcacheStats =
      new dev.larder.server.internal.memcache.MemcacheStats();

  private volatile String maxMemoryPolicy;
  private final OpsMeter ops = new OpsMeter();
  private final String runId = newRunId();
  private final Map<String, String> keptParameters = new ConcurrentHashMap<>();
  private volatile int respPort;
  private volatile int memcachePort;
  private volatile ServerLog log;
  private volatile DurableReplies replies = new DurableReplies(null);

  /** The load under way, or null once the keyspace is whole (or had nothing to load). */
  private volatile LoadProgress loading;

  /** This member's cluster, or null for a standalone server; set once, before serving. */
  private volatile ServerCluster cluster;

  /**
   * Builds the users from the configuration (see {@link #ServerState(Keyspace, ServerConfig,
   * ScheduledExecutorService, AclUsers, MemcacheAuth)}).
   *
   * @param keyspace the data
   * @param config the configuration
   * @param scheduler runs delayed and periodic server work (expiry sweeps, delayed flushes)
   * @throws IllegalArgumentException if the aclfile or memcached auth file is invalid
   * @throws java.io.UncheckedIOException if one cannot be read
   */
  public ServerState(Keyspace keyspace, ServerConfig config, ScheduledExecutorService scheduler) {
    this(keyspace, config, scheduler, AclUsers.of(config), MemcacheAuth.of(config));
  }

  /**
   * @param keyspace the data
   * @param config the configuration
   * @param scheduler runs delayed and periodic server work (expiry sweeps, delayed flushes)
   * @param acl the RESP users
   * @param memcacheAuth the memcached users, or null when memcached needs no authentication
   */
  public ServerState(
      Keyspace keyspace,
      ServerConfig config,
      ScheduledExecutorService scheduler,
      AclUsers acl,
      MemcacheAuth memcacheAuth) {
    this.keyspace = keyspace;
    this.blockedClients = new BlockedClients(keyspace);
    this.scheduler = scheduler;
    this.clientPause = new ClientPause(scheduler);
    this.config = config;
    this.acl = acl;
    this.memcacheAuth = memcacheAuth;
    this.maxMemoryPolicy = config.maxMemoryPolicy();
    this.clientMemory =
        new ClientMemory(
            config.clientQueryBufferLimit(),
            config.clientOutputBufferLimit(),
            config.maxMemoryClients());
    this.tracking = new Tracking(config.trackingTableMaxKeys());
    this.keyspaceEvents = new KeyspaceEvents(pubsub, config.notifyKeyspaceEvents());
    this.keyEvents = new KeyEvents(tracking, keyspaceEvents);
    keyspace.observe(KeyObservers.of(blockedClients, keyEvents, changeCount, memcacheStats));
  }

  /** Returns the memcached listener's counters, watchers and pending flush. */
  public dev.larder.server.internal.memcache.MemcacheStats memcacheStats() {
    return memcacheStats;
  }

  /**
   * Returns the count of the keyspace's changes (INFO's changes since the last save without a log).
   */
  public ChangeCount changeCount() {
    return changeCount;
  }

  /** Returns the channels and patterns and their subscribers. */
  public PubSub pubsub() {
    return pubsub;
  }

  /** Returns client-side caching's tracking table and clients. */
  public Tracking tracking() {
    return tracking;
  }

  /** Returns the keyspace notification setting and publisher. */
  public KeyspaceEvents keyspaceEvents() {
    return keyspaceEvents;
  }

  /** Returns what turns key changes into invalidations and keyspace events. */
  public KeyEvents keyEvents() {
    return keyEvents;
  }

  /** Returns the bound on memory held for clients (requests and unsent replies). */
  public ClientMemory clientMemory() {
    return clientMemory;
  }

  /** Returns what closes connections that send HTTP. */
  public CrossProtocolGuard crossProtocolGuard() {
    return crossProtocolGuard;
  }

  /**
   * Makes the server durable: replies wait for the log from now on. Called once, before the
   * listeners bind or, for a server that binds while it loads, before {@link #loaded()}.
   *
   * @param serverLog the open log, attached to the keyspace
   */
  public void persistence(ServerLog serverLog) {
    this.log = serverLog;
    this.replies = new DurableReplies(serverLog);
  }

  /**
   * Marks the keyspace as being loaded: until {@link #loaded()}, commands that would read or change
   * it are refused (RESP's {@code -LOADING}, memcached's {@code SERVER_ERROR}). Called before the
   * listeners bind.
   *
   * @param progress the load's progress, for INFO persistence
   */
  public void loading(LoadProgress progress) {
    this.loading = progress;
  }

  /**
   * Marks the load done: the keyspace is whole and, with a log, {@link #persistence} was called
   * first, so that every command let through from now on is logged and its reply waits for the log.
   */
  public void loaded() {
    this.loading = null;
  }

  /** Returns the load under way, or null when the keyspace is whole. */
  public LoadProgress loading() {
    return loading;
  }

  /**
   * Returns whether the keyspace can be counted now: not while a cluster member loads, since its
   * cluster's keyspace refuses every read until the member has joined (after its load). What runs
   * during a load and counts keys (INFO keyspace, memcached's {@code stats}) shows none meanwhile.
   */
  public boolean keyspaceCountable() {
    return loading == null || cluster == null;
  }

  /** Returns the log, or null when the server keeps its data in memory only. */
  public ServerLog log() {
    return log;
  }

  /** Returns where the handlers send their replies (at once, or when the log allows). */
  public DurableReplies replies() {
    return replies;
  }

  /** Returns this member's cluster, or null for a standalone server. */
  public ServerCluster cluster() {
    return cluster;
  }

  /**
   * Sets this member's cluster.
   *
   * @param cluster this member's cluster; set once, before the listeners start
   */
  public void cluster(ServerCluster cluster) {
    this.cluster = cluster;
    if (cluster != null && cluster.transactions() != null) {
      // an EXEC's changes are told once its cluster transaction commits
      keyspace.observe(
          cluster
              .transactions()
              .holding(
                  KeyObservers.of(blockedClients, keyEvents, changeCount, memcacheStats),
                  keyEvents));
    }
  }

  /** Returns CLIENT PAUSE's state. */
  public ClientPause clientPause() {
    return clientPause;
  }

  /** Returns the RESP users. */
  public AclUsers acl() {
    return acl;
  }

  /** Returns the memcached users, or null when memcached needs no authentication. */
  public MemcacheAuth memcacheAuth() {
    return memcacheAuth;
  }

  /** Returns the data. */
  public Keyspace keyspace() {
    return keyspace;
  }

  /** Returns the clients blocked on keys (BLPOP and its kin). */
  public BlockedClients blockedClients() {
    return blockedClients;
  }

  /** Returns the scheduler for delayed and periodic work. */
  public ScheduledExecutorService scheduler() {
    return scheduler;
  }

  /** Returns the configuration the server started with. */
  public ServerConfig config() {
    return config;
  }

  /** Returns the current maxmemory policy. */
  public String maxMemoryPolicy() {
    return maxMemoryPolicy;
  }

  /**
   * Sets the maxmemory policy.
   *
   * @param policy allkeys-lfu or noeviction
   */
  public void maxMemoryPolicy(String policy) {
    this.maxMemoryPolicy = policy;
  }

  /** Returns INFO's {@code run_id}: 40 random hex digits, new at each start, as Redis's. */
  public String runId() {
    return runId;
  }

  private static String newRunId() {
    byte[] bytes = new byte[20];
    new java.security.SecureRandom().nextBytes(bytes);
    return java.util.HexFormat.of().formatHex(bytes);
  }

  /** Samples the command rate; called every 100 ms by the server's scheduler. */
  public void sampleRates() {
    ops.sample(commandsProcessed.sum(), System.nanoTime());
  }

  /** Returns INFO's {@code instantaneous_ops_per_sec}. */
  public long opsPerSecond() {
    return ops.perSecond();
  }

  /**
   * Resets the server's counters that CONFIG RESETSTAT resets: commands processed, connections
   * received and rejected (the keyspace's and the commands' own are reset by their owners).
   */
  public void resetStats() {
    commandsProcessed.reset();
    connectionsReceived.reset();
    rejectedConnections.reset();
  }

  /**
   * Returns the CONFIG parameters that are stored and reported without acting on the server, by
   * name (those set since start; the others have their default). Thread-safe.
   */
  public Map<String, String> keptParameters() {
    return keptParameters;
  }

  /**
   * Whether a write must be refused under noeviction. Larder's store evicts by itself when a
   * segment is full, so noeviction is approximate: writes are refused once the keyspace uses 15/16
   * of its bound, which keeps the store below the point where it evicts in the common case (evenly
   * spread keys), not in every case.
   *
   * @return whether memory is at the refusal threshold under noeviction
   */
  public boolean outOfMemory() {
    return maxMemoryPolicy.equals("noeviction")
        && keyspace.memoryUsed() >= keyspace.maxMemory() / 16 * 15;
  }

  /**
   * Admits a connection if under the limit.
   *
   * @return whether admitted; if so {@link #disconnected} must follow
   */
  public boolean tryConnect() {
    connectionsReceived.increment();
    if (connections.incrementAndGet() > config.maxConnections()) {
      connections.decrementAndGet();
      rejectedConnections.increment();
      return false;
    }
    return true;
  }

  /** Releases a connection admitted by {@link #tryConnect}. */
  public void disconnected() {
    connections.decrementAndGet();
  }

  /**
   * Lists a RESP client in CLIENT LIST.
   *
   * @param info a RESP client to list in CLIENT LIST
   */
  public void register(ClientInfo info) {
    clients.put(info.id(), info);
  }

  /**
   * Takes a client that left out of CLIENT LIST.
   *
   * @param id a client that left
   */
  public void unregister(long id) {
    clients.remove(id);
  }

  /** Returns the registered RESP clients. */
  public Iterable<ClientInfo> clients() {
    return clients.values();
  }

  /** Returns a new client id. */
  public long nextClientId() {
    return clientIds.incrementAndGet();
  }

  /** Counts one command. */
  public void commandProcessed() {
    commandsProcessed.increment();
  }

  /** Returns open connections, both protocols. */
  public int connections() {
    return connections.get();
  }

  /** Returns connections ever accepted or refused. */
  public long connectionsReceived() {
    return connectionsReceived.sum();
  }

  /** Returns connections refused at the limit. */
  public long rejectedConnections() {
    return rejectedConnections.sum();
  }

  /** Returns commands run, both protocols. */
  public long commandsProcessed() {
    return commandsProcessed.sum();
  }

  /** Returns when the server started, Unix milliseconds. */
  public long startMillis() {
    return startMillis;
  }

  /** Returns the bound RESP port, 0 if none. */
  public int respPort() {
    return respPort;
  }

  /** Returns the bound memcached port, 0 if none. */
  public int memcachePort() {
    return memcachePort;
  }

  /**
   * Records the ports the listeners bound.
   *
   * @param resp the bound RESP port
   * @param memcache the bound memcached port
   */
  public void ports(int resp, int memcache) {
    this.respPort = resp;
    this.memcachePort = memcache;
  }

  /** What CLIENT LIST shows of one RESP connection; fields change as the client works. */
  public static final class ClientInfo {
    private final long id;
    private final String address;
    private final String localAddress;
    private final Runnable kill;
    private final long createdMillis = System.currentTimeMillis();
    private volatile String name = "";
    private volatile int db;
    private volatile String lastCommand = "NULL";
    private volatile int protocol = 2;
    private volatile String user = "default";
    private volatile int subscriptions;
    private volatile int patternSubscriptions;
    private volatile long redirect = -1;
    private volatile boolean blocked;
    private volatile boolean killed;

    /**
     * @param id the client id
     * @param address the peer's address, {@code ip:port}
     * @param localAddress the address the peer connected to, {@code ip:port}
     * @param kill closes the connection at once, dropping replies not yet sent (CLIENT KILL); safe
     *     from any thread
     */
    public ClientInfo(long id, String address, String localAddress, Runnable kill) {
      this.id = id;
      this.address = address;
      this.localAddress = localAddress;
      this.kill = kill;
    }

    /** Returns the peer's address, {@code ip:port}. */
    public String address() {
      return address;
    }

    /** Returns the address the peer connected to, {@code ip:port}. */
    public String localAddress() {
      return localAddress;
    }

    /** Returns the ACL user the connection is authenticated as. */
    public String user() {
      return user;
    }

    /**
     * Returns Redis's client type name: {@code pubsub} while subscribed to a channel or pattern,
     * else {@code normal} (Larder has no replicas or masters).
     */
    public String type() {
      return subscriptions + patternSubscriptions > 0 ? "pubsub" : "normal";
    }

    /**
     * Closes the connection at once, dropping replies not yet sent, and marks it killed: its
     * channel's close completes on its own event loop, and until then the connection is still
     * listed, but a later CLIENT KILL no longer matches it (it would count it again). Safe from any
     * thread.
     */
    public void kill() {
      killed = true;
      kill.run();
    }

    /** Returns whether {@link #kill} was called. */
    public boolean killed() {
      return killed;
    }

    /** Returns the id. */
    public long id() {
      return id;
    }

    /** Returns the name, empty if unset. */
    public String name() {
      return name;
    }

    /**
     * Sets the connection's name.
     *
     * @param name the name
     */
    public void name(String name) {
      this.name = name;
    }

    /**
     * Sets the connection's selected database.
     *
     * @param db the selected database
     */
    public void db(int db) {
      this.db = db;
    }

    /**
     * Records the name of the connection's last command.
     *
     * @param command the last command's name
     */
    @SuppressWarnings("ReferenceEquality") // command names are constants: identity is cheap
    public void lastCommand(String command) {
      // Most connections repeat one command: skip the volatile write (a fence) when unchanged.
      if (this.lastCommand != command) {
        this.lastCommand = command;
      }
    }

    /**
     * Sets the ACL user the connection is authenticated as.
     *
     * @param user the ACL user the connection is authenticated as
     */
    public void user(String user) {
      this.user = user;
    }

    /**
     * Sets the connection's protocol version.
     *
     * @param protocol 2 or 3
     */
    public void protocol(int protocol) {
      this.protocol = protocol;
    }

    /**
     * Sets the connection's subscription counts.
     *
     * @param channels channels subscribed to
     * @param patterns patterns subscribed to
     */
    public void subscriptions(int channels, int patterns) {
      this.subscriptions = channels;
      this.patternSubscriptions = patterns;
    }

    /**
     * Sets the client that the connection's tracking redirects to.
     *
     * @param id the client tracking redirects to, 0 for none, -1 when tracking is off
     */
    public void redirect(long id) {
      this.redirect = id;
    }

    /**
     * Sets whether the connection is blocked in a command (BLPOP...), CLIENT LIST's {@code b}.
     *
     * @param on whether it is
     */
    public void blocked(boolean on) {
      this.blocked = on;
    }

    private String flags() {
      String f =
          (subscriptions + patternSubscriptions > 0 ? "P" : "")
              + (blocked ? "b" : "")
              + (redirect >= 0 ? "t" : "");
      return f.isEmpty() ? "N" : f;
    }

    /**
     * Returns the CLIENT LIST line, without its newline.
     *
     * @param now Unix milliseconds
     */
    public String line(long now) {
      return "id="
          + id
          + " addr="
          + address
          + " laddr="
          + localAddress
          + " fd=-1 name="
          + name
          + " age="
          + (now - createdMillis) / 1000
          + " idle=0 flags="
          + flags()
          + " db="
          + db
          + " sub="
          + subscriptions
          + " psub="
          + patternSubscriptions
          + " ssub=0 multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0"
          + " rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r cmd="
          + lastCommand
          + " user="
          + user
          + " redir="
          + redirect
          + " resp="
          + protocol;
    }
  }
}
