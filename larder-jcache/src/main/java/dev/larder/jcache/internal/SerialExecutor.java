package dev.larder.jcache.internal;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;

/**
 * Runs tasks one at a time, in submission order, on a shared executor: the delivery queue of one
 * asynchronous listener, so that it sees the events of each key in the order they happened.
 *
 * <p>At most one drain task is scheduled at a time ({@code draining}); submit and the drain loop
 * hand over under the queue's monitor, so no task is stranded.
 */
final class SerialExecutor implements Executor {

  private static final System.Logger LOG = System.getLogger(SerialExecutor.class.getName());

  private final Executor executor;
  private final Queue<Runnable> tasks = new ArrayDeque<>();
  private boolean draining;

  SerialExecutor(Executor executor) {
    this.executor = executor;
  }

  @Override
  public void execute(Runnable task) {
    synchronized (tasks) {
      tasks.add(task);
      if (draining) {
        return;
      }
      draining = true;
    }
    executor.execute(this::drain);
  }

  private void drain() {
    while (true) {
      Runnable next;
      synchronized (tasks) {
        next = tasks.poll();
        if (next == null) {
          draining = false;
          return;
        }
      }
      try {
        next.run();
      } catch (RuntimeException | Error e) {
        LOG.log(System.Logger.Level.WARNING, "asynchronous cache entry listener failed", e);
      }
    }
  }
}
