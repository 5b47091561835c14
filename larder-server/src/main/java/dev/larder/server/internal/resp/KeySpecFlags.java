package dev.larder.server.internal.resp;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The key flags COMMAND GETKEYSANDFLAGS reports for each key of a request, as Redis 7.0 declares
 * them in its commands' key specifications ({@code RO}, {@code RW}, {@code OW}, {@code RM}, then
 * {@code access}, {@code update}, {@code insert}, {@code delete}, {@code variable_flags}, in that
 * order). A command has one flag set per key specification; the first key of a request gets the
 * first set and every later key the last, which is how Redis assigns them for every command Larder
 * serves (LMOVE's source and destination, SINTERSTORE's destination and sources, SORT's key and
 * STORE destination). OBJECT and MEMORY stand for their subcommands, whose key is read only. SET
 * and BITFIELD, whose flags depend on their options, get them as Redis's own key search gives them:
 * SET is {@code RW access update} with GET, else {@code OW update}; BITFIELD is {@code RO access}
 * when it only reads (GET and OVERFLOW), else {@code RW access update}.
 *
 * <p>Declared here, in one table, rather than on each command: the flags matter only to this reply,
 * and {@code KeySpecFlagsTest} checks that every command with keys has an entry.
 *
 * <p>Stateless and thread-safe.
 */
final class KeySpecFlags {
  /** Pairs of flag sets (one per key specification, separated by {@code /}) and command names. */
  private static final List<String> TABLE =
      List.of(
          "RO access",
          "bitcount bitfield_ro bitpos dump expiretime get getbit getrange hget hgetall hkeys hmget hrandfield hscan hvals lcs lindex lpos lrange mget pexpiretime pttl sdiff sinter sintercard smembers smismember srandmember sscan substr sunion ttl zcount zdiff zinter zintercard zlexcount zmscore zrandmember zrange zrangebylex zrangebyscore zrank zrevrange zrevrangebylex zrevrangebyscore zrevrank zscan zscore zunion",
          "RW access delete",
          "blmpop blpop brpop bzmpop bzpopmax bzpopmin getdel lmpop lpop rpop spop zmpop zpopmax zpopmin",
          "RW access update",
          "decr decrby getex getset hincrby hincrbyfloat incr incrby incrbyfloat move setbit zincrby",
          "RO",
          "exists hexists hlen hstrlen llen memory object scard sismember strlen type watch zcard",
          "RW update",
          "expire expireat hmset hset lset persist pexpire pexpireat setrange zadd",
          "RW insert",
          "append hsetnx linsert lpush lpushx rpush rpushx sadd",
          "RW delete",
          "hdel lrem ltrim srem zrem zremrangebylex zremrangebyrank zremrangebyscore",
          "OW update / RO access",
          "bitop sdiffstore sunionstore zdiffstore zinterstore zrangestore zunionstore",
          "RW access delete / RW insert",
          "blmove brpoplpush lmove rpoplpush smove",
          "OW update",
          "mset psetex restore setex",
          "RM delete",
          "del unlink",
          "OW insert",
          "msetnx setnx",
          "RO access / OW update",
          "copy",
          "RW access delete / OW update",
          "rename",
          "RW access delete / OW insert",
          "renamenx",
          "RW update / RO access",
          "sinterstore",
          "RO access / RO access / OW update",
          "sort",
          "RO access / RO access",
          "sort_ro");

  private static final Map<String, List<List<String>>> BY_COMMAND = build();

  private KeySpecFlags() {}

  private static Map<String, List<List<String>>> build() {
    Map<String, List<List<String>>> byCommand = new HashMap<>();
    for (int i = 0; i < TABLE.size(); i += 2) {
      List<List<String>> specs =
          java.util.Arrays.stream(TABLE.get(i).split(" / ", -1))
              .map(s -> List.of(s.split(" ", -1)))
              .toList();
      for (String name : TABLE.get(i + 1).split(" ", -1)) {
        if (byCommand.put(name, specs) != null) {
          throw new IllegalStateException("key flags declared twice: " + name);
        }
      }
    }
    return byCommand;
  }

  /**
   * Returns whether the command has key flags declared.
   *
   * @param command a lower-case command name
   */
  static boolean declared(String command) {
    return BY_COMMAND.containsKey(command) || command.equals("set") || command.equals("bitfield");
  }

  /**
   * Returns the flags of a request's key, or null if the command has none declared.
   *
   * @param command a lower-case command name
   * @param first whether it is the request's first key
   * @param args the request's words, the name included
   */
  static List<String> of(String command, boolean first, List<byte[]> args) {
    if (command.equals("set")) {
      return hasWord(args, 3, "get") ? READ_WRITE : List.of("OW", "update");
    }
    if (command.equals("bitfield")) {
      return bitfieldReadsOnly(args) ? List.of("RO", "access") : READ_WRITE;
    }
    List<List<String>> specs = BY_COMMAND.get(command);
    if (specs == null) {
      return null;
    }
    return first ? specs.getFirst() : specs.getLast();
  }

  private static final List<String> READ_WRITE = List.of("RW", "access", "update");

  private static boolean hasWord(List<byte[]> args, int from, String word) {
    for (int i = from; i < args.size(); i++) {
      if (lower(args.get(i)).equals(word)) {
        return true;
      }
    }
    return false;
  }

  /** Whether a BITFIELD only reads: GET and OVERFLOW with their arguments, nothing else. */
  private static boolean bitfieldReadsOnly(List<byte[]> args) {
    for (int i = 2; i < args.size(); i++) {
      int left = args.size() - i - 1;
      String word = lower(args.get(i));
      if (word.equals("get") && left >= 2) {
        i += 2;
      } else if (word.equals("overflow") && left >= 1) {
        i += 1;
      } else {
        return false;
      }
    }
    return true;
  }

  private static String lower(byte[] word) {
    return new String(word, java.nio.charset.StandardCharsets.ISO_8859_1)
        .toLowerCase(java.util.Locale.ROOT);
  }
}
