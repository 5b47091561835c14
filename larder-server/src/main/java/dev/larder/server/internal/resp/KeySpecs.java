package dev.larder.server.internal.resp;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The key specifications of the commands Larder serves, as Redis 7.0 declares them and COMMAND INFO
 * reports them (its ninth element): for each of a command's kinds of key, its flags, where the
 * search for its keys begins (an index, a keyword, or unknown) and how they are found from there (a
 * range, a count, or unknown), with Redis's note where it has one. COMMAND GETKEYSANDFLAGS takes
 * its flags from here ({@link KeySpecFlags}); ACL, cluster and tracking checks find keys from the
 * command's own key positions ({@link RespCommand}), which give the same keys.
 *
 * <p>One line per specification, a command's in Redis's order:
 *
 * <pre>
 * command FLAG,FLAG begin find [-- notes]
 *   begin: index:POS | keyword:KEYWORD,STARTFROM | unknown
 *   find:  range:LASTKEY,KEYSTEP,LIMIT | keynum:KEYNUMIDX,FIRSTKEY,KEYSTEP | unknown
 * </pre>
 *
 * <p>Containers (OBJECT, MEMORY) have none, as in Redis, whose subcommands carry them. {@code
 * KeySpecsTest} checks that every command with keys has its specifications and none without has
 * any; {@code RedisDifferentialTest} compares every command's with redis-server 7.0.15's.
 *
 * <p>Immutable; thread-safe.
 */
final class KeySpecs {
  /**
   * One key specification.
   *
   * @param flags Redis's key flags, in its order ({@code RO RW OW RM}, then lower-case)
   * @param begin how the search begins: {@code index}, {@code keyword} or {@code unknown}
   * @param beginArgs the begin search's numbers and keyword, as strings
   * @param find how keys are found: {@code range}, {@code keynum} or {@code unknown}
   * @param findArgs the find's numbers
   * @param notes Redis's note, or null
   */
  record KeySpec(
      List<String> flags,
      String begin,
      List<String> beginArgs,
      String find,
      List<Long> findArgs,
      String notes) {}

