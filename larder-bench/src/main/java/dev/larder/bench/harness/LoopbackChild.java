package dev.larder.bench.harness;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * What the benchmarks need to run a server (redis-server, memcached) as a child process on
 * 127.0.0.1: a free port, a bounded wait until it answers, and a bounded stop. Stateless.
 */
public final class LoopbackChild {

  private LoopbackChild() {}

  /**
   * Returns a port on the loopback address that was free a moment ago, chosen below the system's
   * ephemeral range. A trial that kills a server and starts it again on the same port needs a port
   * that no outgoing connection can be handed meanwhile: a port from the ephemeral range (what
   * binding to port 0 gives) can become the local end of any client's connection while the server
   * is down, and the restart then fails with "address in use" (seen after 96 of 100 kills of a
   * clustered server, under load).
   *
   * @throws IOException if no port can be bound after a bounded number of tries
   */
  public static int freePort() throws IOException {
    return freePortWith(0);
  }

  /**
   * Returns a port p on the loopback address that was free a moment ago, chosen as {@link
   * #freePort} chooses one, whose port p + {@code offset} was free too: what a clustered Larder
   * server with {@code cluster-transactions on} needs for its cluster port, since its transactional
   * store's channel binds the port 1000 above it.
   *
   * @param offset 0 (one port) to 10,000
   * @throws IOException if no such pair can be bound after a bounded number of tries
   */
  public static int freePortWith(int offset) throws IOException {
    if (offset < 0 || offset > 10_000) {
      throw new IllegalArgumentException("offset must be in 0..10000, was " + offset);
    }
    int ceiling = Math.min(ephemeralFloor(), 65_536) - offset;
    int floor = Math.max(1_024, ceiling - 12_000);
    IOException last = null;
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(floor, ceiling);
      try {
        bind(port);
        if (offset > 0) {
          bind(port + offset);
        }
        return port;
      } catch (IOException taken) {
        last = taken;
      }
    }
    throw new IOException(
        "no free loopback port between "
            + floor
            + " and "
            + (ceiling - 1)
            + (offset == 0 ? "" : " with a free port " + offset + " above it")
            + " in 200 tries",
        last);
  }

  /** Binds {@code port} on the loopback address and releases it at once. */
  private static void bind(int port) throws IOException {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
    }
  }

  /**
   * The lowest port the kernel hands to outgoing connections: the first field of Linux's {@code
   * /proc/sys/net/ipv4/ip_local_port_range}, else 32,768 (Linux's default and below the IANA
   * dynamic range other systems use).
   */
  static int ephemeralFloor() {
    Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    try {
      String[] fields = Files.readString(range).trim().split("\\s+", -1);
      int floor = Integer.parseInt(fields[0]);
      return floor > 2_048 ? floor : 32_768;
    } catch (IOException | RuntimeException unreadable) {
      return 32_768;
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

  /**
   * Waits until {@code process} answers PING on its RESP port with PONG, at most 30 s; stops it if
   * it does not. A durable server (Larder's or Redis's) accepts connections while it loads its
   * files and answers {@code -LOADING} until they are in.
   *
   * @param what the process's name and where its output went, for the error
   * @throws IOException if it exits or does not answer in time
   * @throws InterruptedException if interrupted while waiting
   */
  public static void awaitPong(Process process, int respPort, String what)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), respPort), 1000);
        s.setSoTimeout(5000);
        s.getOutputStream().write("PING\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        byte[] reply = s.getInputStream().readNBytes(7);
        if (new String(reply, java.nio.charset.StandardCharsets.US_ASCII).equals("+PONG\r\n")) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet, or closed on us
      }
      if (!process.isAlive() || System.nanoTime() > deadline) {
        stop(process);
        throw new IOException(what + " did not answer PING on port " + respPort);
      }
      Thread.sleep(50);
    }
  }

  /**
   * Waits until {@code process} answers memcached's {@code version} on {@code port}, at most 30 s;
   * stops it if it does not. An answer, not just a connection: a port taken between found free and
   * bound would otherwise accept the connection for a process that failed to bind it.
   *
   * @param what the process's name, for the error
   * @throws IOException if it exits or does not answer in time
   * @throws InterruptedException if interrupted while waiting
   */
  public static void awaitMemcached(Process process, int port, String what)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
        s.setSoTimeout(5000);
        s.getOutputStream().write("version\r\n".getBytes(StandardCharsets.US_ASCII));
        byte[] reply = s.getInputStream().readNBytes(8);
        if (new String(reply, StandardCharsets.US_ASCII).equals("VERSION ")) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet, or closed on us
      }
      if (!process.isAlive() || System.nanoTime() > deadline) {
        stop(process);
        throw new IOException(what + " did not answer version on port " + port);
      }
      Thread.sleep(50);
    }
  }

  /**
   * Returns the last 1,500 characters of a child's output file, or why it could not be read: what a
   * failure to start quotes, so that the log of a run explains it.
   */
  public static String tail(Path file) {
    try {
      String s = Files.readString(file, StandardCharsets.UTF_8).strip();
      return s.isEmpty() ? "(nothing)" : s.substring(Math.max(0, s.length() - 1500));
    } catch (IOException | java.io.UncheckedIOException e) {
      return "(unreadable: " + e.getMessage() + ")";
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
