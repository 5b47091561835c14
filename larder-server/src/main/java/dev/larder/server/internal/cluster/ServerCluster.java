package dev.larder.server.internal.cluster;

import dev.larder.Cache;
import dev.larder.cluster.ClusterConfig;
import dev.larder.cluster.ClusterDegradedException;
import dev.larder.cluster.ClusterException;
import dev.larder.cluster.ClusterMode;
import dev.larder.cluster.ClusterTimeoutException;
import dev.larder.cluster.ClusteredCache;
import dev.larder.cluster.ClusteredCacheBuilder;
import dev.larder.cluster.PartitionHandling;
import dev.larder.cluster.Replication;
import dev.larder.cluster.StoreJournal;
import dev.larder.codec.Codecs;
import dev.larder.server.ServerConfig;
import dev.larder.server.ServerSetting;
import dev.larder.server.internal.keyspace.ClusterStore;
import dev.larder.server.internal.keyspace.ValueLayout;
import dev.larder.server.internal.persist.ServerLog;
import dev.larder.wal.FileLayer;
import dev.larder.wal.WalConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * A clustered server's membership of its Larder cluster: the clustered cache its keyspace is stored
 * in (stored keys and values exactly as a standalone keyspace's, spread over the members by {@link
 * SlotPartitioner}), and what the Redis Cluster commands report of it: which member serves which
 * slots, at which address.
 *
 * <p>Implementation notes. Each member joins with its RESP address as a cluster attribute, so every
 * member can name any other's address (CLUSTER SLOTS, MOVED) from its view alone. A slot's master
 * is its segment's primary; its replicas are the segment's other owners (with {@code
 * cluster-transactions on}, the transactional store's epoch's primary and owners). A node's id is
 * the SHA-1 of its member name, in hex, so it is the same after a restart under the same name, as
 * Redis's ids are.
 *
 * <p>Thread-safe.
 */
public final class ServerCluster implements ClusterStore, AutoCloseable {
  /** The attribute holding a member's RESP address, {@code host:port}. */
  static final String RESP_ADDRESS = "resp";

  /**
   * A member as cluster-aware clients see it.
   *
   * @param name its member name
   * @param id its 40-hex-digit node id
   * @param host the host clients reach it at
   * @param port its RESP port
   */
  public record Node(String name, String id, String host, int port) {
    /** Returns {@code host:port}. */
    public String address() {
      return host + ":" + port;
    }
  }

  /**
   * A run of slots with the same owners.
   *
   * @param from the first slot
   * @param to the last slot, inclusive
   * @param owners the master first, then the replicas
   */
  public record SlotRange(int from, int to, List<Node> owners) {}

  private final ClusteredCache<byte[], byte[]> cache;
  private final ServerConfig config;
  private final int segments;
  private final Versions versions;

  /** Whether replication is synchronous. */
  private final boolean synchronous;

  /** The keyspace's transactional store ({@code cluster-transactions on}), or null. */
  private final ClusterTransactions transactions;

  /**
   * How {@link #join()} starts {@link #transactions} for a member from {@link #createTransactional}
   * (its cluster and log); null once started, or for a member whose store was started as it joined.
   */
  private record TransactionsToStart(ClusterConfig cluster, int members, WalConfig log) {}

  private TransactionsToStart toStart;

  private ServerCluster(
      ClusteredCache<byte[], byte[]> cache, ServerConfig config, ClusterTransactions transactions) {
    this(cache, config, transactions, null);
  }

  private ServerCluster(
      ClusteredCache<byte[], byte[]> cache,
      ServerConfig config,
      ClusterTransactions transactions,
      TransactionsToStart toStart) {
    this.cache = cache;
    this.transactions = transactions;
    this.toStart = toStart;
    this.config = config;
    this.segments = cache.clusterConfig().segments();
    this.versions = new Versions(cache.nodeName(), System::currentTimeMillis);
    this.synchronous = cache.clusterConfig().replication() == Replication.SYNC;
  }

  /**
   * Joins (or founds) the cluster the settings name; returns once this member's view holds {@code
   * cluster-size} members.
   *
   * @param config the server's settings; {@link ServerConfig#cluster()} is not null
   * @param respPort the RESP port this member serves on
   * @return the joined member
   * @throws ClusterException if the cluster cannot be joined (refused settings, timeout)
   */
  public static ServerCluster join(ServerConfig config, int respPort) {
    return join(config, respPort, null, null);
  }

