package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.FAST;
import static dev.larder.server.internal.resp.RespCommand.Flag.NO_AUTH;
import static dev.larder.server.internal.resp.RespCommand.Flag.NO_MULTI;

import dev.larder.server.internal.ServerState;
import java.nio.charset.StandardCharsets;

/** PING, ECHO, AUTH, HELLO, CLIENT, QUIT and RESET. */
final class ConnectionCommands {
  /**
   * The Redis version Larder reports in HELLO and INFO: the one whose commands and replies it
   * follows, and against which they are checked (Redis 7.0's command set; of 7.2 only CLIENT
   * SETINFO, which clients send whatever the version). Clients choose features by it: Jedis's
   * client-side cache asks for 7.4 (its compatibility mode serves Larder), which Larder does not
   * claim, lacking 7.2's and 7.4's commands.
   */
  static final String REDIS_VERSION = "7.0.15";

  private ConnectionCommands() {}

  static void register(RespCommandTable t) {
    t.command("ping", -1)
        .flags(FAST)
        .doc("connection", "Returns the server's liveliness response.", "?message:string")
        .run(ConnectionCommands::ping);
    t.command("echo", 2)
        .flags(FAST)
        .doc("connection", "Returns the given string.", "message:string")
        .run(c -> c.out().bulk(c.arg(1)));
    t.command("auth", -2)
        .flags(NO_AUTH, FAST, NO_MULTI)
        .doc("connection", "Authenticates the connection.", "?username:string password:string")
        .run(ConnectionCommands::auth);
    t.command("hello", -1)
        .flags(NO_AUTH, FAST, NO_MULTI)
        .doc(
            "connection",
            "Handshakes with the Redis server.",
            "?protover:integer ?auth:block ?clientname:string")
        .run(ConnectionCommands::hello);
    t.command("client", -2)
        .doc(
            "connection",
            "A container for client connection commands.",
            "subcommand:string ?args:string*")
        .run(ConnectionCommands::client);
    t.command("quit", -1)
        .flags(NO_AUTH, FAST)
        .doc("connection", "Closes the connection.", "")
        .run(
            c -> {
              c.session.closeAfterReply = true;
              c.out().ok();
            });
    t.command("reset", 1)
        .flags(NO_AUTH, FAST, NO_MULTI)
        .doc("connection", "Resets the connection.", "")
        .run(
            c -> {
              c.session.reset();
              c.out().simple("RESET");
            });
  }

  private static void ping(RespCall c) {
    if (c.argc() > 2) {
      throw c.arityError();
    }
    if (c.out().protocol() == 2 && c.session.subscriptions() > 0) {
      // A RESP2 subscriber reads every reply as a message: Redis answers an array.
      c.out().array(2);
      c.out().bulk("pong");
      c.out().bulk(c.argc() == 2 ? c.arg(1) : new byte[0]);
    } else if (c.argc() == 2) {
      c.out().bulk(c.arg(1));
    } else {
      c.out().simple("PONG");
    }
  }

  private static void auth(RespCall c) {
    if (c.argc() > 3) {
      throw new RespError(RespError.SYNTAX);
    }
    if (c.argc() == 2) {
      AclUser byDefault = c.server().acl().get(AclUsers.DEFAULT);
      if (byDefault != null && byDefault.rules().nopass()) {
        throw new RespError(
            "ERR AUTH <password> called without any password configured for"
                + " the default user. Are you sure your configuration is correct?");
      }
    }
    authenticate(c, c.argc() == 3 ? c.text(1) : AclUsers.DEFAULT, c.arg(c.argc() - 1));
    c.out().ok();
  }

  /**
   * Authenticates the connection as a user; a failure leaves it as it was (Redis's rule). Passwords
   * are compared as SHA-256 hashes in constant time ({@link AclUser#accepts}).
   */
  private static void authenticate(RespCall c, String user, byte[] password) {
    AclUser u = c.server().acl().authenticate(user, password);
    if (u == null) {
      throw new RespError("WRONGPASS invalid username-password pair or user is disabled.");
    }
    c.session.authenticateAs(u);
  }

