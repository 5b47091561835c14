package dev.larder.server.internal.persist;

import dev.larder.cluster.StoreJournal;
import java.util.Objects;

/**
 * The journal a durable cluster member hands to its cluster when it builds it, before its log is
 * open: it passes every call to the log's own journal ({@link ServerLog#storeJournal}) once {@link
 * #open} gave it. The cluster uses a journal only from its join on, which the member starts after
 * it opened (and recovered) its log, so no call comes before; one that did would be a defect and
 * throws rather than drop a change.
 *
 * <p>Thread-safe: the target is published through a volatile field.
 */
public final class DeferredStoreJournal implements StoreJournal {
  private volatile StoreJournal target;

  /**
   * Gives the journal every later call goes to.
   *
   * @param journal the log's journal
   * @throws IllegalStateException if one was given already
   */
  public void open(StoreJournal journal) {
    Objects.requireNonNull(journal, "journal");
    synchronized (this) {
      if (target != null) {
        throw new IllegalStateException("the member's journal is open already");
      }
      target = journal;
    }
  }

  private StoreJournal target() {
    StoreJournal t = target;
    if (t == null) {
      throw new IllegalStateException("the member's log is not open yet");
    }
    return t;
  }

  @Override
  public void stored(byte[] key, byte[] value) {
    target().stored(key, value);
  }

  @Override
  public void removed(byte[] key) {
    target().removed(key);
  }

  @Override
  public void cleared() {
    target().cleared();
  }

  @Override
  public void sync() {
    target().sync();
  }

  @Override
  public long[] recordedEpochs(int segments) {
    return target().recordedEpochs(segments);
  }

  @Override
  public void recordEpochs(long[] epochs) {
    target().recordEpochs(epochs);
  }
}
