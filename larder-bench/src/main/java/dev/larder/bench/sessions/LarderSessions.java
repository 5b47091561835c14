package dev.larder.bench.sessions;

import dev.larder.codec.Codecs;
import dev.larder.tx.TxCache;
import dev.larder.tx.TxCacheSpec;
import dev.larder.tx.TxStore;
import dev.larder.wal.FsyncPolicy;
import dev.larder.wal.WalConfig;
import java.nio.file.Path;
import java.util.concurrent.atomic.LongAdder;

/**
 * Sessions in a Larder {@link TxStore}: one entry per session object (key {@code "s<n>/<slot>"}),
 * so that a request reads 250 entries and commits 250 writes in one transaction, as the seed's
 * GemStone request committed about 250 objects. Log on: one log under {@code always}, so a request
 * is answered only after its commit is forced. Log off: no persistence.
 */
final class LarderSessions implements SessionStore {

  static final TxCacheSpec<String, SessionObject> SPEC =
      TxCacheSpec.of("sessions", Codecs.strings(), SessionObject.CODEC);

  private final TxStore store;
  private final TxCache<String, SessionObject> cache;
  private final LongAdder retries = new LongAdder();

  /**
   * @param directory the log directory, or null for no log
   */
  LarderSessions(Path directory) {
    TxStore.Builder builder = TxStore.builder().cache(SPEC);
    if (directory != null) {
      builder.persistence(WalConfig.of(directory).withPolicy(FsyncPolicy.always()));
    }
    store = builder.build();
    cache = store.cache(SPEC);
  }

  @Override
  public long touch(long session) {
    int[] attempts = {0};
    long count = store.inTransaction(tx -> {
      if (attempts[0]++ > 0) {
        retries.increment();
      }
      long counter = 0;
      String prefix = "s" + session + "/";
      for (int slot = 0; slot < SessionObject.PER_SESSION; slot++) {
        String key = prefix + slot;
        SessionObject object = tx.get(cache, key);
        SessionObject next = (object == null ? SessionObject.fresh(slot) : object).touched();
        tx.put(cache, key, next);
        counter = next.count();
      }
      return counter;
    });
    return count;
  }

  @Override
  public long retries() {
    return retries.sum();
  }

  @Override
  public void close() {
    store.close();
  }
}
