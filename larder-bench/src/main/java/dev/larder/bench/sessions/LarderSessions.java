package dev.larder.bench.sessions;

import dev.larder.codec.Codecs;
import dev.larder.tx.TxCache;
import dev.larder.tx.TxCacheSpec;
import dev.larder.tx.TxStore;
import dev.larder.wal.FsyncPolicy;
import dev.larder.wal.WalConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Sessions in a Larder {@link TxStore}, in one of two layouts. Per object: one entry per session
 * object (key {@code "s<n>/<slot>"}), so that a request reads 250 entries and commits 250 writes in
 * one transaction, as the published GemStone request committed about 250 objects. Per session: the
 * session is one entry whose value is the list of its 250 objects (about 50 KB), as an application
 * that caches a session object would store it. Log on: one log under {@code always}, so a request
 * is answered only after its commit is forced. Log off: no persistence.
 */
final class LarderSessions implements SessionStore {

  static final TxCacheSpec<String, SessionObject> SPEC =
      TxCacheSpec.of("sessions", Codecs.strings(), SessionObject.CODEC);
  static final TxCacheSpec<Long, List<SessionObject>> WHOLE =
      TxCacheSpec.of("whole-sessions", Codecs.longs(), Codecs.list(SessionObject.CODEC));

  private final TxStore store;
  private final TxCache<String, SessionObject> cache;
  private final TxCache<Long, List<SessionObject>> whole;
  private final boolean perSession;
  private final LongAdder retries = new LongAdder();

  /**
   * @param directory the log directory, or null for no log
   * @param perSession one entry per session rather than one per object
   */
  LarderSessions(Path directory, boolean perSession) {
    TxStore.Builder builder = TxStore.builder().cache(SPEC).cache(WHOLE);
    if (directory != null) {
      builder.persistence(WalConfig.of(directory).withPolicy(FsyncPolicy.always()));
    }
    store = builder.build();
    cache = store.cache(SPEC);
    whole = store.cache(WHOLE);
    this.perSession = perSession;
  }

  @Override
  public long touch(long session) {
    return perSession ? touchWhole(session) : touchObjects(session);
  }

  private long touchWhole(long session) {
    int[] attempts = {0};
    return store.inTransaction(
        tx -> {
          if (attempts[0]++ > 0) {
            retries.increment();
          }
          List<SessionObject> objects = tx.get(whole, session);
          List<SessionObject> next = new ArrayList<>(SessionObject.PER_SESSION);
          for (int slot = 0; slot < SessionObject.PER_SESSION; slot++) {
            SessionObject object = objects == null ? null : objects.get(slot);
            next.add((object == null ? SessionObject.fresh(slot) : object).touched());
          }
          tx.put(whole, session, next);
          return next.getLast().count();
        });
  }

  private long touchObjects(long session) {
    int[] attempts = {0};
    long count =
        store.inTransaction(
            tx -> {
              if (attempts[0]++ > 0) {
                retries.increment();
              }
              long counter = 0;
              String prefix = "s" + session + "/";
              for (int slot = 0; slot < SessionObject.PER_SESSION; slot++) {
                String key = prefix + slot;
                SessionObject object = tx.get(cache, key);
                SessionObject next =
                    (object == null ? SessionObject.fresh(slot) : object).touched();
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
