package dev.larder.bench.sessions;

import dev.larder.bench.harness.LoopbackChild;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A redis-server child process on 127.0.0.1 for the sessions bench, started and stopped by it. With
 * the log on it runs with {@code appendonly yes} and {@code appendfsync always} (Redis forces its
 * append-only file before answering each write), RDB snapshots off; with the log off, no
 * persistence at all.
 */
final class RedisServer implements AutoCloseable {

  private final Process process;
  private final int port;

  private RedisServer(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Returns why redis-server cannot run here, or empty if it is on the PATH. */
  static Optional<String> unavailableReason() {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : path.split(File.pathSeparator, -1)) {
      if (!dir.isEmpty() && new File(dir, "redis-server").canExecute()) {
        return Optional.empty();
      }
    }
    return Optional.of("redis-server is not on the PATH (Debian package redis-server)");
  }

  /**
   * Returns the running server, answering on its port.
   *
   * @param directory where its append-only file goes
   * @param logOn appendonly with appendfsync always, or no persistence
   * @throws IOException if it does not start within 30 seconds
   * @throws InterruptedException if interrupted while waiting
   */
  static RedisServer start(Path directory, boolean logOn) throws IOException, InterruptedException {
    int port = LoopbackChild.freePort();
    List<String> command =
        new ArrayList<>(
            List.of(
                "redis-server",
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--protected-mode",
                "no",
                "--daemonize",
                "no",
                "--save",
                "",
                "--dir",
                directory.toString()));
    if (logOn) {
      command.addAll(List.of("--appendonly", "yes", "--appendfsync", "always"));
    } else {
      command.addAll(List.of("--appendonly", "no"));
    }
    Process p =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(directory.resolve("redis.log").toFile())
            .start();
    LoopbackChild.awaitPort(p, port, "redis-server (see " + directory.resolve("redis.log") + ")");
    return new RedisServer(p, port);
  }

  /** Returns its port on 127.0.0.1. */
  int port() {
    return port;
  }

  @Override
  public void close() {
    LoopbackChild.stop(process);
  }
}
