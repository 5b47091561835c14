package dev.larder.cluster.internal.tx;

import dev.larder.cluster.ClusterConfig;
import dev.larder.cluster.ClusterMode;
import dev.larder.cluster.Stacks;
import dev.larder.codec.ByteSink;
import dev.larder.codec.Codecs;
import dev.larder.tx.Isolation;
import dev.larder.tx.TxCache;
import dev.larder.tx.TxCacheSpec;
import dev.larder.tx.TxStore;
import dev.larder.tx.internal.KeyRef;
import dev.larder.tx.spi.TxStores;
import dev.larder.wal.FsyncPolicy;
import dev.larder.wal.WalConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.jgroups.protocols.DISCARD;
import org.jgroups.protocols.TP;
import org.jgroups.stack.ProtocolStack;

/** Members of one clustered store inside this JVM, on the in-process stack. */
final class TxTestCluster implements AutoCloseable {

  static final TxCacheSpec<String, Long> KV =
      TxCacheSpec.of("kv", Codecs.strings(), Codecs.longs());

  private static final AtomicInteger CLUSTERS = new AtomicInteger();

  final String name = "tx-" + ProcessHandle.current().pid() + "-" + CLUSTERS.incrementAndGet();
  final int size;
  private final Isolation isolation;
  private final Path dir;
  private final int owners;
  final List<ClusterTxEngine> engines = new ArrayList<>();
  final List<TxStore> stores = new ArrayList<>();
  final Duration timeout;

  /**
   * @param size members, all started now
   * @param dir if not null, member i keeps its log in dir/i (fsync interval 5 ms)
   */
  TxTestCluster(int size, Isolation isolation, Path dir) throws Exception {
    this(size, isolation, dir, Epoch.ALL);
  }

  /**
   * @param owners owners of each segment (DISTRIBUTED mode), or {@link Epoch#ALL} (REPLICATED)
   */
  TxTestCluster(int size, Isolation isolation, Path dir, int owners) throws Exception {
    this(size, isolation, dir, owners, Duration.ofSeconds(5));
  }

  /**
   * @param timeout the cluster timeout of every member (a commit's deadline, among others)
   */
  TxTestCluster(int size, Isolation isolation, Path dir, int owners, Duration timeout)
      throws Exception {
    this.size = size;
    this.timeout = timeout;
    this.isolation = isolation;
    this.dir = dir;
    this.owners = owners;
    for (int i = 0; i < size; i++) {
      engines.add(null);
      stores.add(null);
    }
    ExecutorService starter = Executors.newFixedThreadPool(size);
    try {
      List<Future<?>> started = new ArrayList<>();
      for (int i = 0; i < size; i++) {
        int n = i;
        started.add(starter.submit(() -> start(n)));
      }
      for (Future<?> f : started) {
        try {
          f.get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
          System.err.println("a member did not start:" + describe() + "\n" + threads());
          throw e;
        }
      }
    } finally {
      starter.shutdownNow();
    }
  }

  /** The stacks of the reconfiguration threads, for a failure's report. */
  static String threads() {
    StringBuilder sb = new StringBuilder();
    Thread.getAllStackTraces()
        .forEach(
            (t, stack) -> {
              if (t.getName().startsWith("larder-cluster-tx")) {
                sb.append(t.getName()).append(" ").append(t.getState()).append("\n");
                for (StackTraceElement e : stack) {
                  sb.append("    at ").append(e).append("\n");
                }
              }
            });
    return sb.toString();
  }

  /** Starts (or restarts) member {@code i}; returns when it has installed an epoch. */
  TxStore start(int i) {
    ClusterConfig config =
        ClusterConfig.builder()
            .stack(Stacks.IN_PROCESS)
            .clusterName(name)
            .nodeName("m" + i)
            .timeout(timeout)
            .segments(64)
            .mode(owners == Epoch.ALL ? ClusterMode.REPLICATED : ClusterMode.DISTRIBUTED)
            .owners(owners == Epoch.ALL ? 2 : owners)
            .initialClusterSize(1)
            .initialClusterTimeout(Duration.ofSeconds(30))
            .build();
    WalConfig wal =
        dir == null
            ? null
            : WalConfig.of(dir.resolve("m" + i))
                .withPolicy(FsyncPolicy.interval(Duration.ofMillis(5)));
    ClusterTxEngine engine =
        ClusterTxEngine.start(config, List.of(KV), isolation, size, wal, Duration.ZERO);
    TxStore store = TxStores.open(List.of(KV), engine);
    synchronized (this) {
      engines.set(i, engine);
      stores.set(i, store);
    }
    return store;
  }

  /** Starts the given members at once (a restart after a crash); returns when all are in. */
  void startAll(int... members) throws Exception {
    ExecutorService starter = Executors.newFixedThreadPool(members.length);
    try {
      List<Future<?>> started = new ArrayList<>();
      for (int i : members) {
        started.add(starter.submit(() -> start(i)));
      }
      for (Future<?> f : started) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      starter.shutdownNow();
    }
  }

  /** Returns the index of the member that coordinates the current view. */
  int coordinator() {
    for (int i = 0; i < size; i++) {
      ClusterTxEngine e = engine(i);
      if (e != null && e.channel().getView().getCoord().equals(e.channel().getAddress())) {
        return i;
      }
    }
    throw new AssertionError("no coordinator");
  }

