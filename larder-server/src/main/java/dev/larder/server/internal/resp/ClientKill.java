package dev.larder.server.internal.resp;

import dev.larder.server.internal.ServerState;
import java.util.ArrayList;
import java.util.List;

/**
 * CLIENT KILL as Redis 7.0 serves it: the old form {@code CLIENT KILL ip:port} (answers OK, or
 * {@code No such client}; may kill the caller), and filters {@code ID}, {@code ADDR}, {@code
 * LADDR}, {@code USER}, {@code TYPE} (normal, pubsub, master, replica or slave) and {@code SKIPME}
 * (yes by default), which must all match, answering the number killed. A killed connection is
 * closed at once, its unsent replies dropped; the caller, if it kills itself, is closed after this
 * reply. Larder has no replicas or masters, so those types match no client. Redis 7.0's errors and
 * their order. Stateless.
 */
final class ClientKill {
  private ClientKill() {}

  /**
   * What a kill matches; null fields match every client.
   *
   * @param addr the peer's {@code ip:port}
   * @param laddr the local {@code ip:port}
   * @param type a client type name of {@link #type}
   * @param id the client id, 0 for any
   * @param user an ACL user name
   * @param skipMe whether the caller is spared
   */
  private record Filter(
      String addr, String laddr, String type, long id, String user, boolean skipMe) {
    boolean matches(ServerState.ClientInfo info, ServerState.ClientInfo me) {
      return (addr == null || addr.equals(info.address()))
          && (laddr == null || laddr.equals(info.localAddress()))
          && (type == null || type.equals(info.type()))
          && (id == 0 || id == info.id())
          && (user == null || user.equals(info.user()))
          && !(skipMe && info.id() == me.id());
    }
  }

  static void kill(RespCall c) {
    if (c.argc() < 3) {
      throw new RespError("ERR wrong number of arguments for 'client|kill' command");
    }
    boolean oldForm = c.argc() == 3;
    Filter filter = oldForm ? new Filter(c.text(2), null, null, 0, null, false) : parse(c);
    ServerState.ClientInfo me = c.session.info;
    List<ServerState.ClientInfo> killed = new ArrayList<>();
    c.server()
        .clients()
        .forEach(
            info -> {
              if (!info.killed() && filter.matches(info, me)) {
                killed.add(info);
              }
            });
    for (ServerState.ClientInfo info : killed) {
      if (info.id() == me.id()) {
        c.session.closeAfterReply = true;
      } else {
        info.kill();
      }
    }
    if (!oldForm) {
      c.out().integer(killed.size());
    } else if (killed.isEmpty()) {
      throw new RespError("ERR No such client");
    } else {
      c.out().ok();
    }
  }

  private static Filter parse(RespCall c) {
    String addr = null;
    String laddr = null;
    String type = null;
    long id = 0;
    String user = null;
    boolean skipMe = true;
    for (int i = 2; i < c.argc(); i += 2) {
      boolean more = c.argc() > i + 1;
      String option = c.option(i);
      if (!more) {
        throw new RespError(RespError.SYNTAX);
      }
      switch (option) {
        case "id" -> id = clientId(c, i + 1);
        case "type" -> type = type(c.text(i + 1));
        case "addr" -> addr = c.text(i + 1);
        case "laddr" -> laddr = c.text(i + 1);
        case "user" -> {
          user = c.text(i + 1);
          if (c.server().acl().get(user) == null) {
            throw new RespError("ERR No such user '" + user + "'");
          }
        }
        case "skipme" ->
            skipMe =
                switch (c.option(i + 1)) {
                  case "yes" -> true;
                  case "no" -> false;
                  default -> throw new RespError(RespError.SYNTAX);
                };
        default -> throw new RespError(RespError.SYNTAX);
      }
    }
    return new Filter(addr, laddr, type, id, user, skipMe);
  }

  private static long clientId(RespCall c, int at) {
    long id;
    try {
      id = c.integer(at);
    } catch (RespError e) {
      id = 0;
    }
    if (id < 1) {
      throw new RespError("ERR client-id should be greater than 0");
    }
    return id;
  }

  /**
   * Returns the type a name of Redis's (any case) stands for: {@code normal}, {@code pubsub}, or
   * {@code master} and {@code slave} (also named {@code replica}), which no Larder client is.
   *
   * @throws RespError Redis's error for another name
   */
  static String type(String name) {
    return switch (name.toLowerCase(java.util.Locale.ROOT)) {
      case "normal" -> "normal";
      case "pubsub" -> "pubsub";
      case "master" -> "master";
      case "slave", "replica" -> "slave";
      default -> throw new RespError("ERR Unknown client type '" + name + "'");
    };
  }
}