  private static final String TABLE =
      """
        append RW,INSERT index:1 range:0,1,0
        bitcount RO,ACCESS index:1 range:0,1,0
        bitfield RW,ACCESS,UPDATE,VARIABLE_FLAGS index:1 range:0,1,0 -- This command allows both access and modification of the key
        bitfield_ro RO,ACCESS index:1 range:0,1,0
        bitop OW,UPDATE index:2 range:0,1,0
        bitop RO,ACCESS index:3 range:-1,1,0
        bitpos RO,ACCESS index:1 range:0,1,0
        blmove RW,ACCESS,DELETE index:1 range:0,1,0
        blmove RW,INSERT index:2 range:0,1,0
        blmpop RW,ACCESS,DELETE index:2 keynum:0,1,1
        blpop RW,ACCESS,DELETE index:1 range:-2,1,0
        brpop RW,ACCESS,DELETE index:1 range:-2,1,0
        brpoplpush RW,ACCESS,DELETE index:1 range:0,1,0
        brpoplpush RW,INSERT index:2 range:0,1,0
        bzmpop RW,ACCESS,DELETE index:2 keynum:0,1,1
        bzpopmax RW,ACCESS,DELETE index:1 range:-2,1,0
        bzpopmin RW,ACCESS,DELETE index:1 range:-2,1,0
        copy RO,ACCESS index:1 range:0,1,0
        copy OW,UPDATE index:2 range:0,1,0
        decr RW,ACCESS,UPDATE index:1 range:0,1,0
        decrby RW,ACCESS,UPDATE index:1 range:0,1,0
        del RM,DELETE index:1 range:-1,1,0
        dump RO,ACCESS index:1 range:0,1,0
        exists RO index:1 range:-1,1,0
        expire RW,UPDATE index:1 range:0,1,0
        expireat RW,UPDATE index:1 range:0,1,0
        expiretime RO,ACCESS index:1 range:0,1,0
        get RO,ACCESS index:1 range:0,1,0
        getbit RO,ACCESS index:1 range:0,1,0
        getdel RW,ACCESS,DELETE index:1 range:0,1,0
        getex RW,ACCESS,UPDATE index:1 range:0,1,0 -- RW and UPDATE because it changes the TTL
        getrange RO,ACCESS index:1 range:0,1,0
        getset RW,ACCESS,UPDATE index:1 range:0,1,0
        hdel RW,DELETE index:1 range:0,1,0
        hexists RO index:1 range:0,1,0
        hget RO,ACCESS index:1 range:0,1,0
        hgetall RO,ACCESS index:1 range:0,1,0
        hincrby RW,ACCESS,UPDATE index:1 range:0,1,0
        hincrbyfloat RW,ACCESS,UPDATE index:1 range:0,1,0
        hkeys RO,ACCESS index:1 range:0,1,0
        hlen RO index:1 range:0,1,0
        hmget RO,ACCESS index:1 range:0,1,0
        hmset RW,UPDATE index:1 range:0,1,0
        hrandfield RO,ACCESS index:1 range:0,1,0
        hscan RO,ACCESS index:1 range:0,1,0
        hset RW,UPDATE index:1 range:0,1,0
        hsetnx RW,INSERT index:1 range:0,1,0
        hstrlen RO index:1 range:0,1,0
        hvals RO,ACCESS index:1 range:0,1,0
        incr RW,ACCESS,UPDATE index:1 range:0,1,0
        incrby RW,ACCESS,UPDATE index:1 range:0,1,0
        incrbyfloat RW,ACCESS,UPDATE index:1 range:0,1,0
        lcs RO,ACCESS index:1 range:1,1,0
        lindex RO,ACCESS index:1 range:0,1,0
        linsert RW,INSERT index:1 range:0,1,0
        llen RO index:1 range:0,1,0
        lmove RW,ACCESS,DELETE index:1 range:0,1,0
        lmove RW,INSERT index:2 range:0,1,0
        lmpop RW,ACCESS,DELETE index:1 keynum:0,1,1
        lpop RW,ACCESS,DELETE index:1 range:0,1,0
        lpos RO,ACCESS index:1 range:0,1,0
        lpush RW,INSERT index:1 range:0,1,0
        lpushx RW,INSERT index:1 range:0,1,0
        lrange RO,ACCESS index:1 range:0,1,0
        lrem RW,DELETE index:1 range:0,1,0
        lset RW,UPDATE index:1 range:0,1,0
        ltrim RW,DELETE index:1 range:0,1,0
        mget RO,ACCESS index:1 range:-1,1,0
        move RW,ACCESS,UPDATE index:1 range:0,1,0
        mset OW,UPDATE index:1 range:-1,2,0
        msetnx OW,INSERT index:1 range:-1,2,0
        persist RW,UPDATE index:1 range:0,1,0
        pexpire RW,UPDATE index:1 range:0,1,0
        pexpireat RW,UPDATE index:1 range:0,1,0
        pexpiretime RO,ACCESS index:1 range:0,1,0
        psetex OW,UPDATE index:1 range:0,1,0
        pttl RO,ACCESS index:1 range:0,1,0
        rename RW,ACCESS,DELETE index:1 range:0,1,0
        rename OW,UPDATE index:2 range:0,1,0
        renamenx RW,ACCESS,DELETE index:1 range:0,1,0
        renamenx OW,INSERT index:2 range:0,1,0
        restore OW,UPDATE index:1 range:0,1,0
        rpop RW,ACCESS,DELETE index:1 range:0,1,0
        rpoplpush RW,ACCESS,DELETE index:1 range:0,1,0
        rpoplpush RW,INSERT index:2 range:0,1,0
        rpush RW,INSERT index:1 range:0,1,0
        rpushx RW,INSERT index:1 range:0,1,0
        sadd RW,INSERT index:1 range:0,1,0
        scard RO index:1 range:0,1,0
        sdiff RO,ACCESS index:1 range:-1,1,0
        sdiffstore OW,UPDATE index:1 range:0,1,0
        sdiffstore RO,ACCESS index:2 range:-1,1,0
        set RW,ACCESS,UPDATE,VARIABLE_FLAGS index:1 range:0,1,0 -- RW and ACCESS due to the optional `GET` argument
        setbit RW,ACCESS,UPDATE index:1 range:0,1,0
        setex OW,UPDATE index:1 range:0,1,0
        setnx OW,INSERT index:1 range:0,1,0
        setrange RW,UPDATE index:1 range:0,1,0
        sinter RO,ACCESS index:1 range:-1,1,0
        sintercard RO,ACCESS index:1 keynum:0,1,1
        sinterstore RW,UPDATE index:1 range:0,1,0
        sinterstore RO,ACCESS index:2 range:-1,1,0
        sismember RO index:1 range:0,1,0
        smembers RO,ACCESS index:1 range:0,1,0
        smismember RO,ACCESS index:1 range:0,1,0
        smove RW,ACCESS,DELETE index:1 range:0,1,0
        smove RW,INSERT index:2 range:0,1,0
        sort RO,ACCESS index:1 range:0,1,0
        sort RO,ACCESS unknown unknown -- For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort
        sort OW,UPDATE unknown unknown -- For the optional STORE keyword. It is marked 'unknown' because the keyword can appear anywhere in the argument array
        sort_ro RO,ACCESS index:1 range:0,1,0
        sort_ro RO,ACCESS unknown unknown -- For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort
        spop RW,ACCESS,DELETE index:1 range:0,1,0
        srandmember RO,ACCESS index:1 range:0,1,0
        srem RW,DELETE index:1 range:0,1,0
        sscan RO,ACCESS index:1 range:0,1,0
        strlen RO index:1 range:0,1,0
        substr RO,ACCESS index:1 range:0,1,0
        sunion RO,ACCESS index:1 range:-1,1,0
        sunionstore OW,UPDATE index:1 range:0,1,0
        sunionstore RO,ACCESS index:2 range:-1,1,0
        ttl RO,ACCESS index:1 range:0,1,0
        type RO index:1 range:0,1,0
        unlink RM,DELETE index:1 range:-1,1,0
        watch RO index:1 range:-1,1,0
        zadd RW,UPDATE index:1 range:0,1,0
        zcard RO index:1 range:0,1,0
        zcount RO,ACCESS index:1 range:0,1,0
        zdiff RO,ACCESS index:1 keynum:0,1,1
        zdiffstore OW,UPDATE index:1 range:0,1,0
        zdiffstore RO,ACCESS index:2 keynum:0,1,1
        zincrby RW,ACCESS,UPDATE index:1 range:0,1,0
        zinter RO,ACCESS index:1 keynum:0,1,1
        zintercard RO,ACCESS index:1 keynum:0,1,1
        zinterstore OW,UPDATE index:1 range:0,1,0
        zinterstore RO,ACCESS index:2 keynum:0,1,1
        zlexcount RO,ACCESS index:1 range:0,1,0
        zmpop RW,ACCESS,DELETE index:1 keynum:0,1,1
        zmscore RO,ACCESS index:1 range:0,1,0
        zpopmax RW,ACCESS,DELETE index:1 range:0,1,0
        zpopmin RW,ACCESS,DELETE index:1 range:0,1,0
        zrandmember RO,ACCESS index:1 range:0,1,0
        zrange RO,ACCESS index:1 range:0,1,0
        zrangebylex RO,ACCESS index:1 range:0,1,0
        zrangebyscore RO,ACCESS index:1 range:0,1,0
        zrangestore OW,UPDATE index:1 range:0,1,0
        zrangestore RO,ACCESS index:2 range:0,1,0
        zrank RO,ACCESS index:1 range:0,1,0
        zrem RW,DELETE index:1 range:0,1,0
        zremrangebylex RW,DELETE index:1 range:0,1,0
        zremrangebyrank RW,DELETE index:1 range:0,1,0
        zremrangebyscore RW,DELETE index:1 range:0,1,0
        zrevrange RO,ACCESS index:1 range:0,1,0
        zrevrangebylex RO,ACCESS index:1 range:0,1,0
        zrevrangebyscore RO,ACCESS index:1 range:0,1,0
        zrevrank RO,ACCESS index:1 range:0,1,0
        zscan RO,ACCESS index:1 range:0,1,0
        zscore RO,ACCESS index:1 range:0,1,0
        zunion RO,ACCESS index:1 keynum:0,1,1
        zunionstore OW,UPDATE index:1 range:0,1,0
        zunionstore RO,ACCESS index:2 keynum:0,1,1
      """;

