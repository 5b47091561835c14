package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.ADMIN;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * ACL: SETUSER, GETUSER, DELUSER, LIST, USERS, WHOAMI, CAT and GENPASS, over the server's {@link
 * AclUsers}. One command with subcommands, as in Redis; its categories are Redis's for the
 * administrative subcommands (@admin @slow @dangerous), which Larder applies to all of them (its
 * ACL rules have no per-subcommand entries).
 */
final class AclCommands {
  private static final SecureRandom RANDOM = new SecureRandom();

  private AclCommands() {}

  static void register(RespCommandTable t) {
    t.command("acl", -2)
        .flags(ADMIN)
        .doc(
            "server",
            "A container for Access List Control commands.",
            "subcommand:string ?args:string*")
        .run(AclCommands::acl);
  }

  private static void acl(RespCall c) {
    AclUsers users = c.server().acl();
    String sub = c.option(1);
    switch (sub) {
      case "whoami" -> {
        arity(c, 2, 2);
        c.out().bulk(c.session.user.name());
      }
      case "users" -> {
        arity(c, 2, 2);
        List<AclUser> all = users.all();
        c.out().array(all.size());
        all.forEach(u -> c.out().bulk(u.name()));
      }
      case "list" -> {
        arity(c, 2, 2);
        List<AclUser> all = users.all();
        c.out().array(all.size());
        all.forEach(u -> c.out().bulk("user " + u.name() + " " + u.rules().describe()));
      }
      case "setuser" -> {
        arity(c, 3, Integer.MAX_VALUE);
        List<String> rules = new ArrayList<>();
        for (int i = 3; i < c.argc(); i++) {
          rules.add(c.text(i));
        }
        try {
          users.setUser(c.text(2), rules);
        } catch (AclUser.RuleError e) {
          if (e.rule.equals(c.text(2))) {
            throw new RespError("ERR " + e.getMessage());
          }
          throw new RespError(
              "ERR Error in ACL SETUSER modifier '" + e.rule + "': " + e.getMessage());
        }
        c.out().ok();
      }
      case "getuser" -> {
        arity(c, 3, 3);
        getUser(c, users.get(c.text(2)));
      }
      case "deluser" -> {
        arity(c, 3, Integer.MAX_VALUE);
        List<String> names = new ArrayList<>();
        for (int i = 2; i < c.argc(); i++) {
          names.add(c.text(i));
        }
        c.out().integer(users.delete(names));
      }
      case "cat" -> {
        arity(c, 2, 3);
        cat(c, users);
      }
      case "genpass" -> {
        arity(c, 2, 3);
        long bits = c.argc() == 3 ? c.integer(2) : 256;
        if (bits <= 0 || bits > 4096) {
          throw new RespError(
              "ERR ACL GENPASS argument must be the number of bits for the"
                  + " output password, a positive number up to 4096");
        }
        byte[] random = new byte[(int) (bits + 7) / 8];
        RANDOM.nextBytes(random);
        String hex = HexFormat.of().formatHex(random);
        c.out().bulk(hex.substring(0, (int) (bits + 3) / 4));
      }
      case "help" -> RespHelp.reply(c, RespHelp.ACL);
      default -> throw new RespError("ERR unknown subcommand '" + c.text(1) + "'. Try ACL HELP.");
    }
  }

  private static void getUser(RespCall c, AclUser user) {
    RespWriter out = c.out();
    if (user == null) {
      out.nullValue();
      return;
    }
    AclUser.Rules r = user.rules();
    out.map(6);
    out.bulk("flags");
    List<String> flags = new ArrayList<>();
    flags.add(r.on() ? "on" : "off");
    if (r.nopass()) {
      flags.add("nopass");
    }
    out.array(flags.size());
    flags.forEach(out::bulk);
    out.bulk("passwords");
    out.array(r.passwords().size());
    r.passwords().forEach(out::bulk);
    out.bulk("commands");
    out.bulk(String.join(" ", r.commandRules()));
    out.bulk("keys");
    out.bulk(r.keys());
    out.bulk("channels");
    out.bulk(r.channelPatterns().isEmpty() && !r.allChannels() ? "" : r.channels());
    out.bulk("selectors");
    out.array(0);
  }

  private static void cat(RespCall c, AclUsers users) {
    if (c.argc() == 2) {
      c.out().array(AclCategory.ALL.size());
      AclCategory.ALL.forEach(c.out()::bulk);
      return;
    }
    String category = c.option(2);
    if (!AclCategory.ALL.contains(category)) {
      throw new RespError("ERR Unknown category '" + c.text(2) + "'");
    }
    List<String> names = new ArrayList<>();
    users
        .categories()
        .forEach(
            (name, cats) -> {
              if (cats.contains(category)) {
                names.add(name);
              }
            });
    c.out().array(names.size());
    names.forEach(c.out()::bulk);
  }

  private static void arity(RespCall c, int min, int max) {
    if (c.argc() < min || c.argc() > max) {
      throw new RespError(
          "ERR wrong number of arguments for 'acl|"
              + c.option(1).toLowerCase(Locale.ROOT)
              + "' command");
    }
  }
}
