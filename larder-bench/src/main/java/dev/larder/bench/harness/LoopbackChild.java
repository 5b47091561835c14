package dev.larder.bench.harness;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;

/**
 * What the benchmarks need to run a server (redis-server, memcached) as a child process on
 * 127.0.0.1: a free port, a bounded wait until it answers, and a bounded stop. Stateless.
 */
public final class LoopbackChild {

  private LoopbackChild() {}

  /**
   * Returns a port on the loopback address that was free a moment ago.
   *
   * @throws IOException if no port can be bound
   */
  public static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /**
   * Waits until {@code process} accepts connections on 127.0.0.1:{@code port}, at most 30 s; stops
   * it if it does not.
   *
   * @param what the process's name and where its output went, for the error
   * @throws IOException if it exits or does not answer in time
   * @throws InterruptedException if interrupted while waiting
   */
  public static void awaitPort(Process process, int port, String what)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
        return;
      } catch (IOException notYet) {
        if (!process.isAlive() || System.nanoTime() > deadline) {
          stop(process);
          throw new IOException(what + " did not start on port " + port);
        }
        Thread.sleep(50);
      }
    }
  }

  /** Stops {@code process}: SIGTERM, then SIGKILL after 20 s; returns within about 30 s. */
  public static void stop(Process process) {
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