  private static void hello(RespCall c) {
    int protocol = c.out().protocol();
    int i = 1;
    if (c.argc() > 1) {
      long v;
      try {
        v = c.integer(1);
      } catch (RespError e) {
        throw new RespError("ERR Protocol version is not an integer or out of range");
      }
      if (v != 2 && v != 3) {
        throw new RespError("NOPROTO unsupported protocol version");
      }
      protocol = (int) v;
      i = 2;
    }
    String name = null;
    for (; i < c.argc(); i++) {
      String o = c.option(i);
      if (o.equals("auth") && i + 2 < c.argc()) {
        authenticate(c, c.text(i + 1), c.arg(i + 2));
        i += 2;
      } else if (o.equals("setname") && i + 1 < c.argc()) {
        name = checkName(c.text(++i));
      } else {
        throw new RespError("ERR Syntax error in HELLO option '" + c.text(i) + "'");
      }
    }
    if (c.session.user == null) {
      throw new RespError(
          "NOAUTH HELLO must be called with the client already authenticated,"
              + " otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate"
              + " the client and select the RESP protocol version at the same time");
    }
    if (name != null) {
      c.session.info.name(name);
    }
    c.session.protocol(protocol);
    RespWriter out = c.out();
    out.map(7);
    out.bulk("server");
    out.bulk("redis");
    out.bulk("version");
    out.bulk(REDIS_VERSION);
    out.bulk("proto");
    out.integer(protocol);
    out.bulk("id");
    out.integer(c.session.info.id());
    out.bulk("mode");
    out.bulk("standalone");
    out.bulk("role");
    out.bulk("master");
    out.bulk("modules");
    out.array(0);
  }

  private static String checkName(String name) {
    for (int i = 0; i < name.length(); i++) {
      if (name.charAt(i) < '!' || name.charAt(i) > '~') {
        throw new RespError(
            "ERR Client names cannot contain spaces, newlines or special characters.");
      }
    }
    return name;
  }

  private static void client(RespCall c) {
    String sub = c.option(1);
    ServerState.ClientInfo me = c.session.info;
    switch (sub) {
      case "setname" -> {
        requireArgs(c, 3);
        me.name(checkName(c.text(2)));
        c.out().ok();
      }
      case "getname" -> {
        requireArgs(c, 2);
        c.out().bulk(me.name().isEmpty() ? null : me.name().getBytes(StandardCharsets.UTF_8));
      }
      case "id" -> {
        requireArgs(c, 2);
        c.out().integer(me.id());
      }
      case "info" -> {
        requireArgs(c, 2);
        c.out().bulk(me.line(System.currentTimeMillis()) + "\n");
      }
      case "list" -> list(c);
      case "setinfo" -> {
        requireArgs(c, 4);
        c.out().ok();
      }
      case "reply" -> {
        requireArgs(c, 3);
        switch (c.option(2)) {
          case "on" -> c.session.replyOff = false;
          case "off" -> c.session.replyOff = true;
          case "skip" -> c.session.skipReply = !c.session.replyOff;
          default -> throw new RespError(RespError.SYNTAX);
        }
        c.out().ok();
      }
      case "unblock" -> unblock(c);
      case "kill" -> ClientKill.kill(c);
      case "pause" -> pause(c);
      case "unpause" -> {
        requireArgs(c, 2);
        c.server().clientPause().unpause();
        c.out().ok();
      }
      case "tracking" -> TrackingCommands.tracking(c);
      case "caching" -> TrackingCommands.caching(c);
      case "getredir" -> {
        requireArgs(c, 2);
        TrackingCommands.getRedirect(c);
      }
      case "trackinginfo" -> {
        requireArgs(c, 2);
        TrackingCommands.trackingInfo(c);
      }
      case "help" -> RespHelp.reply(c, RespHelp.CLIENT);
      default ->
          throw new RespError("ERR unknown subcommand '" + c.text(1) + "'. Try CLIENT HELP.");
    }
  }

