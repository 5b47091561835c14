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
    // Redis reports 0 0 0 for commands whose keys an argument counts (movablekeys).
    boolean movable = cmd.flags().contains(RespCommand.Flag.MOVABLE_KEYS);
    out.integer(movable ? 0 : cmd.firstKey());
    out.integer(movable ? 0 : cmd.lastKey());
    out.integer(movable ? 0 : cmd.step());
    java.util.Set<String> categories = AclCategory.of(cmd);
    out.set(categories.size());
    categories.forEach(c -> out.simple("@" + c));
    out.set(0);
    out.array(0);
    out.array(0);
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
    for (String w : words) {
      argument(out, w);
    }
  }

  private static void argument(RespWriter out, String word) {
    boolean optional = word.startsWith("?");
    boolean multiple = word.endsWith("*");
    String spec = word.substring(optional ? 1 : 0, word.length() - (multiple ? 1 : 0));
    String name = spec.substring(0, spec.indexOf(':'));
    String type = spec.substring(spec.indexOf(':') + 1);
    // Larder's table does not spell out one-of and block arguments; they are shown as strings.
    if (type.equals("oneof") || type.equals("block")) {
      type = "string";
    }
    int fields = 3 + (optional || multiple ? 1 : 0);
    out.map(fields);
    out.bulk("name");
    out.bulk(name);
    out.bulk("type");
    out.bulk(type);
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
}
