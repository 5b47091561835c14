package dev.larder.bench.scenarios;

import java.util.ArrayList;
import java.util.List;

/**
 * Threads that keep the CPUs busy with work unrelated to the cache, as other parts of an
 * application would: each spins on a counter until closed. A stop-the-world pause or handshake has
 * to wait for them to reach a safepoint, and on a machine with fewer cores than runnable threads
 * the thread that asked for it has to win a core back first. Not thread-safe: one owner starts and
 * closes them.
 */
final class Spinners implements AutoCloseable {

  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean stop;

  /** Sum of the spinners' counts, published so that the JIT keeps the loops. */
  @SuppressWarnings("UnusedVariable") // written, never read: the write is what keeps the loops
  private volatile long spins;

  /**
   * @param count the threads to start
   */
  Spinners(int count) {
    for (int i = 0; i < count; i++) {
      threads.add(Thread.ofPlatform().daemon().name("spinner-" + i).start(this::spin));
    }
  }

  private void spin() {
    long n = 0;
    while (!stop) {
      n++;
    }
    synchronized (this) {
      spins += n;
    }
  }

  @Override
  public void close() {
    stop = true;
    boolean interrupted = false;
    for (Thread thread : threads) {
      while (thread.isAlive()) {
        try {
          thread.join();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