  private static final Map<String, List<KeySpec>> BY_COMMAND = parse(TABLE);

  private KeySpecs() {}

  private static Map<String, List<KeySpec>> parse(String table) {
    Map<String, List<KeySpec>> byCommand = new HashMap<>();
    for (String line : table.strip().split("\n", -1)) {
      int dash = line.indexOf(" -- ");
      String notes = dash < 0 ? null : line.substring(dash + 4);
      String[] w = (dash < 0 ? line : line.substring(0, dash)).strip().split(" ", -1);
      List<String> flags = new ArrayList<>();
      for (String f : w[1].split(",", -1)) {
        flags.add(f.length() == 2 ? f : f.toLowerCase(Locale.ROOT));
      }
      String[] begin = w[2].split(":", 2);
      String[] find = w[3].split(":", 2);
      List<Long> findArgs = new ArrayList<>();
      if (find.length > 1) {
        for (String n : find[1].split(",", -1)) {
          findArgs.add(Long.parseLong(n));
        }
      }
      byCommand
          .computeIfAbsent(w[0], k -> new ArrayList<>())
          .add(
              new KeySpec(
                  List.copyOf(flags),
                  begin[0],
                  begin.length > 1 ? List.of(begin[1].split(",", -1)) : List.of(),
                  find[0],
                  List.copyOf(findArgs),
                  notes));
    }
    byCommand.replaceAll((k, v) -> List.copyOf(v));
    return Map.copyOf(byCommand);
  }

