package dev.larder.bench.sessions;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A redis-server child process on 127.0.0.1 for the sessions bench, started and stopped by it.
 * With the log on it runs with {@code appendonly yes} and {@code appendfsync always} (Redis
 * forces its append-only file before answering each write), RDB snapshots off; with the log off,
 * no persistence at all.
 */
final class RedisServer implements AutoCloseable {

  private final Process process;
  private final int port;

  private RedisServer(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /**
   * @return why redis-server cannot run here, or empty if it is on the PATH
   */
  static Optional<String> unavailableReason() {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : path.split(File.pathSeparator)) {
      if (!dir.isEmpty() && new File(dir, "redis-server").canExecute()) {
        return Optional.empty();
      }
    }
    return Optional.of("redis-server is not on the PATH (Debian package redis-server)");
  }

  /**
   * @param directory where its append-only file goes
   * @param logOn appendonly with appendfsync always, or no persistence
   * @return the running server, answering on its port
   * @throws IOException if it does not start within 30 seconds
   * @throws InterruptedException if interrupted while waiting
   */
  static RedisServer start(Path directory, boolean logOn)
      throws IOException, InterruptedException {
    int port = freePort();
    List<String> command = new ArrayList<>(List.of("redis-server", "--port",
        Integer.toString(port), "--bind", "127.0.0.1", "--protected-mode", "no",
        "--daemonize", "no", "--save", "", "--dir", directory.toString()));
    if (logOn) {
      command.addAll(List.of("--appendonly", "yes", "--appendfsync", "always"));
    } else {
      command.addAll(List.of("--appendonly", "no"));
    }
    Process p = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(directory.resolve("redis.log").toFile()).start();
    RedisServer server = new RedisServer(p, port);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
        return server;
      } catch (IOException notYet) {
        if (!p.isAlive() || System.nanoTime() > deadline) {
          server.close();
          throw new IOException("redis-server did not start on port " + port + " (see "
              + directory.resolve("redis.log") + ")");
        }
        Thread.sleep(50);
      }
    }
  }

  /** @return its port on 127.0.0.1 */
  int port() {
    return port;
  }

  @Override
  public void close() {
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

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
