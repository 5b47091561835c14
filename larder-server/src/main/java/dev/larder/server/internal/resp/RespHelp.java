package dev.larder.server.internal.resp;

import java.util.List;
import java.util.Locale;

/**
 * The HELP subcommand of commands with subcommands (CLIENT, CONFIG, ACL, COMMAND, OBJECT, MEMORY,
 * CLUSTER, PUBSUB), in Redis's form: an array of status lines, a heading naming the command, the
 * subcommands Larder implements with Redis's wording (a usage line, then indented description
 * lines), and HELP last. Subcommands Larder lacks are not listed.
 *
 * <p>Stateless and thread-safe.
 */
final class RespHelp {
  static final List<String> CLIENT =
      List.of(
          "CACHING (YES|NO)",
          "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
          "GETREDIR",
          "    Return the client ID we are redirecting to when tracking is enabled.",
          "GETNAME",
          "    Return the name of the current connection.",
          "ID",
          "    Return the ID of the current connection.",
          "INFO",
          "    Return information about the current client connection.",
          "KILL <ip:port>",
          "    Kill connection made from <ip:port>.",
          "KILL <option> <value> [<option> <value> [...]]",
          "    Kill connections. Options are:",
          "    * ADDR (<ip:port>|<unixsocket>:0)",
          "      Kill connections made from the specified address",
          "    * LADDR (<ip:port>|<unixsocket>:0)",
          "      Kill connections made to specified local address",
          "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
          "      Kill connections by type.",
          "    * USER <username>",
          "      Kill connections authenticated by <username>.",
          "    * SKIPME (YES|NO)",
          "      Skip killing current connection (default: yes).",
          "LIST [options ...]",
          "    Return information about client connections. Options:",
          "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
          "      Return clients of specified type.",
          "UNPAUSE",
          "    Stop the current client pause, resuming traffic.",
          "PAUSE <timeout> [WRITE|ALL]",
          "    Suspend all, or just write, clients for <timeout> milliseconds.",
          "REPLY (ON|OFF|SKIP)",
          "    Control the replies sent to the current connection.",
          "SETINFO <option> <value>",
          "    Set client meta attr. Options are:",
          "    * LIB-NAME: the client lib name.",
          "    * LIB-VER: the client lib version.",
          "SETNAME <name>",
          "    Assign the name <name> to the current connection.",
          "UNBLOCK <clientid> [TIMEOUT|ERROR]",
          "    Unblock the specified blocked client.",
          "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
          "         [OPTIN] [OPTOUT] [NOLOOP]",
          "    Control server assisted client side caching.",
          "TRACKINGINFO",
          "    Report tracking status for the current connection.");
  static final List<String> PUBSUB =
      List.of(
          "CHANNELS [<pattern>]",
          "    Return the currently active channels matching a <pattern> (default: '*').",
          "NUMPAT",
          "    Return number of subscriptions to patterns.",
          "NUMSUB [<channel> ...]",
          "    Return the number of subscribers for the specified channels, excluding",
          "    pattern subscriptions(default: no channels).");
  static final List<String> CONFIG =
      List.of(
          "GET <pattern>",
          "    Return parameters matching the glob-like <pattern> and their values.",
          "SET <directive> <value>",
          "    Set the configuration <directive> to <value>.",
          "RESETSTAT",
          "    Reset statistics reported by the INFO command.");
  static final List<String> OBJECT =
      List.of(
          "ENCODING <key>",
          "    Return the kind of internal representation used in order to store the value",
          "    associated with a <key>.",
          "FREQ <key>",
          "    Return the access frequency index of the <key>. The returned integer is",
          "    proportional to the logarithm of the recent access frequency of the key.",
          "IDLETIME <key>",
          "    Return the idle time of the <key>, that is the approximated number of",
          "    seconds elapsed since the last access to the key.",
          "REFCOUNT <key>",
          "    Return the number of references of the value associated with the specified",
          "    <key>.");
  static final List<String> MEMORY =
      List.of(
          "USAGE <key> [SAMPLES <count>]",
          "    Return memory in bytes used by <key> and its value. Nested values are",
          "    sampled up to <count> times (default: 5, 0 means sample all).");
  static final List<String> CLUSTER =
      List.of(
          "ABANDON-WAITING",
          "    Larder: start empty, on every member, the segments that wait for members",
          "    holding their newest record (see WAITING); what only those records held is",
          "    lost. Returns the number of segments given up.",
          "COUNTKEYSINSLOT <slot>",
          "    Return the number of keys in <slot>.",
          "GETKEYSINSLOT <slot> <count>",
          "    Return key names stored by current node in a slot.",
          "INFO",
          "    Return information about the cluster.",
          "KEYSLOT <key>",
          "    Return the hash slot for <key>.",
          "MYID",
          "    Return the node id.",
          "MYSHARDID",
          "    Return the node's shard id.",
          "NODES",
          "    Return cluster configuration seen by node. Output format:",
          "    <id> <ip:port> <flags> <master> <pings> <pongs> <epoch> <link> <slot> ...",
          "SLOTS",
          "    Return information about slots range mappings. Each range is made of:",
          "    start, end, master and replicas IP addresses, ports and ids",
          "SHARDS",
          "    Return information about slot range mappings and the nodes associated with them.",
          "WAITING",
          "    Larder: return how many segments this member waits for, because every member",
          "    holding their newest record left; their keys are refused until one returns.");
  static final List<String> ACL =
      List.of(
          "CAT [<category>]",
          "    List all commands that belong to <category>, or all command categories",
          "    when no category is specified.",
          "DELUSER <username> [<username> ...]",
          "    Delete a list of users.",
          "GETUSER <username>",
          "    Get the user's details.",
          "GENPASS [<bits>]",
          "    Generate a secure 256-bit user password. The optional `bits` argument can",
          "    be used to specify a different size.",
          "LIST",
          "    Show users details in config file format.",
          "SETUSER <username> <attribute> [<attribute> ...]",
          "    Create or modify a user with the specified attributes.",
          "USERS",
          "    List all the registered usernames.",
          "WHOAMI",
          "    Return the current connection username.");
  static final List<String> COMMAND =
      List.of(
          "(no subcommand)",
          "    Return details about all Redis commands.",
          "COUNT",
          "    Return the total number of commands in this Redis server.",
          "LIST",
          "    Return a list of all commands in this Redis server.",
          "INFO [<command-name> ...]",
          "    Return details about multiple Redis commands.",
          "    If no command names are given, documentation details for all",
          "    commands are returned.",
          "DOCS [<command-name> ...]",
          "    Return documentation details about multiple Redis commands.",
          "    If no command names are given, documentation details for all",
          "    commands are returned.",
          "GETKEYS <full-command>",
          "    Return the keys from a full Redis command.",
          "GETKEYSANDFLAGS <full-command>",
          "    Return the keys and the access flags from a full Redis command.");

  private RespHelp() {}

  /**
   * Answers {@code <command> HELP}; with arguments after HELP, Redis's arity error.
   *
   * @param c the call, whose first argument is the command and second HELP
   * @param lines the subcommand lines
   */
  static void reply(RespCall c, List<String> lines) {
    String command = c.text(0).toUpperCase(Locale.ROOT);
    if (c.argc() != 2) {
      throw new RespError(
          "ERR wrong number of arguments for '"
              + command.toLowerCase(Locale.ROOT)
              + "|help' command");
    }
    RespWriter out = c.out();
    out.array(lines.size() + 3);
    out.simple(command + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
    lines.forEach(out::simple);
    out.simple("HELP");
    out.simple("    Prints this help.");
  }
}
