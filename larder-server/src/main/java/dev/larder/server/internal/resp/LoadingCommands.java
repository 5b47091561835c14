package dev.larder.server.internal.resp;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What a durable server answers while it loads its keyspace: Redis 7.0's rule. A command runs only
 * if Redis 7.0 flags it {@code loading} (COMMAND INFO lists the flag; the commands that touch no
 * data: connection, pub/sub, transaction bookkeeping, INFO, CONFIG, CLIENT, ACL, COMMAND); every
 * other, PING included, is answered {@link #ERROR}. So a client's first PONG means the data is
 * back, as with Redis.
 *
 * <p>Containers whose subcommands Redis flags one by one (CLUSTER, MEMORY, OBJECT) are let through
 * for HELP only; an unknown subcommand of theirs is answered {@link #ERROR} here where Redis names
 * it unknown. Two refusals are Larder's own. One is {@code CONFIG SET maxmemory}, which would evict
 * from a keyspace the loading threads are still filling (and evictions during a load are not
 * logged). The other is WATCH, which Redis lets through: the version it would note is a half-loaded
 * one (the key's version changes as the load puts it, so every later EXEC would fail), and a
 * cluster member that has not joined yet cannot read the key at all. Refused, the client learns at
 * once that the server is not ready, as from the GET that usually follows.
 *
 * <p>Stateless; thread-safe.
 */
final class LoadingCommands {
  /** Redis's reply while it loads, word for word. */
  static final String ERROR = "LOADING Redis is loading the dataset in memory";

  /** Redis 7.0.15's commands (and container|subcommand pairs) with the {@code loading} flag. */
  private static final Set<String> ALLOWED =
      Set.of(
          "acl",
          "auth",
          "client",
          "cluster|help",
          "command",
          "config",
          "discard",
          "echo",
          "exec",
          "hello",
          "info",
          "lastsave",
          "memory|help",
          "multi",
          "object|help",
          "psubscribe",
          "publish",
          "pubsub",
          "punsubscribe",
          "quit",
          "readonly",
          "readwrite",
          "reset",
          "role",
          "select",
          "subscribe",
          "time",
          "unsubscribe",
          "unwatch");

  private LoadingCommands() {}

  /**
   * Returns whether a command may run while the keyspace loads.
   *
   * @param name the command's lower-case name
   * @param args the request's words, the name included
   */
  static boolean allowed(String name, List<byte[]> args) {
    if (ALLOWED.contains(name)) {
      return !(name.equals("config") && setsMaxMemory(args));
    }
    return args.size() > 1 && ALLOWED.contains(name + "|" + word(args.get(1)));
  }

  /** Returns whether a CONFIG request is a SET naming maxmemory among its parameters. */
  private static boolean setsMaxMemory(List<byte[]> args) {
    if (args.size() < 2 || !word(args.get(1)).equals("set")) {
      return false;
    }
    for (int i = 2; i < args.size(); i += 2) {
      if (word(args.get(i)).equals("maxmemory")) {
        return true;
      }
    }
    return false;
  }

  private static String word(byte[] b) {
    return new String(b, StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
  }

  /** Returns the allowed names, {@code container|subcommand} for a container's one subcommand. */
  static Set<String> names() {
    return ALLOWED;
  }
}