  /**
   * Returns a command's key specifications, empty if it has none.
   *
   * @param command a lower-case command name
   */
  static List<KeySpec> of(String command) {
    return BY_COMMAND.getOrDefault(command, List.of());
  }

  /**
   * Writes COMMAND INFO's key-specification element: a set of maps, as Redis 7.0 writes it.
   *
   * @param out the reply
   * @param command a lower-case command name
   */
  static void write(RespWriter out, String command) {
    List<KeySpec> specs = of(command);
    out.set(specs.size());
    for (KeySpec spec : specs) {
      out.map(spec.notes() == null ? 3 : 4);
      if (spec.notes() != null) {
        out.bulk("notes");
        out.bulk(spec.notes());
      }
      out.bulk("flags");
      out.set(spec.flags().size());
      spec.flags().forEach(out::simple);
      out.bulk("begin_search");
      writeBegin(out, spec);
      out.bulk("find_keys");
      writeFind(out, spec);
    }
  }

  private static void writeBegin(RespWriter out, KeySpec spec) {
    out.map(2);
    out.bulk("type");
    out.bulk(spec.begin());
    out.bulk("spec");
    switch (spec.begin()) {
      case "index" -> {
        out.map(1);
        out.bulk("index");
        out.integer(Long.parseLong(spec.beginArgs().getFirst()));
      }
      case "keyword" -> {
        out.map(2);
        out.bulk("keyword");
        out.bulk(spec.beginArgs().getFirst());
        out.bulk("startfrom");
        out.integer(Long.parseLong(spec.beginArgs().get(1)));
      }
      default -> out.map(0);
    }
  }

  private static void writeFind(RespWriter out, KeySpec spec) {
    out.map(2);
    out.bulk("type");
    out.bulk(spec.find());
    out.bulk("spec");
    List<String> names =
        switch (spec.find()) {
          case "range" -> List.of("lastkey", "keystep", "limit");
          case "keynum" -> List.of("keynumidx", "firstkey", "keystep");
          default -> List.of();
        };
    out.map(names.size());
    for (int i = 0; i < names.size(); i++) {
      out.bulk(names.get(i));
      out.integer(spec.findArgs().get(i));
    }
  }
}
