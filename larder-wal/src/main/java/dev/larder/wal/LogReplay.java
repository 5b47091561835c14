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
   * Receives one entry of the checkpoint recovery starts from, where it lies in the array the
   * checkpoint was read into, without a copy of its own: the log never changes those bytes, and the
   * receiver may keep the array (it holds other entries of the checkpoint too). By default, hands a
   * copy to {@link #checkpointEntry(long, byte[])}; a receiver that reads the entry where it lies
   * overrides this one. Recovery calls this one.
   *
   * @param checkpointSequence the sequence the checkpoint captured
   * @param bytes holds the entry
   * @param offset where the entry starts
   * @param length its length
   */
  default void checkpointEntry(long checkpointSequence, byte[] bytes, int offset, int length) {
    checkpointEntry(
        checkpointSequence, java.util.Arrays.copyOfRange(bytes, offset, offset + length));
  }

  /**
   * Receives one record of the log after the checkpoint, in sequence order.
   *
   * @param sequence the record's sequence
   * @param type the record's type as appended
   * @param payload the record's payload as appended
   */
  void record(long sequence, int type, byte[] payload);
}
