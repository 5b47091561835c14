package dev.larder.bench.cluster;

import dev.larder.cluster.ClusterConfig;
import dev.larder.cluster.ClusterMode;
import dev.larder.cluster.ClusteredTxStore;
import dev.larder.cluster.Stacks;
import dev.larder.cluster.internal.tx.ClusterTxEngine;
import dev.larder.codec.Codecs;
import dev.larder.tx.Isolation;
import dev.larder.tx.Transaction;
import dev.larder.tx.TransactionConflictException;
import dev.larder.tx.TxCache;
import dev.larder.tx.TxCacheSpec;
import dev.larder.tx.TxStore;
import dev.larder.tx.spi.TxStores;
import dev.larder.wal.FsyncPolicy;
import dev.larder.wal.WalConfig;
import jakarta.transaction.TransactionManager;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import org.infinispan.AdvancedCache;
import org.infinispan.configuration.cache.CacheMode;
import org.infinispan.configuration.cache.ConfigurationBuilder;
import org.infinispan.configuration.cache.IsolationLevel;
import org.infinispan.configuration.global.GlobalConfigurationBuilder;
import org.infinispan.manager.DefaultCacheManager;
import org.infinispan.transaction.LockingMode;
import org.infinispan.transaction.TransactionMode;
import org.infinispan.transaction.lookup.EmbeddedTransactionManagerLookup;

/**
 * One member of the clustered-transaction throughput trial, in its own JVM: Larder's clustered
 * store (serializable; without a log, or with one under fsync interval) or Infinispan's cache
 * (REPL_SYNC, or DIST_SYNC with the same owners as Larder's distributed store) with optimistic
 * transactions (REPEATABLE_READ, which in Infinispan 15 implies its write-skew check on versioned
 * entries), both over {@link Stacks#LOOPBACK}.
 *
 * <p>A transaction reads two keys and writes both (a transfer). With probability {@code
 * conflictPercent} both keys come from 10 hot keys shared by every client of every member;
 * otherwise from 100 keys of the client's own, which no other client touches.
 *
 * <p>Commands: {@code members}, {@code run THREADS CONFLICT_PERCENT SECONDS} (answers {@code
 * COMMITS ABORTS}), {@code quit}. Arguments: implementation ({@code Larder}, {@code Larder-log},
 * {@code Infinispan}), port, cluster, node name, nodes, data directory, mode ({@code replicated} or
 * {@code distributed}, {@link TxClusterMode}).
 */
public final class TxBenchNode {

  private static final TxCacheSpec<String, Long> KV =
      TxCacheSpec.of("kv", Codecs.strings(), Codecs.longs());
  private static final int HOT_KEYS = 10;
  private static final int OWN_KEYS = 100;

  private TxBenchNode() {}

  /** One implementation's transfer. */
  interface Subject extends AutoCloseable {
    /** Returns true if committed, false if refused (a conflict). */
    boolean transfer(String a, String b) throws Exception;

    int members();

    @Override
    void close();
  }

