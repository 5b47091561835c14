package dev.larder.server.internal.pubsub;

import java.nio.charset.StandardCharsets;

/**
 * Keyspace notifications ({@code notify-keyspace-events}), as Redis 7 publishes them: for an event
 * {@code e} on key {@code k} of database {@code d}, the message {@code e} on channel {@code
 * __keyspace@d__:k} (class K) and the message {@code k} on channel {@code __keyevent@d__:e} (class
 * E), when the event's class is enabled.
 *
 * <p>Classes, Redis's letters: g generic (del, expire, rename...), $ string, l list, s set, h hash,
 * z sorted set, x expired, e evicted, t stream, m key miss, d module, n new key, A for
 * "g$lshzxetd"; K and E choose the channels. Larder publishes g, $, h (and l, s, z for the types
 * whose commands report them), x, e and n (the {@code new} event, before the command's own); m, t
 * and d are accepted and never published.
 *
 * <p>Events go to this member's subscribers only ({@link PubSub#deliver}): in a cluster, the events
 * of a change are published on the member that ran the command, as Redis Cluster publishes them on
 * the node that ran it, and a subscriber that wants every change subscribes on every member.
 *
 * <p>Thread-safe: the flags are one volatile int, so CONFIG SET applies to the next event.
 */
public final class KeyspaceEvents {
  /** Class g. */
  public static final int GENERIC = 1 << 2;

  /** Class $. */
  public static final int STRING = 1 << 3;

  /** Class l. */
  public static final int LIST = 1 << 4;

  /** Class s. */
  public static final int SET = 1 << 5;

  /** Class h. */
  public static final int HASH = 1 << 6;

  /** Class z. */
  public static final int ZSET = 1 << 7;

  /** Class x. */
  public static final int EXPIRED = 1 << 8;

  /** Class e. */
  public static final int EVICTED = 1 << 9;

  /** Class t. */
  public static final int STREAM = 1 << 10;

  /** Class n: a key made by a write (Redis publishes it where it adds a key to a database). */
  public static final int NEW = 1 << 13;

  private static final int KEY_MISS = 1 << 11;
  private static final int MODULE = 1 << 12;
  private static final int KEYSPACE = 1;
  private static final int KEYEVENT = 1 << 1;
  private static final int ALL =
      GENERIC | STRING | LIST | SET | HASH | ZSET | EXPIRED | EVICTED | STREAM | MODULE;

  private final PubSub pubsub;
  private volatile int flags;

  /**
   * @param pubsub where events are published
   * @param classes the notify-keyspace-events setting
   * @throws IllegalArgumentException if it has a letter that is no class
   */
  public KeyspaceEvents(PubSub pubsub, String classes) {
    this.pubsub = pubsub;
    this.flags = parse(classes);
  }

  /**
   * Parses Redis's class letters.
   *
   * @param classes the letters
   * @return the flags
   * @throws IllegalArgumentException for a letter that is no class
   */
  public static int parse(String classes) {
    int f = 0;
    for (int i = 0; i < classes.length(); i++) {
      f |=
          switch (classes.charAt(i)) {
            case 'A' -> ALL;
            case 'g' -> GENERIC;
            case '$' -> STRING;
            case 'l' -> LIST;
            case 's' -> SET;
            case 'h' -> HASH;
            case 'z' -> ZSET;
            case 'x' -> EXPIRED;
            case 'e' -> EVICTED;
            case 'K' -> KEYSPACE;
            case 'E' -> KEYEVENT;
            case 't' -> STREAM;
            case 'm' -> KEY_MISS;
            case 'd' -> MODULE;
            case 'n' -> NEW;
            default ->
                throw new IllegalArgumentException(
                    "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
          };
    }
    return f;
  }

  /**
   * Returns the flags as Redis writes them back (CONFIG GET): A when every class is on.
   *
   * @param f flags
   */
  public static String format(int f) {
    StringBuilder sb = new StringBuilder();
    if ((f & ALL) == ALL) {
      sb.append('A');
    } else {
      String letters = "g$lshzxetdn";
      int[] bits = {GENERIC, STRING, LIST, SET, HASH, ZSET, EXPIRED, EVICTED, STREAM, MODULE, NEW};
      for (int i = 0; i < bits.length; i++) {
        if ((f & bits[i]) != 0) {
          sb.append(letters.charAt(i));
        }
      }
    }
    if ((f & KEYSPACE) != 0) {
      sb.append('K');
    }
    if ((f & KEYEVENT) != 0) {
      sb.append('E');
    }
    if ((f & KEY_MISS) != 0) {
      sb.append('m');
    }
    return sb.toString();
  }

  /**
   * Changes the setting (CONFIG SET notify-keyspace-events).
   *
   * @param classes the letters
   * @throws IllegalArgumentException for a letter that is no class
   */
  public void set(String classes) {
    flags = parse(classes);
  }

  /** Returns the setting as CONFIG GET shows it. */
  public String get() {
    return format(flags);
  }

  /**
   * Returns whether events of that class are published (a cheap test before collecting them).
   *
   * @param type a class flag
   */
  public boolean enabled(int type) {
    int f = flags;
    return (f & type) != 0 && (f & (KEYSPACE | KEYEVENT)) != 0;
  }

  /** Returns whether any event is published at all. */
  public boolean any() {
    int f = flags;
    return (f & ~(KEYSPACE | KEYEVENT)) != 0 && (f & (KEYSPACE | KEYEVENT)) != 0;
  }

  /**
   * Publishes an event, if its class is on.
   *
   * @param type its class flag
   * @param event its name (set, del, expired...)
   * @param db the key's database
   * @param key the key
   */
  public void notify(int type, String event, int db, byte[] key) {
    int f = flags;
    if ((f & type) == 0) {
      return;
    }
    byte[] name = event.getBytes(StandardCharsets.US_ASCII);
    if ((f & KEYSPACE) != 0) {
      pubsub.deliver(concat("__keyspace@" + db + "__:", key), name);
    }
    if ((f & KEYEVENT) != 0) {
      pubsub.deliver(concat("__keyevent@" + db + "__:", name), key);
    }
  }

  private static byte[] concat(String prefix, byte[] tail) {
    byte[] p = prefix.getBytes(StandardCharsets.US_ASCII);
    byte[] out = new byte[p.length + tail.length];
    System.arraycopy(p, 0, out, 0, p.length);
    System.arraycopy(tail, 0, out, p.length, tail.length);
    return out;
  }
}
