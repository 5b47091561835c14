package dev.larder.server.internal.resp;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Redis's ACL command categories and which of them each Larder command belongs to, derived from the
 * command's flags and group as Redis assigns them: {@code @read}/{@code @write} from the data
 * flags, {@code @fast} or else {@code @slow}, {@code @string}, {@code @hash}, {@code @list},
 * {@code @blocking}, {@code @set}, {@code @sortedset}, {@code @keyspace}, {@code @connection},
 * {@code @transaction} from the group, {@code @admin} and {@code @dangerous} for administrative
 * commands and the few Redis also calls dangerous (KEYS, FLUSHDB, FLUSHALL, INFO, SORT); SORT and
 * SORT_RO are in {@code @set}, {@code @sortedset} and {@code @list} instead of {@code @keyspace}.
 *
 * <p>Stateless and thread-safe.
 */
final class AclCategory {
  /** Every category Redis 7 defines, in ACL CAT's order. */
  static final List<String> ALL =
      List.of(
          "keyspace",
          "read",
          "write",
          "set",
          "sortedset",
          "list",
          "hash",
          "string",
          "bitmap",
          "hyperloglog",
          "geo",
          "stream",
          "pubsub",
          "admin",
          "fast",
          "slow",
          "blocking",
          "dangerous",
          "connection",
          "transaction",
          "scripting");

  private static final Set<String> DANGEROUS =
      Set.of("keys", "flushdb", "flushall", "info", "swapdb", "restore", "sort", "sort_ro");

  /** Commands of the generic group that Redis files under the types they read. */
  private static final Set<String> OF_COLLECTIONS = Set.of("sort", "sort_ro");

  private AclCategory() {}

  /**
   * Returns its categories, without the {@code @}.
   *
   * @param cmd a command
   */
  static Set<String> of(RespCommand cmd) {
    Set<String> c = new LinkedHashSet<>();
    String group = cmd.group() == null ? "" : cmd.group();
    switch (group) {
      case "string" -> c.add("string");
      case "hash" -> c.add("hash");
      case "bitmap" -> c.add("bitmap");
      case "list" -> c.add("list");
      case "set" -> c.add("set");
      case "sorted_set" -> c.add("sortedset");
      case "connection" -> c.add("connection");
      case "transactions" -> c.add("transaction");
      case "generic" -> {
        if (OF_COLLECTIONS.contains(cmd.name())) {
          c.addAll(List.of("set", "sortedset", "list"));
        } else {
          c.add(cmd.name().equals("select") ? "connection" : "keyspace");
        }
      }
      default -> {}
    }
    if (cmd.name().equals("command")) {
      c.add("connection");
    }
    if (cmd.flags().contains(RespCommand.Flag.WRITE)) {
      c.add("write");
    }
    if (cmd.flags().contains(RespCommand.Flag.READONLY)) {
      c.add("read");
    }
    if (cmd.flags().contains(RespCommand.Flag.ADMIN)) {
      c.add("admin");
      c.add("dangerous");
    }
    if (cmd.flags().contains(RespCommand.Flag.BLOCKING)) {
      c.add("blocking");
    }
    if (DANGEROUS.contains(cmd.name())) {
      c.add("dangerous");
    }
    c.add(cmd.flags().contains(RespCommand.Flag.FAST) ? "fast" : "slow");
    return c;
  }
}