  public static void main(String[] args) throws Exception {
    System.setProperty("larder.cluster.port", args[1]);
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    try (Subject subject =
        open(
            args[0],
            args[2],
            args[3],
            Integer.parseInt(args[4]),
            Path.of(args[5]),
            TxClusterMode.parse(args[6]))) {
      out.println("ready");
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String[] w = line.trim().split(" ", -1);
        switch (w[0]) {
          case "members" -> out.println(subject.members());
          case "run" ->
              out.println(
                  run(
                      subject,
                      args[3],
                      Integer.parseInt(w[1]),
                      Integer.parseInt(w[2]),
                      Integer.parseInt(w[3])));
          case "quit" -> {
            return;
          }
          default -> out.println("unknown " + line);
        }
      }
    }
  }

  private static String run(
      Subject subject, String node, int threads, int conflictPercent, int seconds)
      throws InterruptedException {
    LongAdder commits = new LongAdder();
    LongAdder aborts = new LongAdder();
    LongAdder errors = new LongAdder();
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    List<Thread> running = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      String own = node + "/" + t + "/";
      Thread th =
          new Thread(
              () -> {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                while (System.nanoTime() < end) {
                  boolean hot = r.nextInt(100) < conflictPercent;
                  int a = r.nextInt(hot ? HOT_KEYS : OWN_KEYS);
                  int b =
                      (a + 1 + r.nextInt((hot ? HOT_KEYS : OWN_KEYS) - 1))
                          % (hot ? HOT_KEYS : OWN_KEYS);
                  String ka = hot ? "hot" + a : own + a;
                  String kb = hot ? "hot" + b : own + b;
                  try {
                    (subject.transfer(ka, kb) ? commits : aborts).increment();
                  } catch (Exception e) {
                    errors.increment();
                  }
                }
              });
      th.start();
      running.add(th);
    }
    for (Thread th : running) {
      th.join();
    }
    return commits.sum() + " " + aborts.sum() + " " + errors.sum();
  }

  static Subject open(
      String implementation, String cluster, String name, int nodes, Path dir, ClusterMode mode) {
    return switch (implementation) {
      case "Larder" -> new LarderSubject(cluster, name, nodes, null, mode);
      case "Larder-log" -> new LarderSubject(cluster, name, nodes, dir, mode);
      case "Infinispan" -> new InfinispanSubject(cluster, name, nodes, mode);
      default -> throw new IllegalArgumentException("unknown implementation " + implementation);
    };
  }

  /**
   * Larder's clustered store, serializable: built as {@link ClusteredTxStore} builds it, with the
   * engine kept so that the member count can be asked.
   */
  static final class LarderSubject implements Subject {
    private final ClusterTxEngine engine;
    private final TxStore store;
    private final TxCache<String, Long> kv;

    LarderSubject(String cluster, String name, int nodes, Path dir, ClusterMode mode) {
      ClusterConfig config =
          ClusterConfig.builder()
              .stack(Stacks.LOOPBACK)
              .clusterName(cluster)
              .nodeName(name)
              .timeout(Duration.ofSeconds(15))
              .mode(mode)
              .owners(TxClusterMode.owners(nodes))
              .initialClusterSize(nodes)
              .build();
      WalConfig wal =
          dir == null
              ? null
              : WalConfig.of(dir).withPolicy(FsyncPolicy.interval(Duration.ofMillis(10)));
      engine =
          ClusterTxEngine.start(
              config, List.of(KV), Isolation.SERIALIZABLE, nodes, wal, Duration.ofMinutes(1));
      store = TxStores.open(List.of(KV), engine);
      kv = store.cache(KV);
    }

    @Override
    public boolean transfer(String a, String b) {
      try (Transaction tx = store.begin()) {
        Long va = tx.get(kv, a);
        Long vb = tx.get(kv, b);
        tx.put(kv, a, (va == null ? 0 : va) - 1);
        tx.put(kv, b, (vb == null ? 0 : vb) + 1);
        tx.commit();
        return true;
      } catch (TransactionConflictException e) {
        return false;
      }
    }

    @Override
    public int members() {
      return engine.members().size();
    }

    @Override
    public void close() {
      store.close();
    }
  }

  /** Infinispan 15 embedded, REPL_SYNC or DIST_SYNC, optimistic transactions, REPEATABLE_READ. */
  static final class InfinispanSubject implements Subject {
    private final DefaultCacheManager manager;
    private final AdvancedCache<String, byte[]> cache;
    private final TransactionManager tm;

    InfinispanSubject(String cluster, String name, int nodes, ClusterMode mode) {
      GlobalConfigurationBuilder global = GlobalConfigurationBuilder.defaultClusteredBuilder();
      global
          .transport()
          .clusterName(cluster)
          .nodeName(name)
          .addProperty("configurationFile", Stacks.LOOPBACK);
      global.jmx().enabled(false);
      global.cacheContainer().statistics(false);
      ConfigurationBuilder config = new ConfigurationBuilder();
      config.statistics().enabled(false);
      if (mode == ClusterMode.DISTRIBUTED) {
        config
            .clustering()
            .cacheMode(CacheMode.DIST_SYNC)
            .hash()
            .numOwners(TxClusterMode.owners(nodes));
      } else {
        config.clustering().cacheMode(CacheMode.REPL_SYNC);
      }
      config
          .transaction()
          .transactionMode(TransactionMode.TRANSACTIONAL)
          .lockingMode(LockingMode.OPTIMISTIC)
          .transactionManagerLookup(new EmbeddedTransactionManagerLookup());
      config.locking().isolationLevel(IsolationLevel.REPEATABLE_READ);
      manager = new DefaultCacheManager(global.build(), true);
      manager.defineConfiguration("bench", config.build());
      cache = manager.<String, byte[]>getCache("bench").getAdvancedCache();
      tm = cache.getTransactionManager();
    }

    @Override
    public boolean transfer(String a, String b) throws Exception {
      tm.begin();
      try {
        long va = decode(cache.get(a));
        long vb = decode(cache.get(b));
        cache.put(a, encode(va - 1));
        cache.put(b, encode(vb + 1));
        tm.commit();
        return true;
      } catch (jakarta.transaction.RollbackException e) {
        return false;
      } catch (Exception e) {
        if (tm.getTransaction() != null) {
          tm.rollback();
        }
        if (e instanceof org.infinispan.commons.CacheException) {
          return false; // a write-skew or lock conflict refused during the transaction
        }
        throw e;
      }
    }

    private static long decode(byte[] b) {
      return b == null ? 0 : ByteBuffer.wrap(b).getLong();
    }

    private static byte[] encode(long v) {
      return ByteBuffer.allocate(8).putLong(v).array();
    }

    @Override
    public int members() {
      return manager.getMembers().size();
    }

    @Override
    public void close() {
      manager.stop();
    }
  }
}
