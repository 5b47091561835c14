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
 * record of its own. The member's epochs (larder-cluster's, one per segment, for full restarts) are
 * a file of their own beside the log ({@link MemberEpochFile}), written after the log is durable up
 * to the change told last. {@link #sync} is {@link ChangeSink#awaitDurable}: a force under {@code
 * always} (concurrent waiters share one, larder-wal's group commit), a write to the operating
 * system otherwise.
 *
 * <p>Thread-safe.
 */
final class MemberStoreJournal implements StoreJournal {
  private final ChangeSink changes;
  private final MemberEpochFile epochFile;
  private final MemberEpochFile.Recorded recovered;

  /**
   * @param changes the log's sink
   * @param epochFile where the member's epochs are kept, beside the log
   * @param recovered the epochs the file held at start
   */
  MemberStoreJournal(
      ChangeSink changes, MemberEpochFile epochFile, MemberEpochFile.Recorded recovered) {
    this.changes = changes;
    this.epochFile = epochFile;
    this.recovered = recovered;
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

  /**
   * {@inheritDoc}
   *
   * @throws IllegalStateException if the file recorded the epochs of another number of segments
   */
  @Override
  public long[] recordedEpochs(int segments) {
    return recovered.of(segments, epochFile.path());
  }

  /**
   * Makes every change told so far durable, then the epochs: they claim the log holds them. The
   * cluster calls it from one thread at a time (its formation serializes epochs).
   */
  @Override
  public synchronized void recordEpochs(long[] epochs) {
    changes.awaitDurable();
    epochFile.write(epochs);
  }
}