  /**
   * Returns the index of the member that is the primary of {@code key} (of {@link #KV}) in the
   * epoch installed on the running members (which must agree on one).
   */
  int primaryOf(String key) {
    ByteSink sink = new ByteSink();
    KV.keyCodec().encode(key, sink);
    KeyRef ref = new KeyRef(0, sink.toByteArray());
    for (int i = 0; i < size; i++) {
      ClusterTxEngine e = engine(i);
      if (e != null && e.member().epoch().isPrimary(e.member().memberId(), ref)) {
        return i;
      }
    }
    throw new AssertionError("no running member is the primary of " + key + describe());
  }

  /** Returns the indexes of the running members that own {@code key} in their epoch. */
  List<Integer> ownersOf(String key) {
    KeyRef ref = ref(key);
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      ClusterTxEngine e = engine(i);
      if (e != null && e.member().epoch().isOwner(e.member().memberId(), ref)) {
        out.add(i);
      }
    }
    return out;
  }

  static KeyRef ref(String key) {
    ByteSink sink = new ByteSink();
    KV.keyCodec().encode(key, sink);
    return new KeyRef(0, sink.toByteArray());
  }

  /** Returns a key (of {@link #KV}) whose primary in the current epoch is member {@code i}. */
  String keyWithPrimary(int i) {
    for (int n = 0; n < 10_000; n++) {
      String key = "key-" + n;
      if (primaryOf(key) == i) {
        return key;
      }
    }
    throw new AssertionError("member " + i + " is the primary of none of 10,000 keys");
  }

  org.jgroups.Address address(int i) {
    return engine(i).channel().getAddress();
  }

  synchronized TxStore store(int i) {
    return stores.get(i);
  }

  synchronized ClusterTxEngine engine(int i) {
    return engines.get(i);
  }

  TxCache<String, Long> kv(int i) {
    return store(i).cache(KV);
  }

  /**
   * Cuts member {@code alone} off from the others (a DISCARD above every member's transport);
   * returns the DISCARDs, whose {@code resetIgnoredMembers} heals the cut.
   */
  DISCARD[] cutOff(int alone) throws Exception {
    DISCARD[] discards = new DISCARD[size];
    for (int i = 0; i < size; i++) {
      discards[i] = new DISCARD();
      engine(i)
          .channel()
          .getProtocolStack()
          .insertProtocol(discards[i], ProtocolStack.Position.ABOVE, TP.class);
    }
    for (int i = 0; i < size; i++) {
      if (i != alone) {
        discards[alone].addIgnoreMember(address(i));
        discards[i].addIgnoreMember(address(alone));
      }
    }
    return discards;
  }

  /**
   * Commits {@code k = v} from member {@code m} in the background, once (no retry): the future
   * holds the commit timestamp, or fails with what the commit threw.
   */
  java.util.concurrent.CompletableFuture<Long> commitAsync(int m, String k, long v) {
    TxStore store = store(m);
    return java.util.concurrent.CompletableFuture.supplyAsync(
        () -> {
          try (dev.larder.tx.Transaction tx = store.begin()) {
            tx.put(store.cache(KV), k, v);
            return tx.commit();
          }
        });
  }

  /**
   * Waits (at most {@code wait}) for a commit's outcome: returns its timestamp, or the {@link
   * dev.larder.tx.TransactionConflictException} (it aborted) or {@link
   * dev.larder.cluster.ClusterTimeoutException} (in doubt) it failed with; anything else it failed
   * with, or the wait running out, is thrown.
   */
  static Object outcomeOf(java.util.concurrent.CompletableFuture<Long> outcome, Duration wait)
      throws Exception {
    try {
      return outcome.get(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof dev.larder.tx.TransactionConflictException
          || e.getCause() instanceof dev.larder.cluster.ClusterTimeoutException) {
        return e.getCause();
      }
      throw e;
    }
  }

  /** Commits {@code k = v} from member {@code m}, retried on conflicts; returns its sequence. */
  long commit(int m, String k, long v) {
    return store(m)
        .inTransaction(
            tx -> {
              tx.put(kv(m), k, v);
              return tx;
            })
        .commitSequence();
  }

  /** Makes member {@code i} drop every message, then closes it: the others see a crash. */
  void crash(int i) throws Exception {
    ClusterTxEngine e = engine(i);
    DISCARD discard = new DISCARD().discardAll(true);
    e.channel()
        .getProtocolStack()
        .insertProtocol(
            discard,
            ProtocolStack.Position.ABOVE,
            e.channel().getProtocolStack().getTransport().getClass());
    store(i).close();
    synchronized (this) {
      stores.set(i, null);
      engines.set(i, null);
    }
  }

  /** Waits until every running member is READY in one epoch of {@code members} members. */
  void awaitEpoch(int members) {
    await(
        () -> {
          long epoch = -1;
          for (int i = 0; i < size; i++) {
            ClusterTxEngine e = engine(i);
            if (e == null) {
              continue;
            }
            if (!e.isReady()
                || e.members().size() != members
                || (epoch >= 0 && e.epochNumber() != epoch)) {
              return false;
            }
            epoch = e.epochNumber();
          }
          return true;
        },
        () -> "every member READY in one epoch of " + members + describe());
  }

  static void await(BooleanSupplier condition, String what) {
    await(condition, () -> what);
  }

  static void await(BooleanSupplier condition, java.util.function.Supplier<String> what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what.get());
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  String describe() {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < size; i++) {
      ClusterTxEngine e = engine(i);
      sb.append("\n  m")
          .append(i)
          .append(": ")
          .append(e == null ? "down" : e.describeMember() + ", view " + e.channel().getView());
    }
    return sb.toString();
  }

  @Override
  public void close() {
    for (int i = 0; i < size; i++) {
      TxStore s = store(i);
      if (s != null) {
        s.close();
      }
    }
  }
}
