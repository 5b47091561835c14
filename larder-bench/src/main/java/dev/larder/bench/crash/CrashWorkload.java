package dev.larder.bench.crash;

import dev.larder.codec.Codecs;
import dev.larder.tx.TxCache;
import dev.larder.tx.TxCacheSpec;
import dev.larder.tx.TxStore;
import dev.larder.wal.FsyncPolicy;
import dev.larder.wal.WalConfig;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The data of the crash trials: accounts that transfers move money between, and a cache of ids in
 * which every commit (transfer or plain insert) writes its own unique id. Shared by the child that
 * is killed and the parent that checks what survived.
 */
final class CrashWorkload {

  static final TxCacheSpec<Integer, Long> ACCOUNTS =
      TxCacheSpec.of("accounts", Codecs.integers(), Codecs.longs());
  static final TxCacheSpec<Long, Long> IDS = TxCacheSpec.of("ids", Codecs.longs(), Codecs.longs());
  static final int ACCOUNT_COUNT = 32;
  static final long INITIAL = 1_000_000;

  private CrashWorkload() {}

  /**
   * Returns the store, recovered from the directory.
   *
   * @param directory the log directory
   * @param policy the fsync policy
   * @param checkpointEvery background checkpoint period
   */
  static TxStore open(Path directory, FsyncPolicy policy, Duration checkpointEvery) {
    return TxStore.builder()
        .cache(ACCOUNTS)
        .cache(IDS)
        .persistence(WalConfig.of(directory).withPolicy(policy).withSegmentBytes(1 << 20))
        .checkpointEvery(checkpointEvery)
        .build();
  }

  /** Puts the initial balances in one commit. */
  static void initialize(TxStore store) {
    TxCache<Integer, Long> accounts = store.cache(ACCOUNTS);
    store.inTransaction(
        tx -> {
          for (int a = 0; a < ACCOUNT_COUNT; a++) {
            tx.put(accounts, a, INITIAL);
          }
          return null;
        });
  }
}
