package dev.larder.server.internal.cluster;

import dev.larder.cluster.ClusteredCache;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.internal.ThreadExecutorMap;
import java.util.concurrent.RejectedExecutionException;

/**
 * Holds the backup copies of an event loop's ASYNC writes until the end of its iteration, so that
 * the writes of every request the loop ran in one wake-up (a pipeline, several ready connections)
 * reach each backup member in one message ({@link ClusteredCache#holdBackups}).
 *
 * <p>Implementation notes. The first put of an iteration that holds schedules one task on the loop
 * that sends what is held: Netty runs the tasks a loop gave itself after the I/O of the same
 * iteration, without a wake-up. A thread that is not an event loop (a worker, a test) does not
 * hold: its copies leave at once, as before.
 *
 * <p>Thread-safe: each loop's state is its own ({@link FastThreadLocal}), used by that loop only.
 */
final class HeldBackups {

  /** Whether this loop holds and has scheduled the send. */
  private static final FastThreadLocal<boolean[]> SCHEDULED =
      new FastThreadLocal<>() {
        @Override
        protected boolean[] initialValue() {
          return new boolean[1];
        }
      };

  private HeldBackups() {}

  /**
   * Makes the calling event loop hold the cache's backup copies until the end of its current
   * iteration (nothing on another thread).
   *
   * @param cache the member's cache
   */
  static void holdForIteration(ClusteredCache<byte[], byte[]> cache) {
    boolean[] scheduled = SCHEDULED.get();
    if (scheduled[0]) {
      return;
    }
    EventExecutor loop = ThreadExecutorMap.currentExecutor();
    if (loop == null || !loop.inEventLoop()) {
      return;
    }
    cache.holdBackups();
    scheduled[0] = true;
    try {
      loop.execute(
          () -> {
            scheduled[0] = false;
            cache.sendHeldBackups();
          });
    } catch (RejectedExecutionException e) {
      // the loop is shutting down: nothing would run the send, so send now and stop holding
      scheduled[0] = false;
      cache.sendHeldBackups();
    }
  }
}
