package dev.larder.wal;

/**
 * Receives the durable state during recovery: first the entries of the last complete checkpoint,
 * then every log record after the checkpoint's sequence, in sequence order. Called from the thread
 * that opens the log.
 */
public interface LogReplay {

  /**
   * Receives one entry of the checkpoint recovery starts from.
   *
   * @param checkpointSequence the sequence the checkpoint captured (0 if none)
   * @param entry one entry of the checkpoint, as it was given to {@link Checkpoint#add}
   */
  void checkpointEntry(long checkpointSequence, byte[] entry);

  /**
   * Receives one record of the log after the checkpoint, in sequence order.
   *
   * @param sequence the record's sequence
   * @param type the record's type as appended
   * @param payload the record's payload as appended
   */
  void record(long sequence, int type, byte[] payload);
}
