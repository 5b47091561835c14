package dev.larder.server.internal.resp;

import java.util.ArrayList;
import java.util.List;

/** Writes COMMAND's and COMMAND DOCS's entries from the command table. Stateless. */
final class CommandInfo {
  private CommandInfo() {}

  /** Redis 7's ten-element command info. */
  static void info(RespWriter out, RespCommand cmd) {
    out.array(10);
    out.bulk(cmd.name());
    out.integer(cmd.arity());
    List<String> flags = new ArrayList<>();
    cmd.flags()
        .forEach(
            f -> {
              if (f.redisName() != null) {
                flags.add(f.redisName());
              }
            });
    out.set(flags.size());
    flags.forEach(out::simple);
    // The fixed key range only, as Redis reports it: 0 0 0 for ZUNION, 1 1 1 for ZUNIONSTORE,
    // whose other keys an argument counts (movablekeys).
    out.integer(cmd.firstKey());
    out.integer(cmd.lastKey());
    out.integer(cmd.step());
    java.util.Set<String> categories = AclCategory.of(cmd);
    out.set(categories.size());
    categories.forEach(c -> out.simple("@" + c));
    out.set(0);
    KeySpecs.write(out, cmd.name());
    // Subcommands are not listed (Redis lists a container's, such as CLIENT's, here).
    out.set(0);
  }

  /**
   * COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN pattern]: every command's name,
   * or those of an ACL category, or those matching a glob pattern (any case); Larder has no
   * modules, so FILTERBY MODULE lists none. Redis 7.0's syntax errors.
   */
  static void list(RespCall c) {
    java.util.function.Predicate<RespCommand> keep = cmd -> true;
    for (int i = 2; i < c.argc(); i += 3) {
      if (!c.option(i).equals("filterby") || c.argc() - 1 - i != 2) {
        throw new RespError(RespError.SYNTAX);
      }
      String arg = c.text(i + 2);
      keep =
          switch (c.option(i + 1)) {
            case "module" -> cmd -> false;
            case "aclcat" ->
                cmd -> AclCategory.of(cmd).contains(arg.toLowerCase(java.util.Locale.ROOT));
            case "pattern" -> {
              dev.larder.server.internal.keyspace.GlobPattern glob =
                  new dev.larder.server.internal.keyspace.GlobPattern(c.arg(i + 2));
              yield cmd ->
                  glob.matches(cmd.name().getBytes(java.nio.charset.StandardCharsets.UTF_8), true);
            }
            default -> throw new RespError(RespError.SYNTAX);
          };
    }
    List<RespCommand> names = new ArrayList<>();
    for (RespCommand cmd : c.session.table.all()) {
      if (keep.test(cmd)) {
        names.add(cmd);
      }
    }
    c.out().array(names.size());
    names.forEach(cmd -> c.out().bulk(cmd.name()));
  }

  /** A COMMAND DOCS entry: the name, then a map of summary, since, group and arguments. */
  static void docs(RespWriter out, RespCommand cmd) {
    out.bulk(cmd.name());
    out.map(5);
    out.bulk("summary");
    out.bulk(cmd.summary());
    out.bulk("since");
    out.bulk("1.0.0");
    out.bulk("group");
    out.bulk(cmd.group());
    out.bulk("complexity");
    out.bulk(cmd.flags().contains(RespCommand.Flag.FAST) ? "O(1)" : "O(N)");
    out.bulk("arguments");
    String[] words = cmd.arguments().isBlank() ? new String[0] : cmd.arguments().split(" ");
    out.array(words.length);
    int specs = KeySpecs.of(cmd.name()).size();
    int keyArguments = 0;
    for (String w : words) {
      keyArguments += isKey(w) ? 1 : 0;
    }
    int keys = 0;
    for (String w : words) {
      int keySpec = -1;
      if (specs > 0 && isKey(w)) {
        // As Redis declares them: the n-th key argument is found by the n-th specification, and
        // the last of several by the last (SORT's STORE destination, after BY and GET's patterns).
        keySpec = keys > 0 && keys == keyArguments - 1 ? specs - 1 : Math.min(keys, specs - 1);
        keys++;
      }
      argument(out, w, keySpec);
    }
  }

