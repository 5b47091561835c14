package dev.larder.tx.spi;

import dev.larder.codec.ByteSink;
import dev.larder.tx.Isolation;
import dev.larder.tx.TransactionConflictException;
import dev.larder.tx.TxStats;
import dev.larder.tx.internal.KeyRef;
import dev.larder.tx.internal.SnapshotRegistry;
import dev.larder.wal.WriteAheadLog;
import java.util.SequencedMap;
import java.util.Set;

/**
 * What a {@link dev.larder.tx.TxStore} and its transactions need from the engine that stores,
 * versions and commits: larder-tx's local engine, or larder-cluster's clustered one. Keys and
 * values arrive encoded (the store runs the codecs); stored bytes hold a value at {@link
 * #valueOffset}.
 *
 * <p>Implementations are thread-safe. Not an API for applications: this package is exported to
 * larder-cluster only.
 */
public interface TxBackend extends AutoCloseable {

  /** The value of a buffered removal in a write set: compared by identity. */
  byte[] REMOVED = new byte[0];

  /** Returns the isolation of {@code begin()} and of single operations. */
  Isolation defaultIsolation();

  /** Returns a registered snapshot for a new transaction; release it with {@link #end}. */
  SnapshotRegistry.Snapshot begin();

  /**
   * Tells the backend a transaction has ended.
   *
   * @param snapshot a snapshot from {@link #begin} whose transaction ended
   */
  void end(long snapshot);

  /**
   * Returns the stored bytes valid at the snapshot, or null if absent.
   *
   * @param ref a key
   * @param snapshot the reader's snapshot
   */
  byte[] read(KeyRef ref, long snapshot);

  /**
   * Returns where the value codec's bytes start in them.
   *
   * @param stored bytes from {@link #read}
   */
  int valueOffset(byte[] stored);

  /**
   * Commits a write set (values are encoded values, or {@link #REMOVED}).
   *
   * @return the commit's sequence (or timestamp)
   * @throws TransactionConflictException if the commit is refused; nothing of it is visible
   */
  long commit(
      long snapshot, Isolation isolation, Set<KeyRef> reads, SequencedMap<KeyRef, byte[]> writes);

  /**
   * Commits one write outside any transaction.
   *
   * @param value the encoded value, valid during the call; null removes the key
   * @return the commit's sequence (or timestamp)
   */
  long commitBlind(KeyRef key, ByteSink value);

  /**
   * Waits (at most {@code maxNanos}) until new snapshots include {@code sequence}: what a
   * transaction retried after a conflict needs.
   */
  void awaitVisible(long sequence, long maxNanos);

  /**
   * Writes a checkpoint now.
   *
   * @return the sequence the checkpoint holds
   * @throws IllegalStateException without persistence
   */
  long checkpoint();

  /** Returns the log, or null without persistence. */
  WriteAheadLog log();

  /** Returns counters. */
  TxStats stats();

  /** Returns entries of the cache at {@code index}, approximate. */
  long estimatedSize(int index);

  /** Returns bytes the cache at {@code index} holds. */
  long memoryUsed(int index);

  /** Releases everything; the store is closed. */
  @Override
  void close();
}
