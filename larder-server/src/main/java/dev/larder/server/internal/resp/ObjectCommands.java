package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.READONLY;

import dev.larder.server.internal.ServerState;
import dev.larder.server.internal.keyspace.HashPayload;
import dev.larder.server.internal.keyspace.RangeChunks;
import dev.larder.server.internal.keyspace.SetPayload;
import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueLayout;
import dev.larder.server.internal.keyspace.ValueType;
import dev.larder.server.internal.keyspace.ZSetChunks;
import dev.larder.server.internal.keyspace.ZSetPayload;
import java.util.List;
import java.util.Map;

/**
 * OBJECT and MEMORY: what Larder can say about one stored value.
 *
 * <ul>
 *   <li>OBJECT ENCODING names the encoding Redis 7.0 would give the same value with the same
 *       thresholds ({@code hash-max-listpack-entries} and {@code -value}, {@code
 *       set-max-intset-entries}, {@code zset-max-listpack-entries} and {@code -value}): a string is
 *       {@code int}, {@code embstr} or {@code raw}; a hash {@code listpack} or {@code hashtable}; a
 *       list {@code quicklist} (Redis 7.0 names every list so); a set {@code intset} (canonical
 *       integers only) or {@code hashtable}; a sorted set {@code listpack} or {@code skiplist}.
 *       Larder itself stores every value one way, as one packed run of bytes in its pages, which
 *       none of Redis's names describes; tools read the encoding to predict Redis's memory and
 *       speed, so the answer is Redis's for that value. It is worked out from the value as it is,
 *       not from how it was written (Redis keeps {@code raw} for a number made by APPEND, and never
 *       turns a hashtable back into a listpack).
 *   <li>OBJECT REFCOUNT is 1: every stored value is its own copy (Redis shares small integers).
 *   <li>OBJECT FREQ and IDLETIME are refused: the store's eviction counts accesses in one shared
 *       frequency sketch and keeps no access time, so neither exists per key. The errors are
 *       Redis's own where Redis would give one for the policy in force (IDLETIME under an LFU
 *       policy, FREQ under noeviction).
 *   <li>MEMORY USAGE is the entry's bytes in the store: the stored key (database byte and key), the
 *       stored value (value layout header and payload), the two length varints of the store's
 *       entry, and the index's share, {@value #INDEX_SHARE} bytes (an 8-byte slot at the index's
 *       typical load; 9.4 to 11.3 in {@code docs/spec/store-layout.md}). Pages not yet full and the
 *       policy's sketch are not per entry and are not counted. SAMPLES is checked and ignored: the
 *       figure is exact.
 * </ul>
 *
 * <p>Stateless.
 */
final class ObjectCommands {
  /** The index's bytes per entry counted by MEMORY USAGE. */
  static final int INDEX_SHARE = 10;

  private static final String LFU_NO_IDLE =
      "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when"
          + " switching between policies at runtime LRU and LFU data will take some time to"
          + " adjust.";
  private static final String NO_LFU =
      "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note"
          + " that when switching between policies at runtime LRU and LFU data will take some"
          + " time to adjust.";

  private ObjectCommands() {}

  static void register(RespCommandTable t) {
    t.command("object", -2)
        .flags(READONLY)
        .keys(2, 2, 1)
        .doc(
            "generic",
            "A container for object introspection commands.",
            "subcommand:string ?key:key")
        .run(ObjectCommands::object);
    t.command("memory", -2)
        .flags(READONLY)
        .keys(2, 2, 1)
        .doc(
            "server",
            "A container for memory diagnostics commands.",
            "subcommand:string ?args:string*")
        .run(ObjectCommands::memory);
  }

  private static void object(RespCall c) {
    String sub = c.option(1);
    if (sub.equals("help")) {
      RespHelp.reply(c, RespHelp.OBJECT);
      return;
    }
    if (!List.of("encoding", "refcount", "freq", "idletime").contains(sub)) {
      throw new RespError("ERR unknown subcommand '" + c.text(1) + "'. Try OBJECT HELP.");
    }
    if (c.argc() != 3) {
      throw new RespError("ERR wrong number of arguments for 'object|" + sub + "' command");
    }
    // The header alone, so that a chunked collection of millions of entries is not read whole
    // to answer: its head counts them (chunkedEncoding).
    StoredValue header = c.keyspace().peekHeader(c.db(), c.arg(2));
    if (header == null) {
      c.out().nullValue();
      return;
    }
    boolean lfu = c.server().maxMemoryPolicy().contains("lfu");
    switch (sub) {
      case "encoding" -> {
        String large = chunkedEncoding(c.server(), header);
        StoredValue v = large == null ? c.keyspace().peek(c.db(), c.arg(2)) : null;
        if (large == null && v == null) {
          c.out().nullValue(); // gone between the two reads
        } else {
          c.out().bulk(large != null ? large : encoding(c.server(), v));
        }
      }
      case "refcount" -> c.out().integer(1);
      case "freq" ->
          throw new RespError(
              lfu
                  ? "ERR access frequency is not tracked per key: Larder's eviction counts"
                      + " accesses in one shared sketch"
                  : NO_LFU);
      default ->
          throw new RespError(
              lfu
                  ? LFU_NO_IDLE
                  : "ERR idle time is not tracked per key: Larder keeps no access time");
    }
  }