  private static boolean isKey(String word) {
    return word.endsWith(":key") || word.endsWith(":key*");
  }

  private static void argument(RespWriter out, String word, int keySpec) {
    boolean optional = word.startsWith("?");
    boolean multiple = word.endsWith("*");
    String spec = word.substring(optional ? 1 : 0, word.length() - (multiple ? 1 : 0));
    String name = spec.substring(0, spec.indexOf(':'));
    String type = spec.substring(spec.indexOf(':') + 1);
    // Larder's table does not spell out one-of and block arguments; they are shown as strings.
    if (type.equals("oneof") || type.equals("block")) {
      type = "string";
    }
    int fields = 3 + (optional || multiple ? 1 : 0) + (keySpec >= 0 ? 1 : 0);
    out.map(fields);
    out.bulk("name");
    out.bulk(name);
    out.bulk("type");
    out.bulk(type);
    if (keySpec >= 0) {
      out.bulk("key_spec_index");
      out.integer(keySpec);
    }
    out.bulk("display_text");
    out.bulk(name);
    if (optional || multiple) {
      out.bulk("flags");
      out.set((optional ? 1 : 0) + (multiple ? 1 : 0));
      if (optional) {
        out.simple("optional");
      }
      if (multiple) {
        out.simple("multiple");
      }
    }
  }

  /**
   * COMMAND GETKEYS, and with {@code withFlags} COMMAND GETKEYSANDFLAGS: the keys of the request
   * that follows, as ACL and cluster checks find them, with Redis 7.0's errors (and each key's
   * flags, {@link KeySpecFlags}); counted keys that the request does not hold (a numkeys too large,
   * or not a positive number) are Redis's "Invalid arguments".
   */
  static void getKeys(RespCall c, boolean withFlags) {
    if (c.argc() < 4) {
      throw new RespError(
          "ERR wrong number of arguments for 'command|"
              + (withFlags ? "getkeysandflags" : "getkeys")
              + "' command");
    }
    RespCommand cmd = c.session.table.get(c.text(2));
    if (cmd == null) {
      throw new RespError("ERR Invalid command specified");
    }
    if (!cmd.hasKeys()) {
      throw new RespError("ERR The command has no key arguments");
    }
    java.util.List<byte[]> args = c.argsFrom(2);
    if (!cmd.arityAccepts(args.size())) {
      throw new RespError("ERR Invalid number of arguments specified for command");
    }
    if (!countedKeysPresent(cmd, args)) {
      throw new RespError("ERR Invalid arguments specified for command");
    }
    java.util.List<byte[]> keys = new java.util.ArrayList<>();
    for (int i = cmd.firstKeyIn(), last = cmd.lastKeyIn(args);
        i <= last;
        i = cmd.nextKeyAfter(i, args)) {
      keys.add(args.get(i));
    }
    if (keys.isEmpty()) {
      throw new RespError("ERR Invalid arguments specified for command");
    }
    RespWriter out = c.out();
    out.array(keys.size());
    for (int k = 0; k < keys.size(); k++) {
      if (!withFlags) {
        out.bulk(keys.get(k));
        continue;
      }
      java.util.List<String> flags = KeySpecFlags.of(cmd.name(), k == 0, args);
      if (flags == null) {
        flags = java.util.List.of();
      }
      out.array(2);
      out.bulk(keys.get(k));
      out.set(flags.size());
      flags.forEach(out::simple);
    }
  }

  /** Whether a request holds as many keys as its numkeys says (true without a numkeys). */
  private static boolean countedKeysPresent(RespCommand cmd, java.util.List<byte[]> args) {
    int at = cmd.numkeysAt();
    if (at <= 0) {
      return true;
    }
    try {
      long n = RespCall.parseLong(args.get(at));
      return n > 0 && n <= args.size() - 1 - at;
    } catch (RespError e) {
      return false;
    }
  }
}
