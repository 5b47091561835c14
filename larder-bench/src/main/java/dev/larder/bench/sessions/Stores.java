package dev.larder.bench.sessions;

import dev.larder.server.LarderServer;
import dev.larder.server.ServerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** The session stores the bench compares, by name. */
final class Stores {

  private Stores() {}

  /**
   * A store and what must be stopped after it (a redis-server).
   *
   * @param store the store
   * @param server the child process to stop after the store, or null
   */
  record Opened(SessionStore store, AutoCloseable server) implements AutoCloseable {
    /** Stops the server, if any (the endpoint closes the store). */
    @Override
    public void close() {
      if (server != null) {
        try {
          server.close();
        } catch (Exception e) {
          throw new IllegalStateException("could not stop " + server, e);
        }
      }
    }
  }

  /**
   * Returns the open store.
   *
   * @param kind {@code larder-always}, {@code larder-off} (an entry per object), {@code
   *     larder-session-always}, {@code larder-session-off} (an entry per session), {@code
   *     larder-server-always} (Larder's server with {@code --dir} and {@code appendfsync always},
   *     through the same Redis client as Redis), {@code redis-always} or {@code redis-off}
   * @param directory a directory for the log or the append-only file
   * @param connections the most concurrent requests
   * @throws Exception if it cannot be opened
   */
  static Opened open(String kind, Path directory, int connections) throws Exception {
    return switch (kind) {
      case "larder-always" -> new Opened(new LarderSessions(directory, false), null);
      case "larder-off" -> new Opened(new LarderSessions(null, false), null);
      case "larder-session-always" -> new Opened(new LarderSessions(directory, true), null);
      case "larder-session-off" -> new Opened(new LarderSessions(null, true), null);
      case "larder-server-always" -> {
        LarderServer server =
            LarderServer.start(
                ServerConfig.of(
                    Map.of(
                        "resp-port",
                        "0",
                        "memcache-port",
                        "-1",
                        "http-port",
                        "-1",
                        "dir",
                        Files.createDirectories(directory.resolve("server")).toString(),
                        "appendfsync",
                        "always",
                        "maxmemory",
                        "1gb",
                        "idle-timeout-seconds",
                        "0")));
        yield new Opened(new RedisSessions(server.respPort(), connections), server);
      }
      case "redis-always", "redis-off" -> {
        String reason = RedisServer.unavailableReason().orElse(null);
        if (reason != null) {
          throw new IllegalStateException(reason);
        }
        RedisServer server = RedisServer.start(directory, kind.equals("redis-always"));
        yield new Opened(new RedisSessions(server.port(), connections), server);
      }
      default ->
          throw new IllegalArgumentException(
              "unknown session store "
                  + kind
                  + " (larder-always, larder-off, larder-session-always, larder-session-off,"
                  + " larder-server-always, redis-always, redis-off)");
    };
  }
}
