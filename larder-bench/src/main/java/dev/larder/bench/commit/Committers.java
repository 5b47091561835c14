package dev.larder.bench.commit;

import dev.larder.Cache;
import dev.larder.codec.Codecs;
import dev.larder.tx.TxCache;
import dev.larder.tx.TxCacheSpec;
import dev.larder.tx.TxStore;
import dev.larder.wal.FsyncPolicy;
import dev.larder.wal.LogStats;
import dev.larder.wal.WalConfig;
import java.nio.file.Path;
import java.time.Duration;
import jetbrains.exodus.ArrayByteIterable;
import jetbrains.exodus.bindings.LongBinding;
import jetbrains.exodus.env.Environment;
import jetbrains.exodus.env.EnvironmentConfig;
import jetbrains.exodus.env.Environments;
import jetbrains.exodus.env.Store;
import jetbrains.exodus.env.StoreConfig;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import org.h2.mvstore.DataUtils;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.MVStoreException;
import org.h2.mvstore.tx.Transaction;
import org.h2.mvstore.tx.TransactionMap;
import org.h2.mvstore.tx.TransactionStore;

/** The stores the commit benchmark compares, each opened on a fresh directory. */
final class Committers {

  static final TxCacheSpec<Long, byte[]> SPEC =
      TxCacheSpec.of("data", Codecs.longs(), Codecs.bytes());

  private Committers() {}

  /**
   * Returns the committer.
   *
   * @param implementation a name from {@link CommitScenario}
   * @param directory a fresh directory
   * @param keys keys in use
   * @param valueBytes value size
   * @throws Exception if the store cannot be opened
   */
  static Committer open(String implementation, Path directory, long keys, int valueBytes)
      throws Exception {
    return switch (implementation) {
      case "Larder always" -> larder(directory, FsyncPolicy.always());
      case "Larder interval(10ms)" ->
          larder(directory, FsyncPolicy.interval(Duration.ofMillis(10)));
      case "Larder none" -> larder(directory, FsyncPolicy.none());
      case "Larder plain puts" -> plain();
      case "ChronicleMap persisted" -> chronicle(directory, keys, valueBytes);
      case "H2 MVStore TransactionStore" -> h2(directory);
      case "Xodus durable write" -> xodus(directory);
      default -> throw new IllegalArgumentException("unknown implementation " + implementation);
    };
  }

  private static Committer larder(Path directory, FsyncPolicy policy) {
    TxStore store =
        TxStore.builder()
            .cache(SPEC)
            .persistence(WalConfig.of(directory).withPolicy(policy))
            .checkpointEvery(Duration.ZERO)
            .build();
    TxCache<Long, byte[]> cache = store.cache(SPEC);
    return new Committer() {
      private LogStats last = store.logStats().orElseThrow();

      @Override
      public void commit(long key, byte[] value) {
        cache.put(key, value);
      }

      @Override
      public double commitsPerForce() {
        LogStats now = store.logStats().orElseThrow();
        long forces = now.forces() - last.forces();
        double perForce =
            forces == 0
                ? Double.NaN
                : (double) (now.recordsForced() - last.recordsForced()) / forces;
        last = now;
        return perForce;
      }

      @Override
      public void close() {
        store.close();
      }
    };
  }

  /** Non-transactional puts into a plain core cache: what `none` is compared with. */
  private static Committer plain() {
    Cache<Long, byte[]> cache = Cache.builder(Codecs.longs(), Codecs.bytes()).unbounded().build();
    return new Committer() {
      @Override
      public void commit(long key, byte[] value) {
        cache.put(key, value);
      }

      @Override
      public void close() {
        cache.close();
      }
    };
  }

  /**
   * Chronicle Map persisted to a file. It has no commit and no force: a put lands in a shared
   * memory mapping, which survives a process kill but not a power cut.
   */
  private static Committer chronicle(Path directory, long keys, int valueBytes) throws Exception {
    ChronicleMap<Long, byte[]> map =
        ChronicleMapBuilder.of(Long.class, byte[].class)
            .name("commit-bench")
            .entries(keys)
            .averageValueSize(valueBytes)
            .createPersistedTo(directory.resolve("chronicle.dat").toFile());
    return new Committer() {
      @Override
      public void commit(long key, byte[] value) {
        map.put(key, value);
      }

      @Override
      public void close() {
        map.close();
      }
    };
  }

  /**
   * H2's MVStore with its TransactionStore, made durable per commit as an application must: commit
   * the transaction, then store.commit() (write a chunk) and store.sync() (force). MVStore
   * serializes store commits internally; it has no group commit of its own.
   */
  private static Committer h2(Path directory) {
    MVStore store =
        new MVStore.Builder()
            .fileName(directory.resolve("h2.mv").toString())
            .autoCommitDisabled()
            .open();
    TransactionStore transactions = new TransactionStore(store);
    transactions.init();
    return new Committer() {
      @Override
      public void commit(long key, byte[] value) {
        // Two threads may write the same key: H2 refuses the second writer at once (lock
        // timeout 0), and an application retries, as Larder's inTransaction does.
        while (true) {
          Transaction tx = transactions.begin();
          try {
            TransactionMap<Long, byte[]> map = tx.openMap("data");
            map.put(key, value);
            tx.commit();
            break;
          } catch (MVStoreException e) {
            tx.rollback();
            if (e.getErrorCode() != DataUtils.ERROR_TRANSACTION_LOCKED
                && e.getErrorCode() != DataUtils.ERROR_TRANSACTIONS_DEADLOCK) {
              throw e;
            }
            Thread.onSpinWait();
          }
        }
        store.commit();
        store.sync();
      }

      @Override
      public void close() {
        transactions.close();
        store.close();
      }
    };
  }

  /**
   * JetBrains Xodus (the environment layer: a log-structured store of optimistic, snapshot isolated
   * transactions), with {@code logDurableWrite} on so that a commit returns only after its log is
   * forced. {@code executeInTransaction} re-runs a transaction that conflicted at commit, as
   * Larder's inTransaction does. Xodus forces each commit on its own (no group commit).
   */
  private static Committer xodus(Path directory) {
    Environment env =
        Environments.newInstance(
            directory.resolve("xodus").toFile(),
            new EnvironmentConfig().setLogDurableWrite(true).setEnvCloseForcedly(true));
    Store store =
        env.computeInTransaction(txn -> env.openStore("data", StoreConfig.WITHOUT_DUPLICATES, txn));
    return new Committer() {
      @Override
      public void commit(long key, byte[] value) {
        env.executeInTransaction(
            txn -> store.put(txn, LongBinding.longToEntry(key), new ArrayByteIterable(value)));
      }

      @Override
      public void close() {
        env.close();
      }
    };
  }
}
