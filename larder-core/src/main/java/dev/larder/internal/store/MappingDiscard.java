package dev.larder.internal.store;

import java.lang.foreign.Arena;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Giving back the memory of a segment's mappings, all at once, after {@code invalidateAll()} or
 * close: a background thread does it, so that the call returns at once, and the segment's next
 * allocation does it itself (or waits for the thread to finish it) before reusing a slot.
 *
 * <p>Implementation notes. Giving back 256 MiB takes the kernel about 55 ms of CPU on the 2-core VM
 * the figures come from (freeing 65,536 pages: {@code zap_pte_range}, page and memory-cgroup
 * accounting; a profile of {@code ./larder bench offheap}'s stall part found nothing else), which
 * with three busy threads on two cores is 110-160 ms of the caller's time. Here it costs the caller
 * a task. The discard runs at most once ({@link #run} is synchronized and remembers that it ran):
 * whichever of the background thread and the allocating writer comes first does it, and the other
 * waits for it on the monitor, so no slot is reused before its old bytes are gone and none is
 * discarded after reuse. Until then a lock-free reader of a page of these mappings reads the old
 * bytes, which its validation rejects (the pages' generations were raised, and the table replaced,
 * before the task was made), exactly as it would have a moment before a synchronous discard.
 *
 * <p>The task holds the segment's arena until it has run: the mappings are unmapped when the arena
 * is cleaned (see {@link MappedPageMemory}), and a discard of an unmapped range could reach memory
 * mapped there since. One daemon thread serves every cache, started when needed and ended after a
 * second idle. Thread-safe.
 */
final class MappingDiscard implements Runnable {

  private static final System.Logger LOG = System.getLogger(MappingDiscard.class.getName());
  private static final ThreadPoolExecutor BACKGROUND = background();

  /** Never read: it keeps the arena reachable until the discard has run. */
  @SuppressWarnings("unused")
  private Arena arena;

  private final long[] addresses;
  private final long[] lengths;
  private boolean done;

  private MappingDiscard(Arena arena, long[] addresses, long[] lengths) {
    this.arena = arena;
    this.addresses = addresses;
    this.lengths = lengths;
  }

  /**
   * Hands the discard of some mappings to the background thread.
   *
   * @param arena the arena whose cleaning unmaps them, held until the discard has run
   * @param addresses the mappings' addresses
   * @param lengths their lengths
   * @return the task, which the caller must {@link #run} before reusing any of the mappings
   */
  static MappingDiscard start(Arena arena, long[] addresses, long[] lengths) {
    MappingDiscard task = new MappingDiscard(arena, addresses, lengths);
    try {
      BACKGROUND.execute(task::runInBackground);
    } catch (RejectedExecutionException e) {
      task.run();
    }
    return task;
  }

  /** Discards the mappings unless that was done already; returns once they are discarded. */
  @Override
  public synchronized void run() {
    if (done) {
      return;
    }
    try {
      for (int i = 0; i < addresses.length; i++) {
        NativeMemory.discard(addresses[i], lengths[i]);
      }
    } finally {
      done = true;
      arena = null;
    }
  }

  /** Returns true once the mappings are discarded; for tests. */
  synchronized boolean isDone() {
    return done;
  }

  private void runInBackground() {
    try {
      run();
    } catch (RuntimeException e) {
      // The memory stays resident, and reusable: nothing is lost but the giving back.
      LOG.log(System.Logger.Level.WARNING, "giving back a cache's page memory failed", e);
    }
  }

  private static ThreadPoolExecutor background() {
    ThreadPoolExecutor executor =
        new ThreadPoolExecutor(
            1,
            1,
            1,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            runnable -> {
              Thread thread = new Thread(runnable, "larder-discard");
              thread.setDaemon(true);
              return thread;
            });
    executor.allowCoreThreadTimeOut(true);
    return executor;
  }
}
