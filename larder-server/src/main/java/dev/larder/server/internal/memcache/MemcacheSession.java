package dev.larder.server.internal.memcache;

import dev.larder.server.internal.ServerState;
import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import dev.larder.server.internal.net.ReplyLimitExceeded;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * One memcached connection's state and reply buffer, and the conversions both protocol flavours
 * share (expiry times, numbers). Memcached items live in database 0 of the keyspace, as strings
 * with their client flags, so Redis clients see them too.
 *
 * <p>Not thread-safe: used on the connection's event loop.
 */
final class MemcacheSession {
  /** Memcached's longest key. */
  static final int MAX_KEY = 250;

  /** Expiry times above this many seconds are absolute Unix times, as in memcached. */
  static final long RELATIVE_LIMIT = 60L * 60 * 24 * 30;

  static final int DB = 0;

  final ServerState server;
  final MemcacheStats stats;
  ByteBuf out;
  boolean close;

  /** The connection, and its id in {@code stats conns} and the log; set once it opens. */
  dev.larder.server.internal.net.ClientConnection connection;

  long connectionId;

  /** Set once the connection sent {@code watch}. */
  MemcacheWatchers.Watcher watcher;

  /** False until the connection authenticates, when the server has a memcache-auth-file. */
  boolean authenticated;

  /**
   * Whether an earlier request of the current batch (the requests of one read, see {@code
   * RequestPipeline}) has a reply that memcached would still hold unsent, a noreply request's empty
   * one included. memcached gathers a read's replies and writes them when the read is used up, and
   * earlier after a successful {@code get}, {@code gets}, {@code gat} or {@code gats} and after
   * {@code mn} (see {@link #writeOut}); {@code watch} and {@code lru_crawler metadump} hand the
   * connection to another thread and so are refused behind held replies ({@code ERROR cannot
   * pipeline other commands before ...}). Set by {@link MemcacheDispatcher} after each request.
   * memcached also writes its held replies every 20 requests of a long pipeline; Larder does not
   * count them, so such a pipeline's metadump is refused by Larder where memcached may run it.
   */
  boolean repliesHeld;

  /** Set by the running request when memcached would write out every held reply after it. */
  boolean writtenOut;

  MemcacheSession(ServerState server, MemcacheStats stats) {
    this.server = server;
    this.stats = stats;
    this.authenticated = server.memcacheAuth() == null;
  }

  Keyspace keyspace() {
    return server.keyspace();
  }

  void line(String s) {
    out.writeCharSequence(s, StandardCharsets.ISO_8859_1);
    out.writeByte('\r');
    out.writeByte('\n');
  }

  /**
   * The request being run ends with the replies written out, in memcached: the next request of the
   * batch may be {@code watch} or {@code lru_crawler metadump} (see {@link #repliesHeld}).
   */
  void writeOut() {
    writtenOut = true;
  }

  void data(byte[] b) {
    ReplyLimitExceeded.check(out, b.length);
    out.writeBytes(b);
    out.writeByte('\r');
    out.writeByte('\n');
  }

  /**
   * Converts a memcached expiry (seconds; 0 none; negative already expired; above 30 days an
   * absolute Unix time) to the keyspace's absolute milliseconds. An expired time gives 1 (the
   * epoch's first millisecond, long past).
   */
  long expiryMillis(long exptime) {
    return expiryMillis(exptime, keyspace().now());
  }

  /**
   * {@link #expiryMillis(long)} relative to a time the caller read: a meta command that reads the
   * clock once gives a new TTL and reports it ({@code T300 t}) from the same instant, so its {@code
   * t} is the TTL asked for, as memcached's (whose clock ticks once a second) is.
   */
  long expiryMillis(long exptime, long now) {
    if (exptime == 0) {
      return 0;
    }
    if (exptime < 0) {
      return 1;
    }
    if (exptime > RELATIVE_LIMIT) {
      return Math.max(1, exptime * 1000);
    }
    return now + exptime * 1000;
  }

  /**
   * Returns a store's time to live in seconds as the log's {@code ttl=} shows it: 0 for none (or
   * already expired), an absolute time made relative.
   */
  long logTtl(long exptime) {
    if (exptime <= 0) {
      return 0;
    }
    return exptime > RELATIVE_LIMIT ? Math.max(0, exptime - keyspace().now() / 1000) : exptime;
  }

  /** Returns seconds to expiry for meta's t flag: -1 for none. */
  long ttlSeconds(StoredValue v) {
    if (!v.volatileKey()) {
      return -1;
    }
    return Math.max(0, (v.expiresAtMillis() - keyspace().now() + 999) / 1000);
  }

  /** Reads an item; a Redis hash under the key is no item. */
  StoredValue item(byte[] key) {
    StoredValue v = keyspace().get(DB, key);
    return v != null && v.type() == ValueType.STRING ? v : null;
  }

  /**
   * A key as memcached 1.6 takes it: 1 to 250 bytes, any but a space or a line feed (its parser
   * splits a command line on spaces only, so control bytes are part of the key: memcaslap's keys
   * hold 0x10 bytes, and memcached stores and returns them).
   */
  static boolean validKey(byte[] key) {
    if (key.length == 0 || key.length > MAX_KEY) {
      return false;
    }
    for (byte b : key) {
      if (b == ' ' || b == '\n') {
        return false;
      }
    }
    return true;
  }

  /** Parses a decimal number in [0, max]; -1 if it is not one. */
  static long unsigned(byte[] t, long max) {
    if (t.length == 0 || t.length > 20) {
      return -1;
    }
    long v = 0;
    for (byte b : t) {
      if (b < '0' || b > '9') {
        return -1;
      }
      v = v * 10 + (b - '0');
      if (v < 0 || Long.compareUnsigned(v, max) > 0) {
        return -1;
      }
    }
    return v;
  }

  /** Parses a signed decimal int-range number; Long.MIN_VALUE if not one. */
  static long signed(byte[] t) {
    try {
      long v = Long.parseLong(new String(t, StandardCharsets.ISO_8859_1));
      return v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE ? v : Long.MIN_VALUE;
    } catch (NumberFormatException e) {
      return Long.MIN_VALUE;
    }
  }

  /** Parses an unsigned 64-bit decimal; null if not one. */
  static Long unsigned64(byte[] t) {
    if (t.length == 0 || t.length > 20) {
      return null;
    }
    for (byte b : t) {
      if (b < '0' || b > '9') {
        return null;
      }
    }
    try {
      return Long.parseUnsignedLong(new String(t, StandardCharsets.ISO_8859_1));
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