  /**
   * As {@link #join(ServerConfig, int)}, over a store of this member's own (a durable member's:
   * recovered from its log before it joins, see {@link ClusteredCacheBuilder#localStore}) whose
   * every change the journal records.
   *
   * @param config the server's settings; {@link ServerConfig#cluster()} is not null
   * @param respPort the RESP port this member serves on
   * @param store this member's own store, or null for one the cluster builds
   * @param journal records every change to {@code store}; null exactly when {@code store} is
   * @return the joined member
   * @throws ClusterException if the cluster cannot be joined (refused settings, timeout)
   */
  public static ServerCluster join(
      ServerConfig config, int respPort, Cache<byte[], byte[]> store, StoreJournal journal) {
    // checked before joining: a refused directory then costs no join
    WalConfig transactionLog = config.clusterTransactions() ? transactionLog(config) : null;
    ClusteredCache<byte[], byte[]> joined = builder(config, respPort, store, journal).build();
    if (!config.clusterTransactions()) {
      return new ServerCluster(joined, config, null);
    }
    try {
      return new ServerCluster(
          joined, config, startTransactions(config, memberName(config, respPort), transactionLog));
    } catch (RuntimeException e) {
      joined.close();
      throw e;
    }
  }

  /**
   * As {@link #join(ServerConfig, int, Cache, StoreJournal)}, but not joined yet: a durable member
   * builds its side first, binds its client ports (answering that it is loading), recovers its log
   * into {@code store}, and only then calls {@link #join()}. Until then the cluster's cache (and so
   * the keyspace built over {@link #keyspaceStore()}) refuses every read and write with {@link
   * IllegalStateException}, and reads neither {@code store} nor {@code journal} (see
   * larder-cluster's {@code ClusteredCacheBuilder.buildUnjoined}). Not with {@code
   * cluster-transactions on}.
   *
   * @param config the server's settings; {@link ServerConfig#cluster()} is not null
   * @param respPort the RESP port this member serves on
   * @param store this member's own store
   * @param journal records every change to {@code store} once joined
   * @return the member, not joined
   * @throws IllegalArgumentException with {@code cluster-transactions on}
   */
  public static ServerCluster create(
      ServerConfig config, int respPort, Cache<byte[], byte[]> store, StoreJournal journal) {
    if (config.clusterTransactions()) {
      throw new IllegalArgumentException(
          "a member with cluster-transactions on joins as it is built");
    }
    return new ServerCluster(
        builder(config, respPort, store, journal).buildUnjoined(), config, null);
  }

  /**
   * As {@link #create}, for a member with {@code cluster-transactions on} and {@code dir}: its
   * cluster's cache is built but not joined, and its transactional store (the keyspace's, {@link
   * #keyspaceStore()}) neither recovered nor joined, so that the member binds its client ports
   * first (answering that it is loading) and only then calls {@link #join()}, which recovers the
   * store's log and joins both. Until then the keyspace's store refuses every read and write with
   * {@link IllegalStateException}. The directory is checked here, before anything binds.
   *
   * @param config the server's settings; {@link ServerConfig#cluster()} and {@link
   *     ServerConfig#dir()} are not null, {@code cluster-transactions} is on
   * @param respPort the RESP port this member serves on
   * @param files the file layer of the transactional store's log (a held or simulated disk in
   *     tests)
   * @return the member, not joined
   * @throws ClusterException if the directory holds a server log
   * @throws IllegalArgumentException without {@code cluster-transactions on} or {@code dir}
   */
  public static ServerCluster createTransactional(
      ServerConfig config, int respPort, FileLayer files) {
    if (!config.clusterTransactions() || config.dir() == null) {
      throw new IllegalArgumentException(
          "a member is created transactional only with cluster-transactions on and dir");
    }
    WalConfig log = transactionLog(config).withFiles(files);
    ClusterConfig tx = transactionsCluster(config, memberName(config, respPort));
    ClusteredCache<byte[], byte[]> unjoined = builder(config, respPort, null, null).buildUnjoined();
    return new ServerCluster(
        unjoined,
        config,
        ClusterTransactions.unstarted(tx),
        new TransactionsToStart(tx, Integer.parseInt(config.get(ServerSetting.CLUSTER_SIZE)), log));
  }

  /**
   * Joins the cluster, for a member from {@link #create} or {@link #createTransactional}; returns
   * once this member's view holds {@code cluster-size} members and, with {@code
   * cluster-transactions on}, its transactional store has recovered its log and installed an epoch.
   * On failure the cluster's cache is closed (and a transactional store not started).
   *
   * @throws ClusterException if the cluster cannot be joined (refused settings, timeout)
   * @throws IllegalStateException if this member joined already or was closed, or the log's
   *     directory is held by another server or holds another format
   */
  public void join() {
    TransactionsToStart start;
    synchronized (this) {
      start = toStart;
      toStart = null;
    }
    cache.join();
    if (start != null) {
      try {
        transactions.join(start.cluster(), start.members(), start.log());
      } catch (RuntimeException e) {
        cache.close();
        throw e;
      }
    }
  }

