package dev.larder.server.internal.memcache;

import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueLayout;
import dev.larder.server.internal.keyspace.ValueType;
import dev.larder.server.internal.net.Decimal;
import dev.larder.server.internal.net.ReplyLimitExceeded;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * memcached's text protocol: get, gets, gat, gats, set, add, replace, append, prepend, cas, delete,
 * incr, decr, touch, flush_all, stats, version, verbosity, quit, with noreply where memcached takes
 * it. Each command is one entry of {@link #TABLE}. Stateless.
 */
final class TextCommands {
  /** The version reported: the memcached protocol level Larder follows. */
  static final String VERSION = "1.6.0";

  private static final String BAD_FORMAT = "CLIENT_ERROR bad command line format";
  private static final byte[] VALUE = "VALUE ".getBytes(StandardCharsets.US_ASCII);

  @FunctionalInterface
  interface Command {
    void run(MemcacheSession s, List<byte[]> t, byte[] data);
  }

  static final Map<String, Command> TABLE = new HashMap<>();

  static {
    TABLE.put("get", (s, t, d) -> get(s, t, 1, false, Long.MIN_VALUE));
    TABLE.put("gets", (s, t, d) -> get(s, t, 1, true, Long.MIN_VALUE));
    TABLE.put("gat", (s, t, d) -> gat(s, t, false));
    TABLE.put("gats", (s, t, d) -> gat(s, t, true));
    TABLE.put("set", (s, t, d) -> store(s, t, d, ItemStore.Mode.SET));
    TABLE.put("add", (s, t, d) -> store(s, t, d, ItemStore.Mode.ADD));
    TABLE.put("replace", (s, t, d) -> store(s, t, d, ItemStore.Mode.REPLACE));
    TABLE.put("append", (s, t, d) -> store(s, t, d, ItemStore.Mode.APPEND));
    TABLE.put("prepend", (s, t, d) -> store(s, t, d, ItemStore.Mode.PREPEND));
    TABLE.put("cas", (s, t, d) -> store(s, t, d, ItemStore.Mode.SET));
    TABLE.put("delete", TextCommands::delete);
    TABLE.put("incr", (s, t, d) -> arithmetic(s, t, true));
    TABLE.put("decr", (s, t, d) -> arithmetic(s, t, false));
    TABLE.put("touch", TextCommands::touch);
    TABLE.put("flush_all", TextCommands::flushAll);
    TABLE.put("stats", TextCommands::stats);
    TABLE.put("version", (s, t, d) -> s.line("VERSION " + VERSION));
    TABLE.put("verbosity", TextCommands::verbosity);
    TABLE.put("quit", (s, t, d) -> s.close = true);
    TABLE.put("watch", TextCommands::watch);
    TABLE.put("cache_memlimit", TextCommands::cacheMemlimit);
    TABLE.put("lru_crawler", LruCrawler::run);
    // memcached refuses shutdown unless started with -A; Larder has no such setting
    TABLE.put("shutdown", (s, t, d) -> s.line("ERROR: shutdown not enabled"));
  }

  private TextCommands() {}

  private static boolean noreply(List<byte[]> t) {
    return "noreply".equals(new String(t.getLast(), StandardCharsets.US_ASCII));
  }

  private static void get(MemcacheSession s, List<byte[]> t, int from, boolean cas, long touch) {
    if (t.size() <= from) {
      s.line("ERROR");
      return;
    }
    for (int i = from; i < t.size(); i++) {
      if (!MemcacheSession.validKey(t.get(i))) {
        s.line(BAD_FORMAT);
        return;
      }
    }
    for (int i = from; i < t.size(); i++) {
      fetch(s, t.get(i), cas, touch);
    }
    s.line("END");
    s.writeOut();
  }

  /**
   * Serves part of a retrieval line too long to hold whole (see MemcacheDecoder): its keys were
   * checked as they arrived.
   *
   * @param head the command and, for gat and gats, the expiry
   * @param keys the keys that arrived
   * @param end whether to end the reply (the line ended, and had keys)
   * @return false if the line fails (a bad expiry), its error written
   */
  static boolean streamedGet(MemcacheSession s, List<byte[]> head, List<byte[]> keys, boolean end) {
    String name = text(head, 0);
    boolean cas = name.equals("gets") || name.equals("gats");
    long touch = Long.MIN_VALUE;
    if (head.size() == 2) {
      long exptime = MemcacheSession.signed(head.get(1));
      if (exptime == Long.MIN_VALUE) {
        s.line("CLIENT_ERROR invalid exptime argument");
        return false;
      }
      touch = s.expiryMillis(exptime);
    }
    for (byte[] key : keys) {
      fetch(s, key, cas, touch);
    }
    if (end) {
      s.line("END");
      s.writeOut();
    }
    return true;
  }

  /** Writes one key's item if present; touch is the new expiry, or Long.MIN_VALUE for a get. */
  private static void fetch(MemcacheSession s, byte[] key, boolean cas, long touch) {
    s.stats.cmdGet.increment();
    if (touch == Long.MIN_VALUE) {
      // A plain get writes the payload straight from the stored bytes: no decoded copy.
      byte[] stored = s.keyspace().getStored(MemcacheSession.DB, key);
      ValueLayout.Header h = stored == null ? null : ValueLayout.header(stored);
      if (h == null || h.type() != ValueType.STRING) {
        s.stats.getMisses.increment();
        s.stats.missed(key);
        s.stats.detail.recordGet(key, false);
        s.stats.watchers.fetched(key, false, 0, s.connectionId);
        return;
      }
      s.stats.getHits.increment();
      s.stats.detail.recordGet(key, true);
      s.stats.watchers.fetched(key, true, stored.length - h.payloadOffset(), s.connectionId);
      value(s, key, h.clientFlags(), stored, h.payloadOffset(), cas ? h.version() : 0);
      ItemStore.recordFetch(s, key, h.version(), h.itemState());
      return;
    }
    StoredValue v = ItemStore.touch(s, key, touch);
    s.stats.detail.recordGet(key, v != null);
    s.stats.watchers.fetched(key, v != null, v == null ? 0 : v.payload().length, s.connectionId);
    if (v == null) {
      s.stats.getMisses.increment();
      s.stats.missed(key);
      return;
    }
    s.stats.getHits.increment();
    value(s, key, v.clientFlags(), v.payload(), 0, cas ? v.version() : 0);
  }

  /**
   * A storage command whose data was too large: memcached's reply (none with noreply), and a {@code
   * set} removes the item it would have replaced, as memcached does (so a reader does not keep
   * getting the value the client meant to replace).
   */
  static void tooLarge(MemcacheSession s, List<byte[]> t, byte[] data) {
    s.stats.storeTooLarge.increment();
    if (text(t, 0).equals("set") && MemcacheSession.validKey(t.get(1))) {
      ItemStore.delete(s, t.get(1), 0);
    }
    if (!noreply(t)) {
      s.line("SERVER_ERROR object too large for cache");
    }
  }

  /**
   * Writes one item of a get's reply: {@code VALUE key flags bytes [cas]}, then the data.
   *
   * @param data an array whose bytes from {@code offset} to its end are the item's value
   * @param cas the CAS unique to show (gets, gats), 0 for none
   */
  private static void value(
      MemcacheSession s, byte[] key, int flags, byte[] data, int offset, long cas) {
    ByteBuf out = s.out;
    ReplyLimitExceeded.check(out, key.length + data.length - offset + 48L);
    out.ensureWritable(key.length + data.length - offset + 48);
    out.writeBytes(VALUE);
    out.writeBytes(key);
    out.writeByte(' ');
    Decimal.writeUnsigned(out, Integer.toUnsignedLong(flags));
    out.writeByte(' ');
    Decimal.writeUnsigned(out, data.length - offset);
    if (cas != 0) {
      out.writeByte(' ');
      Decimal.writeUnsigned(out, cas);
    }
    out.writeByte('\r');
    out.writeByte('\n');
    out.writeBytes(data, offset, data.length - offset);
    out.writeByte('\r');
    out.writeByte('\n');
  }

  private static void gat(MemcacheSession s, List<byte[]> t, boolean cas) {
    if (t.size() < 3) {
      s.line("ERROR");
      return;
    }
    long exptime = MemcacheSession.signed(t.get(1));
    if (exptime == Long.MIN_VALUE) {
      s.line("CLIENT_ERROR invalid exptime argument");
      return;
    }
    s.stats.cmdTouch.increment();
    get(s, t, 2, cas, s.expiryMillis(exptime));
  }

  private static void store(MemcacheSession s, List<byte[]> t, byte[] data, ItemStore.Mode mode) {
    boolean isCas = "cas".equals(new String(t.getFirst(), StandardCharsets.US_ASCII));
    int args = isCas ? 6 : 5;
    // memcached takes one more word, noreply or not (then ignored); the decoder read a data
    // block only for these counts.
    if (data == null || (t.size() != args && t.size() != args + 1)) {
      s.line("ERROR");
      return;
    }
    long flags = MemcacheSession.unsigned(t.get(2), 0xFFFF_FFFFL);
    long exptime = MemcacheSession.signed(t.get(3));
    Long cas = isCas ? MemcacheSession.unsigned64(t.get(5)) : Long.valueOf(0);
    if (!MemcacheSession.validKey(t.get(1))
        || flags < 0
        || exptime == Long.MIN_VALUE
        || cas == null) {
      s.line(BAD_FORMAT);
      return;
    }
    s.stats.cmdSet.increment();
    s.stats.detail.recordSet(t.get(1));
    if (s.server.outOfMemory()) {
      s.line("SERVER_ERROR out of memory storing object");
      return;
    }
    ItemStore.Result r =
        ItemStore.store(
            s,
            t.get(1),
            mode,
            (int) flags,
            s.expiryMillis(exptime),
            data,
            isCas && cas == 0 ? -1 : cas);
    if (isCas) {
      s.stats.cas(r.outcome());
    }
    if (s.stats.watchers.watching(MemcacheWatchers.MUTATIONS)) {
      s.stats.watchers.stored(
          t.get(1),
          text(t, 0),
          r.outcome().name().toLowerCase(java.util.Locale.ROOT),
          s.logTtl(exptime),
          data.length,
          s.connectionId);
    }
    if (r.outcome() == ItemStore.Outcome.STORED) {
      s.stats.totalItems.increment();
    }
    if (!noreply(t)) {
      s.line(r.outcome().name());
    }
  }

  private static void delete(MemcacheSession s, List<byte[]> t, byte[] data) {
    boolean valid =
        t.size() == 2
            || (t.size() == 3 && (noreply(t) || "0".equals(text(t, 2))))
            || (t.size() == 4 && "0".equals(text(t, 2)) && noreply(t));
    if (!valid) {
      if (!noreply(t)) {
        s.line("CLIENT_ERROR bad command line format.  Usage: delete <key> [noreply]");
      }
      return;
    }
    s.stats.detail.recordDelete(t.get(1));
    ItemStore.Outcome o = ItemStore.delete(s, t.get(1), 0);
    (o == ItemStore.Outcome.STORED ? s.stats.deleteHits : s.stats.deleteMisses).increment();
    if (!noreply(t)) {
      s.line(o == ItemStore.Outcome.STORED ? "DELETED" : "NOT_FOUND");
    }
  }

  private static void arithmetic(MemcacheSession s, List<byte[]> t, boolean incr) {
    if (t.size() != 3 && !(t.size() == 4 && noreply(t))) {
      s.line("ERROR");
      return;
    }
    Long delta = MemcacheSession.unsigned64(t.get(2));
    if (delta == null) {
      s.line("CLIENT_ERROR invalid numeric delta argument");
      return;
    }
    ItemStore.Arithmetic r =
        ItemStore.arithmetic(
            s, t.get(1), delta, incr, null, 0, (item, created) -> item.expiresAtMillis());
    if (r.outcome() == ItemStore.Outcome.STORED || r.outcome() == ItemStore.Outcome.NOT_FOUND) {
      s.stats.arithmetic(incr, r.outcome() == ItemStore.Outcome.STORED);
    }
    if (noreply(t)) {
      return;
    }
    switch (r.outcome()) {
      case STORED -> s.line(Long.toUnsignedString(r.number()));
      case NON_NUMERIC -> s.line("CLIENT_ERROR cannot increment or decrement non-numeric value");
      default -> s.line("NOT_FOUND");
    }
  }

  private static void touch(MemcacheSession s, List<byte[]> t, byte[] data) {
    if (t.size() != 3 && !(t.size() == 4 && noreply(t))) {
      s.line("ERROR");
      return;
    }
    long exptime = MemcacheSession.signed(t.get(2));
    if (exptime == Long.MIN_VALUE) {
      s.line("CLIENT_ERROR invalid exptime argument");
      return;
    }
    s.stats.cmdTouch.increment();
    StoredValue v = ItemStore.touch(s, t.get(1), s.expiryMillis(exptime));
    if (!noreply(t)) {
      s.line(v == null ? "NOT_FOUND" : "TOUCHED");
    }
  }

  /**
   * {@code flush_all [time] [noreply]}: flushes database 0 now, or at a time given as memcached
   * gives expiry times (seconds from now, or an absolute Unix time past 30 days' worth); a time
   * past is now. A later flush_all replaces a pending one, as in memcached (one flush time).
   */
  private static void flushAll(MemcacheSession s, List<byte[]> t, byte[] data) {
    boolean quiet = noreply(t);
    int n = t.size() - (quiet ? 1 : 0);
    if (n > 3) {
      s.line("ERROR");
      return;
    }
    long when = n >= 2 ? MemcacheSession.signed(t.get(1)) : 0;
    if (when == Long.MIN_VALUE) {
      if (!quiet) {
        s.line("CLIENT_ERROR invalid exptime argument");
      }
      return;
    }
    s.stats.cmdFlush.increment();
    long delayMillis = when <= 0 ? 0 : s.expiryMillis(when) - s.keyspace().now();
    s.stats.scheduleFlush(
        delayMillis <= 0 ? null : s.server.scheduler(),
        delayMillis,
        () -> s.keyspace().flush(MemcacheSession.DB));
    if (!quiet) {
      s.line("OK");
    }
  }

  /**
   * {@code watch [fetchers|mutations|evictions|connevents]...}: the connection is sent the log
   * lines of those kinds from now on ({@link MemcacheWatchers}); no word is {@code fetchers}. A
   * word that is none of them is memcached's error. Refused, as memcached refuses it, behind
   * replies memcached would still hold ({@link MemcacheSession#repliesHeld}).
   */
  private static void watch(MemcacheSession s, List<byte[]> t, byte[] data) {
    if (s.repliesHeld) {
      s.line("ERROR cannot pipeline other commands before watch");
      return;
    }
    List<String> words = new java.util.ArrayList<>();
    for (int i = 1; i < t.size(); i++) {
      words.add(text(t, i));
    }
    int kinds = MemcacheWatchers.kinds(words);
    if (kinds < 0) {
      s.line("ERROR");
      return;
    }
    s.stats.watchers.remove(s.watcher);
    s.watcher = s.stats.watchers.add(s.connection, kinds);
    s.line("OK");
  }

  /**
   * {@code cache_memlimit <megabytes> [noreply]}: sets the server's {@code maxmemory}, as {@code
   * CONFIG SET maxmemory} does (the keyspace is rebuilt under the exclusive lock, see {@link
   * MemcacheDispatcher}); memcached's floor of 8 MB.
   */
  private static void cacheMemlimit(MemcacheSession s, List<byte[]> t, byte[] data) {
    boolean quiet = noreply(t);
    if (t.size() != 2 && !(t.size() == 3 && quiet)) {
      s.line("ERROR");
      return;
    }
    long megabytes = MemcacheSession.unsigned(t.get(1), Long.MAX_VALUE >> 20);
    if (megabytes < 0) {
      s.line("ERROR");
      return;
    }
    if (megabytes < 8) {
      s.line("MEMLIMIT_TOO_SMALL cannot set maxbytes to less than 8m");
      return;
    }
    long bytes = megabytes << 20;
    if (bytes != s.keyspace().maxMemory()) {
      s.keyspace().resize(bytes);
    }
    if (!quiet) {
      s.line("OK");
    }
  }

  /** {@code verbosity <level> [noreply]}: the level must be an unsigned number, as memcached's. */
  private static void verbosity(MemcacheSession s, List<byte[]> t, byte[] data) {
    boolean quiet = noreply(t);
    if (t.size() < 2 || (t.size() > 3 && !(t.size() == 4 && quiet))) {
      s.line("ERROR");
    } else if (quiet) {
      return;
    } else if (MemcacheSession.unsigned(t.get(1), 0xFFFF_FFFFL) < 0) {
      s.line(BAD_FORMAT);
    } else {
      s.stats.verbosity = MemcacheSession.unsigned(t.get(1), 0xFFFF_FFFFL);
      s.line("OK");
    }
  }

  /**
   * {@code stats [group]}: the general figures, or the groups memcached tools read, each field with
   * the meaning it can have in Larder (see {@link MemcacheStatGroups}); an unknown group is {@code
   * ERROR}, as in memcached.
   */
  private static void stats(MemcacheSession s, List<byte[]> t, byte[] data) {
    String group = t.size() > 1 ? text(t, 1) : "";
    switch (group) {
      case "" -> MemcacheStatGroups.general(s);
      case "reset" -> {
        s.stats.reset();
        s.keyspace().resetStats();
        s.line("RESET");
        return;
      }
      case "settings" -> MemcacheStatGroups.settings(s);
      case "items" -> MemcacheStatGroups.items(s);
      case "slabs" -> MemcacheStatGroups.slabs(s);
      case "sizes" -> stat(s, "sizes_status", "disabled");
      case "conns" -> MemcacheStatGroups.conns(s);
      case "detail" -> {
        detail(s, t);
        return;
      }
      case "cachedump" -> {
        if (!MemcacheStatGroups.cachedump(s, t)) {
          return;
        }
      }
      default -> {
        s.line("ERROR");
        return;
      }
    }
    s.line("END");
  }

  /** {@code stats detail on|off|dump}, with memcached's usage error for anything else. */
  private static void detail(MemcacheSession s, List<byte[]> t) {
    switch (t.size() > 2 ? text(t, 2) : "") {
      case "on" -> {
        s.stats.detail.enable(true);
        s.line("OK");
      }
      case "off" -> {
        s.stats.detail.enable(false);
        s.line("OK");
      }
      case "dump" -> s.stats.detail.dump(s::line);
      default -> s.line("CLIENT_ERROR usage: stats detail on|off|dump");
    }
  }

  static void stat(MemcacheSession s, String name, Object value) {
    s.line("STAT " + name + " " + value);
  }

  private static String text(List<byte[]> t, int i) {
    return new String(t.get(i), StandardCharsets.US_ASCII);
  }
}
