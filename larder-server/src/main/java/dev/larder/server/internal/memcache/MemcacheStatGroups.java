package dev.larder.server.internal.memcache;

import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The groups of memcached's {@code stats} command, with the fields that have a meaning in Larder
 * and that meaning (docs/design/server.md, "memcached stats"). Larder has no slab allocator: its
 * memcached items are the strings of database 0 of one byte-bounded store, so {@code items} and
 * {@code slabs} describe them as one class, {@code 1}, whose figures are the whole store's. Fields
 * memcached reports about its allocator, LRU segments, crawler and threads are left out rather than
 * answered with zeros. Stateless.
 */
final class MemcacheStatGroups {
  private MemcacheStatGroups() {}

  private static void stat(MemcacheSession s, String name, Object value) {
    TextCommands.stat(s, name, value);
  }

  /**
   * {@code stats}: the server's figures, in memcached's order. Fields of events Larder does not
   * have are reported as 0, each for its reason: {@code get_flushed} (flush_all removes the items
   * at once, or at its time, so no fetch ever finds a flushed item), {@code listen_disabled_num}
   * and {@code time_in_listen_disabled_us} (Larder never stops accepting: over {@code
   * max-connections} it accepts and refuses each connection, counted in {@code
   * rejected_connections}), {@code conn_yields} (memcached leaves a connection after 20 requests of
   * one read and counts it; Larder runs every request a read brought before it leaves the
   * connection), {@code reclaimed} (the store does not reuse an expired item's memory for a new
   * item; expired items are removed by a read or by the sweep) and {@code lrutail_reflocked} (no
   * LRU tail is locked and skipped).
   */
  static void general(MemcacheSession s) {
    long now = System.currentTimeMillis();
    long[] ks = s.keyspace().stats();
    MemcacheStats c = s.stats;
    stat(s, "pid", ProcessHandle.current().pid());
    stat(s, "uptime", (now - s.server.startMillis()) / 1000);
    stat(s, "time", now / 1000);
    stat(s, "version", TextCommands.VERSION);
    stat(s, "larder_version", "0.1.0-SNAPSHOT");
    stat(s, "pointer_size", 64);
    long[] cpu = ProcessCpu.userAndSystemMicros();
    stat(s, "rusage_user", ProcessCpu.seconds(cpu[0]));
    stat(s, "rusage_system", ProcessCpu.seconds(cpu[1]));
    stat(s, "max_connections", s.server.config().maxConnections());
    stat(s, "curr_connections", s.server.connections());
    stat(s, "total_connections", s.server.connectionsReceived());
    stat(s, "rejected_connections", s.server.rejectedConnections());
    stat(s, "cmd_get", c.cmdGet.sum());
    stat(s, "cmd_set", c.cmdSet.sum());
    stat(s, "cmd_flush", c.cmdFlush.sum());
    stat(s, "cmd_touch", c.cmdTouch.sum());
    stat(s, "cmd_meta", c.cmdMeta.sum());
    stat(s, "get_hits", c.getHits.sum());
    stat(s, "get_misses", c.getMisses.sum());
    stat(s, "get_expired", c.getExpired.sum());
    stat(s, "get_flushed", 0);
    stat(s, "delete_misses", c.deleteMisses.sum());
    stat(s, "delete_hits", c.deleteHits.sum());
    stat(s, "incr_misses", c.incrMisses.sum());
    stat(s, "incr_hits", c.incrHits.sum());
    stat(s, "decr_misses", c.decrMisses.sum());
    stat(s, "decr_hits", c.decrHits.sum());
    stat(s, "cas_misses", c.casMisses.sum());
    stat(s, "cas_hits", c.casHits.sum());
    stat(s, "cas_badval", c.casBadval.sum());
    stat(s, "touch_hits", c.touchHits.sum());
    stat(s, "touch_misses", c.touchMisses.sum());
    stat(s, "store_too_large", c.storeTooLarge.sum());
    stat(s, "store_no_memory", c.storeNoMemory.sum());
    stat(s, "auth_cmds", c.authCmds.sum());
    stat(s, "auth_errors", c.authErrors.sum());
    stat(s, "bytes_read", c.bytesRead.sum());
    stat(s, "bytes_written", c.bytesWritten.sum());
    stat(s, "limit_maxbytes", s.keyspace().maxMemory());
    stat(s, "accepting_conns", 1);
    stat(s, "listen_disabled_num", 0);
    stat(s, "time_in_listen_disabled_us", 0);
    stat(s, "threads", threads(s));
    stat(s, "conn_yields", 0);
    stat(s, "log_watcher_skipped", c.watchers.skippedTotal.sum());
    stat(s, "log_watcher_sent", c.watchers.sent.sum());
    stat(s, "log_watchers", c.watchers.count());
    stat(s, "bytes", s.keyspace().memoryUsed());
    stat(s, "curr_items", itemCount(s));
    stat(s, "total_items", c.totalItems.sum());
    stat(s, "expired_unfetched", ks[2]);
    stat(s, "evictions", ks[3]);
    stat(s, "reclaimed", 0);
    stat(s, "lrutail_reflocked", 0);
  }

  private static int threads(MemcacheSession s) {
    int io = s.server.config().ioThreads();
    return io > 0 ? io : Runtime.getRuntime().availableProcessors();
  }

