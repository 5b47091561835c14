package dev.larder.server.internal.persist;

import dev.larder.cluster.StoreJournal;
import dev.larder.server.internal.keyspace.ChangeSink;

/**
 * A clustered member's {@link StoreJournal}: every change to its own store (the keys it owns and
 * its backup copies, whoever wrote them) becomes one record of its server log, in the standalone
 * format (a PUT of the stored value, a DELETE, a FLUSH_ALL), and each call returns only once the
 * log says the record may be acknowledged, so the member acknowledges a write to its primary or its
 * client only after that.
 *
 * <p>Implementation notes. The cluster calls {@link #stored} and {@link #removed} under the key's
 * segment lock, after the store changed: two changes of one key are appended in the store's order,
 * which is what replay needs. A record is appended outside any group of the sink (the calling
 * thread is a cluster thread, not a command inside the keyspace's locks), so each change is a
 * record of its own. {@link #sync} is {@link ChangeSink#awaitDurable}: a force under {@code always}
 * (concurrent waiters share one, larder-wal's group commit), a write to the operating system
 * otherwise.
 *
 * <p>Thread-safe.
 */
final class MemberStoreJournal implements StoreJournal {
  private final ChangeSink changes;

  /**
   * @param changes the log's sink
   */
  MemberStoreJournal(ChangeSink changes) {
    this.changes = changes;
  }

  @Override
  public void stored(byte[] key, byte[] value) {
    changes.put(key, value);
  }

  @Override
  public void removed(byte[] key) {
    changes.delete(key);
  }

  @Override
  public void cleared() {
    changes.flush(-1);
  }

  @Override
  public void sync() {
    changes.awaitDurable();
  }
}