  /** This member's name: {@code cluster-node-name}, else its RESP address. */
  private static String memberName(ServerConfig config, int respPort) {
    String name = config.get(ServerSetting.CLUSTER_NODE_NAME);
    return name.isEmpty() ? config.clusterAnnounceIp() + ":" + respPort : name;
  }

  /** The cluster's cache as the settings describe it, over {@code store} if not null. */
  private static ClusteredCacheBuilder<byte[], byte[]> builder(
      ServerConfig config, int respPort, Cache<byte[], byte[]> store, StoreJournal journal) {
    String host = config.clusterAnnounceIp();
    String name = memberName(config, respPort);
    ClusterConfig.Builder c =
        ClusterConfig.builder()
            .stack(ClusterStack.of(config))
            .clusterName(config.cluster())
            .nodeName(name)
            .mode(
                config.get(ServerSetting.CLUSTER_MODE).equals("distributed")
                    ? ClusterMode.DISTRIBUTED
                    : ClusterMode.REPLICATED)
            .owners(Integer.parseInt(config.get(ServerSetting.CLUSTER_OWNERS)))
            .replication(
                config.get(ServerSetting.CLUSTER_REPLICATION).equals("async")
                    ? Replication.ASYNC
                    : Replication.SYNC)
            .timeout(Duration.ofMillis(config.clusterTimeoutMillis()))
            .segments(Integer.parseInt(config.get(ServerSetting.CLUSTER_SEGMENTS)))
            .initialClusterSize(Integer.parseInt(config.get(ServerSetting.CLUSTER_SIZE)))
            .minorityReads(config.get(ServerSetting.CLUSTER_MINORITY_READS).equals("on"))
            .partitioner(SlotPartitioner.INSTANCE)
            .attribute(RESP_ADDRESS, host + ":" + respPort);
    switch (config.get(ServerSetting.CLUSTER_PARTITION_HANDLING)) {
      case "quorum" -> c.partitionHandling(PartitionHandling.QUORUM);
      case "allow-all" -> c.partitionHandling(PartitionHandling.ALLOW_ALL);
      default -> {}
    }
    ClusteredCacheBuilder<byte[], byte[]> builder =
        ClusteredCache.builder(Codecs.bytes(), Codecs.bytes())
            .maximumMemory(config.maxMemory())
            .cluster(c.build())
            // what lets the keyspace's expiry sweep idle (ClusterStore.expiringStored)
            .countStoredValues(v -> ValueLayout.expiryOf(v) != 0);
    if (store != null) {
      builder.localStore(store, journal);
    }
    return builder;
  }

  /** The transport of the transactional store's channel: this far above the cluster's ports. */
  static final int TRANSACTIONS_PORT_OFFSET = 1000;

  private static ClusterTransactions startTransactions(
      ServerConfig config, String name, WalConfig log) {
    int size = Integer.parseInt(config.get(ServerSetting.CLUSTER_SIZE));
    return ClusterTransactions.start(transactionsCluster(config, name), size, log);
  }

  /** The transactional store's cluster: its own transport, SYNC, the server's mode and owners. */
  private static ClusterConfig transactionsCluster(ServerConfig config, String name) {
    int size = Integer.parseInt(config.get(ServerSetting.CLUSTER_SIZE));
    return ClusterConfig.builder()
        .stack(ClusterStack.of(config, TRANSACTIONS_PORT_OFFSET))
        .clusterName(config.cluster())
        .nodeName(name)
        .mode(
            config.get(ServerSetting.CLUSTER_MODE).equals("distributed")
                ? ClusterMode.DISTRIBUTED
                : ClusterMode.REPLICATED)
        .owners(Integer.parseInt(config.get(ServerSetting.CLUSTER_OWNERS)))
        .replication(Replication.SYNC)
        .timeout(Duration.ofMillis(config.clusterTimeoutMillis()))
        .segments(Integer.parseInt(config.get(ServerSetting.CLUSTER_SEGMENTS)))
        .initialClusterSize(size)
        .partitioner(SlotPartitioner.INSTANCE)
        .build();
  }