  /** The encoding Redis 7.0 would report for this value. */
  static String encoding(ServerState s, StoredValue v) {
    return switch (v.type()) {
      case STRING -> stringEncoding(v.payload());
      case HASH -> hashEncoding(s, v.payload());
      case LIST -> "quicklist"; // Redis 7.0 reports every list so, however short
      case SET -> setEncoding(s, v.payload());
      case ZSET -> zsetEncoding(s, v.payload());
    };
  }

  /**
   * The encoding of a chunked set, hash or sorted set whose head counts more entries than its
   * type's threshold (a hashtable or a skiplist whatever its entries), or null when the value must
   * be read to tell: a packed value, a list, a string, or a chunked one within the threshold.
   */
  private static String chunkedEncoding(ServerState s, StoredValue header) {
    byte[] payload = header.payload();
    return switch (header.type()) {
      case SET, HASH -> {
        if (!RangeChunks.isHead(header.type(), payload)) {
          yield null;
        }
        long total = RangeChunks.Index.decode(header.type(), payload).total();
        String threshold =
            header.type() == ValueType.SET ? "set-max-intset-entries" : "hash-max-listpack-entries";
        yield total > ConfigParameters.number(s, threshold) ? "hashtable" : null;
      }
      case ZSET -> {
        if (!ZSetChunks.isHead(payload)) {
          yield null;
        }
        long total = ZSetChunks.Index.decode(payload).size();
        yield total > ConfigParameters.number(s, "zset-max-listpack-entries") ? "skiplist" : null;
      }
      case STRING, LIST -> null;
    };
  }

  /** A set is an intset while it holds at most the threshold's members, all canonical integers. */
  private static String setEncoding(ServerState s, byte[] payload) {
    if (SetPayload.size(payload) > ConfigParameters.number(s, "set-max-intset-entries")) {
      return "hashtable";
    }
    for (byte[] m : SetPayload.members(payload)) {
      if (SetPayload.asLong(m) == null) {
        return "hashtable";
      }
    }
    return "intset";
  }

  private static String zsetEncoding(ServerState s, byte[] payload) {
    ZSetPayload.View view = ZSetPayload.view(payload);
    if (view.size() > ConfigParameters.number(s, "zset-max-listpack-entries")) {
      return "skiplist";
    }
    long maxValue = ConfigParameters.number(s, "zset-max-listpack-value");
    for (int i = 0; i < view.size(); i++) {
      if (view.member(i).length > maxValue) {
        return "skiplist";
      }
    }
    return "listpack";
  }

  private static String stringEncoding(byte[] p) {
    if (p.length <= 20) {
      try {
        RespCall.parseLong(p);
        return "int";
      } catch (RespError e) {
        // not a number: embstr
      }
    }
    return p.length <= 44 ? "embstr" : "raw";
  }

  private static String hashEncoding(ServerState s, byte[] payload) {
    long maxEntries = ConfigParameters.number(s, "hash-max-listpack-entries");
    long maxValue = ConfigParameters.number(s, "hash-max-listpack-value");
    Map<String, byte[]> fields = HashPayload.decode(payload);
    if (fields.size() > maxEntries) {
      return "hashtable";
    }
    for (Map.Entry<String, byte[]> e : fields.entrySet()) {
      if (e.getKey().length() > maxValue || e.getValue().length > maxValue) {
        return "hashtable";
      }
    }
    return "listpack";
  }

  private static void memory(RespCall c) {
    String sub = c.option(1);
    switch (sub) {
      case "help" -> RespHelp.reply(c, RespHelp.MEMORY);
      case "usage" -> {
        if (c.argc() < 3) {
          throw new RespError("ERR wrong number of arguments for 'memory|usage' command");
        }
        usage(c);
      }
      default ->
          throw new RespError("ERR unknown subcommand '" + c.text(1) + "'. Try MEMORY HELP.");
    }
  }

  private static void usage(RespCall c) {
    for (int i = 3; i < c.argc(); i++) {
      if (c.option(i).equals("samples") && i + 1 < c.argc()) {
        if (c.integer(++i) < 0) {
          throw new RespError(RespError.SYNTAX);
        }
      } else {
        throw new RespError(RespError.SYNTAX);
      }
    }
    StoredValue v = c.keyspace().peek(c.db(), c.arg(2));
    if (v == null) {
      c.out().nullValue();
      return;
    }
    c.out().integer(usage(c.arg(2).length, v));
  }

  /**
   * Returns the bytes an entry takes in the store.
   *
   * @param keyLength the client's key's length
   * @param v its value
   */
  static long usage(int keyLength, StoredValue v) {
    int storedKey = keyLength + 1;
    int storedValue = ValueLayout.encode(v.version() > 0 ? v : withAnyVersion(v)).length;
    return (long) varintSize(storedKey)
        + varintSize(storedValue)
        + storedKey
        + storedValue
        + INDEX_SHARE;
  }

  private static StoredValue withAnyVersion(StoredValue v) {
    return new StoredValue(v.type(), 1, v.expiresAtMillis(), v.clientFlags(), v.payload());
  }

  private static int varintSize(int n) {
    return n < 1 << 7 ? 1 : n < 1 << 14 ? 2 : n < 1 << 21 ? 3 : n < 1 << 28 ? 4 : 5;
  }
}
