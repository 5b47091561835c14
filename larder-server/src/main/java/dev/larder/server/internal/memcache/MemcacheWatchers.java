package dev.larder.server.internal.memcache;

import dev.larder.server.internal.net.ClientConnection;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The connections that sent memcached's {@code watch}, and the log lines they are sent: item
 * fetches ({@code fetchers}), stores ({@code mutations}), evictions ({@code evictions}) and
 * connections opened and closed ({@code connevents}), each line as memcached 1.6 writes it ({@code
 * ts=<seconds>.<micros> gid=<n> type=...}).
 *
 * <p>A watcher that does not read loses lines rather than holding the server's memory: once {@link
 * #BUFFER} bytes of its lines are queued, or its connection's output is backed up (the client does
 * not read what was sent), further lines are counted and dropped, and the next line that goes out
 * is preceded by {@code skipped=<count>}, as memcached's bounded watcher buffer does.
 *
 * <p>Thread-safe: lines are logged from every connection's event loop; each watcher's lines are
 * pushed to it through {@link ClientConnection#push}, in the order its calls arrive there. With no
 * watcher, {@link #watching} is one volatile read.
 */
public final class MemcacheWatchers {
  /** Item fetches: {@code type=item_get}. */
  static final int FETCHERS = 1;

  /** Item stores: {@code type=item_store}. */
  static final int MUTATIONS = 2;

  /** Items evicted for memory: {@code type=eviction}. */
  static final int EVICTIONS = 4;

  /** Connections opened and closed: {@code type=conn_new}, {@code type=conn_close}. */
  static final int CONNEVENTS = 8;

  /** Unsent bytes past which a watcher's lines are dropped: memcached's default watcher buffer. */
  static final long BUFFER = 256 * 1024;

  /** A line queued for a watcher, with the watcher that will account for it once written. */
  static final class Line {
    final Watcher watcher;
    final byte[] bytes;

    /** For a {@code skipped=} line, the count it reports; else 0. */
    final long skippedNote;

    Line(Watcher watcher, byte[] bytes, long skippedNote) {
      this.watcher = watcher;
      this.bytes = bytes;
      this.skippedNote = skippedNote;
    }
  }

  /** One watching connection. */
  static final class Watcher {
    final ClientConnection connection;
    final int kinds;
    final AtomicLong unsent = new AtomicLong();
    final AtomicLong skipped = new AtomicLong();

    Watcher(ClientConnection connection, int kinds) {
      this.connection = connection;
      this.kinds = kinds;
    }
  }

  private final CopyOnWriteArrayList<Watcher> watchers = new CopyOnWriteArrayList<>();

  /** The union of every watcher's kinds: a logging site reads this alone when nobody watches. */
  private volatile int watched;

  private final AtomicLong gids = new AtomicLong();
  final LongAdder sent = new LongAdder();
  final LongAdder skippedTotal = new LongAdder();

  /**
   * Parses {@code watch}'s arguments into kinds: none is {@link #FETCHERS}, as in memcached.
   *
   * @param words the words after {@code watch}
   * @return the kinds, or -1 if a word is not one of them
   */
  static int kinds(java.util.List<String> words) {
    if (words.isEmpty()) {
      return FETCHERS;
    }
    int kinds = 0;
    for (String w : words) {
      kinds |=
          switch (w) {
            case "fetchers" -> FETCHERS;
            case "mutations" -> MUTATIONS;
            case "evictions" -> EVICTIONS;
            case "connevents" -> CONNEVENTS;
            default -> -1;
          };
      if (kinds < 0) {
        return -1;
      }
    }
    return kinds;
  }

  /** Adds a watcher; returns it, to be {@link #remove removed} when its connection closes. */
  Watcher add(ClientConnection connection, int kinds) {
    Watcher w = new Watcher(connection, kinds);
    synchronized (this) {
      watchers.add(w);
      watched |= kinds;
    }
    return w;
  }

  /** Removes a watcher; nothing if it is null or gone. */
  void remove(Watcher w) {
    if (w == null) {
      return;
    }
    synchronized (this) {
      watchers.remove(w);
      int all = 0;
      for (Watcher x : watchers) {
        all |= x.kinds;
      }
      watched = all;
    }
  }

  /** Returns the number of watchers. */
  int count() {
    return watchers.size();
  }

  /** Returns whether some watcher wants lines of this kind. */
  boolean watching(int kind) {
    return (watched & kind) != 0;
  }

  /** {@code type=item_get}: a fetch found the item (its value's size) or not. */
  void fetched(byte[] key, boolean found, int size, long connection) {
    if (watching(FETCHERS)) {
      log(
          FETCHERS,
          "type=item_get key="
              + uriEncoded(key)
              + " status="
              + (found ? "found" : "not_found")
              + " clsid="
              + (found ? 1 : 0)
              + " cfd="
              + connection
              + " size="
              + (found ? size : 0));
    }
  }

  /**
   * {@code type=item_store}: a store command's outcome.
   *
   * @param command the command's name (set, add, cas, ms...)
   * @param status its outcome in memcached's words
   * @param ttlSeconds the item's time to live, 0 for none
   */
  void stored(
      byte[] key, String command, String status, long ttlSeconds, int size, long connection) {
    if (watching(MUTATIONS)) {
      log(
          MUTATIONS,
          "type=item_store key="
              + uriEncoded(key)
              + " status="
              + status
              + " cmd="
              + command
              + " ttl="
              + ttlSeconds
              + " clsid=1 cfd="
              + connection
              + " size="
              + size);
    }
  }

  /** {@code type=eviction}: the store evicted an item for memory. */
  void evicted(byte[] key) {
    if (watching(EVICTIONS)) {
      log(EVICTIONS, "type=eviction key=" + uriEncoded(key) + " clsid=1");
    }
  }

  /** {@code type=conn_new}. */
  void connectionOpened(String address, long connection) {
    if (watching(CONNEVENTS)) {
      log(CONNEVENTS, "type=conn_new " + remote(address) + " transport=tcp cfd=" + connection);
    }
  }

  /**
   * {@code type=conn_close}.
   *
   * @param reason memcached's reason: normal (the client closed or quit) or error (a protocol error
   *     closed it)
   */
  void connectionClosed(String address, String reason, long connection) {
    if (watching(CONNEVENTS)) {
      log(
          CONNEVENTS,
          "type=conn_close "
              + remote(address)
              + " transport=tcp reason="
              + reason
              + " cfd="
              + connection);
    }
  }

  private static String remote(String address) {
    int colon = address.lastIndexOf(':');
    return colon < 0
        ? "rip=" + address + " rport=0"
        : "rip=" + address.substring(0, colon) + " rport=" + address.substring(colon + 1);
  }

  private void log(int kind, String body) {
    java.time.Instant now = java.time.Instant.now();
    String line =
        "ts="
            + now.getEpochSecond()
            + "."
            + String.format("%06d", now.getNano() / 1000)
            + " gid="
            + gids.incrementAndGet()
            + " "
            + body
            + "\r\n";
    byte[] bytes = line.getBytes(StandardCharsets.ISO_8859_1);
    for (Watcher w : watchers) {
      if ((w.kinds & kind) != 0) {
        send(w, bytes);
      }
    }
  }

  private void send(Watcher w, byte[] bytes) {
    if (w.unsent.get() + bytes.length > BUFFER) {
      w.skipped.incrementAndGet();
      skippedTotal.increment();
      return;
    }
    long skipped = w.skipped.getAndSet(0);
    if (skipped > 0) {
      byte[] note = ("skipped=" + skipped + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
      w.unsent.addAndGet(note.length);
      w.connection.push(new Line(w, note, skipped), note.length);
    }
    w.unsent.addAndGet(bytes.length);
    if (w.connection.push(new Line(w, bytes, 0), bytes.length)) {
      sent.increment();
    }
  }

  /**
   * A line reached its watcher's connection while the watcher's output was backed up (it does not
   * read): dropped and counted, to be reported by the next {@code skipped=} line.
   */
  void dropped(Line line) {
    written(line);
    if (line.skippedNote > 0) {
      line.watcher.skipped.addAndGet(line.skippedNote);
    } else {
      line.watcher.skipped.incrementAndGet();
      skippedTotal.increment();
      sent.decrement();
    }
  }

  /** A line was written to its watcher's connection: its bytes are no longer unsent. */
  static void written(Line line) {
    line.watcher.unsent.addAndGet(-line.bytes.length);
  }

  /**
   * A key as memcached's log shows it: bytes other than letters, digits and {@code - . _ ~} as
   * {@code %XX}.
   */
  static String uriEncoded(byte[] key) {
    StringBuilder b = new StringBuilder(key.length);
    for (byte x : key) {
      int c = x & 0xFF;
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '.'
          || c == '_'
          || c == '~') {
        b.append((char) c);
      } else {
        b.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)));
        b.append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
      }
    }
    return b.toString();
  }
}