  /**
   * The transactional store's log with {@code dir}: kept in the directory itself (the store's own
   * format, docs/spec/cluster-wire.md, "Transaction log records"), forced as {@code appendfsync}
   * says, as a standalone server's log is ({@code no}: written before the reply, forcing left to
   * the operating system); null without {@code dir}.
   *
   * @throws ClusterException if the directory holds a server log, which this store cannot read
   */
  static WalConfig transactionLog(ServerConfig config) {
    Path dir = config.dir();
    if (dir == null) {
      return null;
    }
    if (Files.exists(dir.resolve(ServerLog.FORMAT_FILE))) {
      throw new ClusterException(
          dir
              + " holds a server log (its "
              + ServerLog.FORMAT_FILE
              + " file), written with cluster-transactions off: a member with cluster-transactions"
              + " on keeps its commits in another format and would start without them; give it"
              + " another directory");
    }
    return WalConfig.of(dir).withPolicy(ServerLog.policy(config.appendfsync()));
  }

  /** Returns the transactional store ({@code cluster-transactions on}), or null. */
  public ClusterTransactions transactions() {
    return transactions;
  }

  /** Returns the store the keyspace is built over: the transactional one, or the cluster's. */
  public Cache<byte[], byte[]> keyspaceStore() {
    return transactions != null ? transactions.cache() : cache;
  }

  /** Returns the clustered cache of the keyspace's stored keys and values. */
  public ClusteredCache<byte[], byte[]> cache() {
    return cache;
  }

  /** Returns the version source of this member's writes. */
  public LongSupplier versions() {
    return versions;
  }

  /** Returns this member's name. */
  public String name() {
    return cache.nodeName();
  }

  /** Returns this member as clients see it. */
  public Node self() {
    return node(cache.nodeName());
  }

  /** Returns the current members as clients see them, coordinator first. */
  public List<Node> nodes() {
    List<Node> out = new ArrayList<>();
    for (String m : cache.members()) {
      out.add(node(m));
    }
    return out;
  }

  private Node node(String member) {
    String address = cache.memberAttributes(member).get(RESP_ADDRESS);
    int colon = address == null ? -1 : address.lastIndexOf(':');
    String host = colon < 0 ? "" : address.substring(0, colon);
    int port = colon < 0 ? 0 : Integer.parseInt(address.substring(colon + 1));
    return new Node(member, nodeId(member), host, port);
  }