  /** {@code stats settings}: the settings memcached tools read, from Larder's own. */
  static void settings(MemcacheSession s) {
    var config = s.server.config();
    stat(s, "maxbytes", s.keyspace().maxMemory());
    stat(s, "maxconns", config.maxConnections());
    stat(s, "tcpport", s.server.memcachePort());
    stat(s, "udpport", 0);
    stat(s, "inter", config.bind());
    stat(s, "verbosity", s.stats.verbosity);
    stat(s, "evictions", "noeviction".equals(s.server.maxMemoryPolicy()) ? "off" : "on");
    stat(s, "stat_key_prefix", PrefixStats.DELIMITER);
    stat(s, "detail_enabled", s.stats.detail.enabled() ? "yes" : "no");
    stat(s, "domain_socket", "NULL");
    stat(s, "shutdown_command", "no");
    stat(s, "num_threads", threads(s));
    stat(s, "cas_enabled", "yes");
    stat(s, "binding_protocol", "ascii");
    stat(s, "auth_enabled_sasl", "no");
    stat(s, "auth_enabled_ascii", s.server.memcacheAuth() == null ? "no" : "yes");
    stat(s, "item_size_max", config.maxItemBytes());
    stat(s, "flush_enabled", "yes");
    stat(s, "idle_timeout", config.idleTimeoutSeconds());
    stat(s, "ssl_enabled", config.tls() ? "yes" : "no");
  }

  /**
   * The items of database 0; none while a cluster member loads ({@link
   * dev.larder.server.internal.ServerState#keyspaceCountable}).
   */
  private static long itemCount(MemcacheSession s) {
    return s.server.keyspaceCountable() ? s.keyspace().size(MemcacheSession.DB) : 0;
  }

  /** {@code stats items}: one class holding every item of database 0. */
  static void items(MemcacheSession s) {
    long count = itemCount(s);
    if (count == 0) {
      return;
    }
    long[] ks = s.keyspace().stats();
    stat(s, "items:1:number", count);
    stat(s, "items:1:evicted", ks[3]);
    stat(s, "items:1:reclaimed", ks[2]);
  }

  /** {@code stats slabs}: one class; the counters are the server's, the memory the store's. */
  static void slabs(MemcacheSession s) {
    long count = itemCount(s);
    MemcacheStats c = s.stats;
    if (count > 0) {
      stat(s, "1:used_chunks", count);
      stat(s, "1:get_hits", c.getHits.sum());
      stat(s, "1:cmd_set", c.cmdSet.sum());
      stat(s, "1:delete_hits", c.deleteHits.sum());
      stat(s, "1:incr_hits", c.incrHits.sum());
      stat(s, "1:decr_hits", c.decrHits.sum());
      stat(s, "1:cas_hits", c.casHits.sum());
      stat(s, "1:cas_badval", c.casBadval.sum());
      stat(s, "1:touch_hits", c.touchHits.sum());
    }
    stat(s, "active_slabs", count > 0 ? 1 : 0);
    stat(s, "total_malloced", s.keyspace().memoryUsed());
  }

  /** {@code stats conns}: the listener and every open memcached connection. */
  static void conns(MemcacheSession s) {
    long now = System.currentTimeMillis();
    String listen = "tcp:" + s.server.config().bind() + ":" + s.server.memcachePort();
    stat(s, "0:addr", listen);
    stat(s, "0:state", "conn_listening");
    stat(s, "0:secs_since_last_cmd", (now - s.server.startMillis()) / 1000);
    s.stats.forEachConnection(
        (id, conn) -> {
          stat(s, id + ":addr", "tcp:" + conn.address());
          stat(s, id + ":listen_addr", listen);
          stat(s, id + ":state", conn.state());
          stat(s, id + ":secs_since_last_cmd", (now - conn.lastCommandMillis()) / 1000);
        });
  }

  /**
   * {@code stats cachedump <class> <limit>}: up to limit items (0 for no limit) of class 1, as
   * {@code ITEM key [bytes b; expiry s]}, the expiry a Unix time or 0. Returns false when it has
   * answered an error instead.
   */
  static boolean cachedump(MemcacheSession s, List<byte[]> t) {
    long cls = t.size() == 4 ? MemcacheSession.unsigned(t.get(2), 255) : -1;
    long limit = t.size() == 4 ? MemcacheSession.unsigned(t.get(3), Integer.MAX_VALUE) : -1;
    if (cls < 0 || limit < 0) {
      s.line("CLIENT_ERROR bad command line");
      return false;
    }
    if (cls != 1 || !s.server.keyspaceCountable()) {
      return true;
    }
    long[] left = {limit == 0 ? Long.MAX_VALUE : limit};
    s.keyspace()
        .forEach(
            MemcacheSession.DB,
            (key, v) -> {
              if (left[0] > 0 && v.type() == ValueType.STRING) {
                left[0]--;
                item(s, key, v);
              }
            });
    return true;
  }

  private static void item(MemcacheSession s, byte[] key, StoredValue v) {
    s.line(
        "ITEM "
            + new String(key, StandardCharsets.ISO_8859_1)
            + " ["
            + v.payload().length
            + " b; "
            + (v.volatileKey() ? v.expiresAtMillis() / 1000 : 0)
            + " s]");
  }
}
