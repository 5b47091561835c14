package dev.larder.cluster.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The backup writes that wait for no acknowledgement (reqId 0), queued for one backup member in the
 * order the primary applied them, and sent as one BACKUPS frame (one BACKUP when a single write is
 * queued) per view. Thread-safe.
 *
 * <p>Implementation notes. A write is queued under its key's segment lock on the primary, so the
 * queue holds each key's writes in the order of the primary's store, whichever thread applied them;
 * every send to this member that must stay behind them (any regular frame: {@link Messenger#send})
 * drains the queue first and is sent under the same lock, so the frames leave in queue order and
 * the transport's FIFO delivery keeps it. Writes of different views, or with different
 * value-dictionary sizes, go in different frames: a backup checks those per frame.
 */
final class Outbox {

  private final ReentrantLock lock = new ReentrantLock();

  /** Alternating keys and values (null: a removal), in the order they were queued. */
  private final List<byte[]> entries = new ArrayList<>();

  private long viewId;
  private int[] ints = Frame.NO_INTS;

  /** Read without the lock by {@link #isEmpty}; written under it. */
  private volatile int queued;

  /** Takes the lock; every call below except {@link #isEmpty} needs it held. */
  void lock() {
    lock.lock();
  }

  void unlock() {
    lock.unlock();
  }

  /** Returns whether nothing is queued (a hint: no lock taken). */
  boolean isEmpty() {
    return queued == 0;
  }

  /**
   * Queues a write, first handing {@code send} what is queued if it belongs to another view or
   * carries other dictionary sizes. Caller holds the lock.
   *
   * @param value the new stored value, or null for a removal
   */
  void add(long view, int[] writeInts, byte[] key, byte[] value, Consumer<Frame> send) {
    if (queued > 0 && (view != viewId || !Arrays.equals(writeInts, ints))) {
      drain(send);
    }
    viewId = view;
    ints = writeInts;
    entries.add(key);
    entries.add(value);
    queued = entries.size() / 2;
  }

  /**
   * Hands {@code send} what is queued, as one frame, and empties the queue; nothing when empty.
   * Caller holds the lock, and sends while it holds it.
   */
  void drain(Consumer<Frame> send) {
    int n = entries.size() / 2;
    if (n == 0) {
      return;
    }
    Frame f;
    if (n == 1) {
      byte[] value = entries.get(1);
      f =
          new Frame(
              Frame.T_BACKUP,
              0,
              viewId,
              value == null ? Op.REMOVE.code() : Op.PUT.code(),
              0,
              entries.get(0),
              value,
              null,
              ints,
              List.of(),
              List.of());
    } else {
      f = new Frame(Frame.T_BACKUPS, 0, viewId, 0, 0, null, null, null, ints, List.of(), entries);
    }
    // the frame is encoded by the send, before the list is cleared
    send.accept(f);
    entries.clear();
    queued = 0;
  }
}