  /**
   * Returns its node id: SHA-1 of the name, 40 hex digits.
   *
   * @param member a member name
   */
  static String nodeId(String member) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-1").digest(member.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is missing from this JDK", e);
    }
  }

  /** Returns the slots in runs of equal owners, in slot order, covering all 16384. */
  public List<SlotRange> ranges() {
    List<SlotRange> out = new ArrayList<>();
    int per = HashSlot.SLOTS / segments;
    List<String> previous = null;
    int from = 0;
    for (int s = 0; s < segments; s++) {
      List<String> owners = segmentOwners(s);
      if (previous != null && !owners.equals(previous)) {
        out.add(range(from, s * per - 1, previous));
        from = s * per;
      }
      previous = owners;
    }
    out.add(range(from, HashSlot.SLOTS - 1, previous));
    return out;
  }

  private SlotRange range(int from, int to, List<String> owners) {
    List<Node> nodes = new ArrayList<>(owners.size());
    for (String o : owners) {
      nodes.add(node(o));
    }
    return new SlotRange(from, to, nodes);
  }

  /**
   * Returns the names of its owners in this member's view, master first.
   *
   * @param slot a slot
   */
  public List<String> owners(int slot) {
    return segmentOwners(SlotPartitioner.segmentOfSlot(slot, segments));
  }

  /**
   * Returns the owners of a segment, primary first. With {@code cluster-transactions on}, those of
   * the transactional store's epoch, whose primary validates and locks the segment's keys at commit
   * (so a redirected client lands on it); the cluster's view's while that epoch names a member the
   * view does not know the address of (the epoch and the view change at different moments).
   */
  private List<String> segmentOwners(int segment) {
    if (transactions != null) {
      List<String> owners = transactions.member().owners(segment);
      if (!owners.isEmpty() && owners.stream().allMatch(this::addressKnown)) {
        return owners;
      }
    }
    return cache.segmentOwners(segment);
  }

  private boolean addressKnown(String member) {
    return cache.memberAttributes(member).get(RESP_ADDRESS) != null;
  }

  /**
   * Returns its master as clients see it.
   *
   * @param slot a slot
   */
  public Node master(int slot) {
    return node(owners(slot).getFirst());
  }

  /** Returns whether replication is synchronous (a write returns once every owner holds it). */
  public boolean synchronous() {
    return synchronous;
  }

  /** Returns whether this member serves writes now (see PartitionHandling). */
  public boolean available() {
    return cache.available();
  }

  /**
   * Returns how many segments this member waits for: every member holding their newest record left
   * (a durable cluster), so their keys are refused until one returns (see ClusteredCache).
   */
  public int waitingSegments() {
    return cache.waitingSegments().size();
  }

  /**
   * Starts empty, on every member, the segments that wait for members holding their newest record;
   * what only those records held is lost (logged as an error on each member).
   *
   * @return the number of segments given up
   * @throws ClusterException if this member is on a minority side, or a member did not answer
   */
  public int abandonWaitingSegments() {
    return cache.abandonWaitingSegments().size();
  }

  /** Returns whether every client is redirected with MOVED. */
  public boolean redirectsAll() {
    return config.clusterRedirects();
  }

  /**
   * Returns this member's stored entries, its own and its backup copies (with {@code
   * cluster-transactions on}, the transactional store's newest values of the keys this member
   * owns), weakly consistent.
   */
  public Iterator<Map.Entry<byte[], byte[]>> localEntries() {
    return transactions != null ? transactions.ownedEntries() : cache.localEntries();
  }

  /**
   * Returns what the keyspace's expiry sweep walks, weakly consistent: every entry this member
   * holds, its own and its backup copies, so that a pass that finds no expiry lets it idle whatever
   * segments this member becomes primary of later, and it removes the expired ones it {@link
   * #sweeps}. With {@code cluster-transactions on}, the entries this member is the primary of.
   */
  public Iterator<Map.Entry<byte[], byte[]>> sweepEntries() {
    return transactions != null ? transactions.primaryEntries() : cache.localEntries();
  }

  @Override
  public boolean sweeps(byte[] storedKey) {
    // The transactional store's walk holds this member's primaries only.
    return transactions != null || cache.isLocalPrimary(storedKey);
  }

  /**
   * {@inheritDoc}
   *
   * <p>The transactional store keeps no such count: with {@code cluster-transactions on} the value
   * moves on every call, so the sweep never idles there.
   */
  @Override
  public long expiringStored() {
    return transactions != null ? System.nanoTime() : cache.countedValuesStored();
  }

  /**
   * Under {@link PendingAcks#armed() armed} collection on this thread, stores the value with {@link
   * ClusteredCache#putAsync}: on the key's primary under SYNC replication it is applied and sent to
   * the backups, and the acknowledgement is left pending for the command's reply; elsewhere it
   * waits as {@code put} does. Under ASYNC replication an event loop's copies to the backups leave
   * together at the end of its iteration ({@link HeldBackups}).
   */
  @Override
  public boolean putDeferred(byte[] storedKey, byte[] storedValue) {
    // With cluster-transactions on, the keyspace's writes go through the transactional store.
    if (transactions != null || !PendingAcks.armed()) {
      return false;
    }
    if (!synchronous) {
      // nothing waits for the copies: they leave with the loop's other writes, at its iteration's
      // end
      HeldBackups.holdForIteration(cache);
    }
    CompletableFuture<Void> acks = cache.putAsync(storedKey, storedValue).toCompletableFuture();
    if (!acks.isDone() || acks.isCompletedExceptionally()) {
      PendingAcks.add(acks);
    }
    return true;
  }

  /**
   * Returns the keys of that slot (every database) in this member's store.
   *
   * @param slot a slot
   */
  public long countKeysInSlot(int slot) {
    long n = 0;
    for (Iterator<Map.Entry<byte[], byte[]>> it = localEntries(); it.hasNext(); ) {
      byte[] k = it.next().getKey();
      n += HashSlot.of(k, 1, k.length) == slot ? 1 : 0;
    }
    return n;
  }

  /**
   * The Redis error a cluster failure is answered with: CLUSTERDOWN when this member refuses (it is
   * on a minority side), TRYAGAIN when other members did not answer in time.
   *
   * @param e the failure
   * @return the error line, without the leading {@code -}
   */
  public static String respError(ClusterException e) {
    String message = String.valueOf(e.getMessage()).replace('\r', ' ').replace('\n', ' ');
    if (e instanceof ClusterDegradedException) {
      return "CLUSTERDOWN " + message;
    }
    if (e instanceof ClusterTimeoutException) {
      return "TRYAGAIN " + message;
    }
    return "ERR cluster: " + message;
  }

  @Override
  public void close() {
    try {
      if (transactions != null) {
        transactions.close();
      }
    } finally {
      cache.close();
    }
  }
}