  /**
   * CLIENT LIST [TYPE type | ID id ...]: every client's line, those of a type ({@link
   * ClientKill#type}), or those of the given ids (in that order, unknown ones left out); Redis
   * 7.0's errors.
   */
  private static void list(RespCall c) {
    StringBuilder sb = new StringBuilder();
    long now = System.currentTimeMillis();
    if (c.argc() == 4 && c.option(2).equals("type")) {
      String type = ClientKill.type(c.text(3));
      c.server()
          .clients()
          .forEach(
              info -> {
                if (info.type().equals(type)) {
                  sb.append(info.line(now)).append('\n');
                }
              });
    } else if (c.argc() > 3 && c.option(2).equals("id")) {
      java.util.Map<Long, ServerState.ClientInfo> byId = new java.util.HashMap<>();
      c.server().clients().forEach(info -> byId.put(info.id(), info));
      for (int i = 3; i < c.argc(); i++) {
        long id;
        try {
          id = c.integer(i);
        } catch (RespError e) {
          throw new RespError("ERR Invalid client ID");
        }
        ServerState.ClientInfo info = byId.get(id);
        if (info != null) {
          sb.append(info.line(now)).append('\n');
        }
      }
    } else if (c.argc() != 2) {
      throw new RespError(RespError.SYNTAX);
    } else {
      c.server().clients().forEach(info -> sb.append(info.line(now)).append('\n'));
    }
    c.out().bulk(sb.toString());
  }

  /**
   * CLIENT PAUSE timeout [WRITE|ALL]: holds back every command (ALL, the default) or those that
   * write, for timeout milliseconds or until CLIENT UNPAUSE ({@link ClientPause}); Redis 7.0's
   * checks, the mode's first.
   */
  private static void pause(RespCall c) {
    if (c.argc() < 3) {
      throw new RespError("ERR wrong number of arguments for 'client|pause' command");
    }
    if (c.argc() > 4) {
      throw new RespError(
          "ERR unknown subcommand or wrong number of arguments for '"
              + c.text(1)
              + "'. Try CLIENT HELP.");
    }
    ClientPause.Mode mode = ClientPause.Mode.ALL;
    if (c.argc() == 4) {
      mode = ClientPause.mode(c.option(3));
      if (mode == null) {
        throw new RespError("ERR CLIENT PAUSE mode must be WRITE or ALL");
      }
    }
    long timeout;
    try {
      timeout = c.integer(2);
    } catch (RespError e) {
      throw new RespError("ERR timeout is not an integer or out of range");
    }
    if (timeout < 0) {
      throw new RespError("ERR timeout is negative");
    }
    c.server().clientPause().pause(timeout == 0 ? 0 : System.currentTimeMillis() + timeout, mode);
    c.out().ok();
  }

  /**
   * CLIENT UNBLOCK id [TIMEOUT|ERROR]: a client blocked on keys answers now, as if its timeout
   * passed, or with the UNBLOCKED error; 1 if it was blocked, else 0.
   */
  private static void unblock(RespCall c) {
    if (c.argc() < 3) {
      throw new RespError("ERR wrong number of arguments for 'client|unblock' command");
    }
    if (c.argc() > 4) {
      throw new RespError(
          "ERR unknown subcommand or wrong number of arguments for '"
              + c.text(1)
              + "'. Try CLIENT HELP.");
    }
    boolean error =
        c.argc() == 4
            && switch (c.option(3)) {
              case "timeout" -> false;
              case "error" -> true;
              default ->
                  throw new RespError("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
            };
    long id = c.integer(2);
    if (c.server().blockedClients().withdraw(id) instanceof BlockedCall call) {
      call.unblockedByClient(error);
      c.out().integer(1);
    } else {
      c.out().integer(0);
    }
  }

  private static void requireArgs(RespCall c, int n) {
    if (c.argc() != n) {
      throw new RespError("ERR wrong number of arguments for 'client|" + c.option(1) + "' command");
    }
  }
}
